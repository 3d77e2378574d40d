package dev.loopflow.store.jdbc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/*
 * Design notes.
 *
 * Every write transaction of a store runs on one platform thread, which nothing interrupts: a cancelled run interrupts
 * its node threads, and an interrupt that reaches a virtual thread blocked on a database socket closes the socket,
 * which would fail the very write that journals the cancellation. A caller queues its write and waits, without being
 * interruptible, until a transaction holding it has committed or failed; it keeps its interrupt for afterwards.
 *
 * Group commit: when the writer takes the next write, it also takes every write queued behind it (at most MAX_BATCH),
 * and the store commits them in one transaction. Writers that arrive together (parallel branches completing, many
 * runs in one engine) share a commit instead of queueing for one each. No write is delayed to wait for company: a
 * lone write is committed at once. A caller returns only after the transaction holding its write committed, so what
 * "durable when it returns" meant for one write per transaction holds unchanged.
 *
 * A write may also be submitted without a caller waiting for it (submit): its data is already durable elsewhere (the
 * store's completion log) and the transaction only brings the tables up to date. Such a write takes its place in
 * the same queue, so every write queued after it is committed in its transaction or a later one; its outcome goes
 * to a callback on the writer thread.
 *
 * Submitted writes are not waited for, so the writer may wait for company before committing them: when every write
 * it took is a submitted one, it waits up to LINGER_NANOS for more (a sequential loop logs a pass every few dozen
 * microseconds), and commits as soon as a waited write arrives, the batch is full or the writer stops. A transaction
 * then holds many passes, whose rows share the same pages, instead of one or two. No caller waits longer for this:
 * a waited write ends the linger the moment it is queued.
 */
final class GroupCommit {
  /** The most writes one transaction takes; the rest wait for the next. */
  static final int MAX_BATCH = 256;
  /** The longest the writer waits for more company when it holds only submitted writes. */
  static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  /** One queued write: the run it is for (null: no run's engine), its work, and the caller waiting for it. */
  static final class Request {
    final String runId;
    final Transactions.Work work;
    /** The caller waiting for this write; null for a submitted one, whose outcome goes to {@code outcome}. */
    private final Thread waiter;
    private final Consumer<RuntimeException> outcome;
    private volatile boolean done;
    private RuntimeException failure;

    Request(String runId, Transactions.Work work) {
      this.runId = runId;
      this.work = work;
      this.waiter = Thread.currentThread();
      this.outcome = null;
    }

    private Request(String runId, Transactions.Work work, Consumer<RuntimeException> outcome) {
      this.runId = runId;
      this.work = work;
      this.waiter = null;
      this.outcome = outcome;
    }

    /** Ends the wait of the caller: committed when {@code failure} is null, else failed with it. */
    void finish(RuntimeException failure) {
      this.failure = failure;
      done = true;
      if (waiter != null) {
        LockSupport.unpark(waiter);
      } else {
        outcome.accept(failure);
      }
    }

    boolean finished() {
      return done;
    }

    /** Whether this write was submitted, not waited for: a logged completion brought into the tables. */
    boolean submitted() {
      return waiter == null;
    }

    private void await() {
      boolean interrupted = false;
      while (!done) {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition queued = lock.newCondition();
  private final ArrayDeque<Request> queue = new ArrayDeque<>();
  /** Queued writes with a caller waiting for them. Guarded by lock. */
  private int waitedInQueue;
  private final Consumer<List<Request>> commit;
  private final long lingerNanos;
  private final Thread thread;
  private boolean stopping;

  /** {@code commit} runs a batch in one transaction and must {@linkplain Request#finish finish} each request. */
  GroupCommit(String name, Consumer<List<Request>> commit) {
    this(name, commit, LINGER_NANOS);
  }

  /** With another linger; for tests. */
  GroupCommit(String name, Consumer<List<Request>> commit, long lingerNanos) {
    this.lingerNanos = lingerNanos;
    this.commit = commit;
    this.thread = new Thread(this::loop, name);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Queues {@code work} and returns when a transaction holding it has committed; throws what failed it, or
   * {@code closed} when the writer has stopped.
   */
  void write(String runId, Transactions.Work work, Supplier<RuntimeException> closed) {
    Request r = new Request(runId, work);
    enqueue(r, closed);
    r.await();
  }

  /**
   * Queues {@code work} and returns at once; {@code outcome} is called on the writer thread with null once a
   * transaction holding it committed, or with what failed it. Throws {@code closed} when the writer has stopped.
   */
  void submit(String runId, Transactions.Work work, Consumer<RuntimeException> outcome,
      Supplier<RuntimeException> closed) {
    enqueue(new Request(runId, work, outcome), closed);
  }

  private void enqueue(Request r, Supplier<RuntimeException> closed) {
    lock.lock();
    try {
      if (stopping) {
        throw closed.get();
      }
      queue.add(r);
      if (r.waiter != null) {
        waitedInQueue++;
      }
      queued.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the caller is the writer thread (which must not wait for itself). */
  boolean onWriterThread() {
    return Thread.currentThread() == thread;
  }

  /** Writes queued and not yet taken by the writer; for tests. */
  int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** The writer finishes what is queued and stops; later writes fail as closed. */
  void stop() {
    lock.lock();
    try {
      stopping = true;
      queued.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Moves queued writes into {@code batch}, up to MAX_BATCH; called holding the lock. */
  private void take(List<Request> batch) {
    while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
      Request r = queue.poll();
      if (r.waiter != null) {
        waitedInQueue--;
      }
      batch.add(r);
    }
  }

  private static boolean allSubmitted(List<Request> batch) {
    for (Request r : batch) {
      if (r.waiter != null) {
        return false;
      }
    }
    return true;
  }

  private void loop() {
    List<Request> batch = new ArrayList<>();
    while (true) {
      lock.lock();
      try {
        while (queue.isEmpty() && !stopping) {
          queued.awaitUninterruptibly();
        }
        if (queue.isEmpty()) {
          return;
        }
        take(batch);
        if (waitedInQueue == 0 && allSubmitted(batch)) {
          long left = lingerNanos;
          while (!stopping && waitedInQueue == 0 && batch.size() + queue.size() < MAX_BATCH && left > 0) {
            try {
              left = queued.awaitNanos(left);
            } catch (InterruptedException e) {
              break; // nothing interrupts the writer; if something did, commit what is here
            }
          }
          take(batch);
        }
      } finally {
        lock.unlock();
      }
      try {
        commit.accept(batch);
      } catch (RuntimeException | Error e) {
        // commit answers every request itself; this only keeps a caller from waiting forever on a bug.
        RuntimeException failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
        for (Request r : batch) {
          if (!r.finished()) {
            r.finish(failure);
          }
        }
      }
      batch.clear();
    }
  }
}
