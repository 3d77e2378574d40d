package dev.loopflow.store.jdbc;

import dev.loopflow.core.secrets.PrivateFiles;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/*
 * Design notes.
 *
 * A SQLite store commits a node completion by appending it to a log file of its own (one write call) and brings the
 * tables up to date from it on its writer thread, many completions to a transaction. The append is as durable as a
 * commit of SQLite in WAL mode with synchronous=NORMAL, the store's default: it is in the operating system's hands
 * when the call returns, so it survives the process being killed at any point, and a power loss may lose the last
 * ones. A store opened with synchronous=FULL does not use a log.
 *
 * One log per open store, in the directory <database file>-log, named <random>.log, 0600, locked (an fcntl lock on
 * the whole file) for as long as the store is open. A log is created as <random>.new and renamed once it is locked,
 * so a recovery never sees a log that is not locked yet. A log whose lock can be taken belongs to a process that ended
 * before its writer caught up: whoever finds it (a store being opened, a lease being claimed, a run list) applies its
 * records and deletes it. Records are idempotent inserts (events and node executions by their run and sequence
 * number, which journal rows never change), so applying a record twice, or applying one that was applied already,
 * leaves the tables as once.
 *
 * Locks of this kind belong to the process, and closing any channel of a file drops every lock the process holds on
 * it; the logs this JVM has open are therefore remembered (OWN) and never opened by its own recovery.
 *
 * Nothing here may be interruptible: an interrupt that reaches a thread inside an operation of a FileChannel closes
 * the channel, and the engine's node threads are interrupted (a cancelled run, a finished process). Appends and
 * truncation therefore go through RandomAccessFile's own methods, which an interrupt does not stop, and the channel
 * operations of a recovery (trying the lock, reading) run on the store's writer thread, which nothing interrupts.
 *
 * Record: int length, int CRC32C of the payload, payload. Reading stops at the first record that is cut short or
 * whose checksum does not match (a write the machine lost at a power cut), and at a length beyond what is left.
 */
final class CompletionLog implements AutoCloseable {
  /** Logs this JVM has open, by absolute path; recovery never touches them. */
  private static final Set<Path> OWN = ConcurrentHashMap.newKeySet();
  /** A log is cut back to empty once it is larger than this and everything in it was applied. */
  static final long TRUNCATE_AT = 1 << 20;
  /** The largest record a reader accepts; a longer length is damage. */
  static final int MAX_RECORD = 64 << 20;
  /** Bytes before a record's payload: its length and its checksum. */
  static final int HEADER = 8;
  /**
   * The name a log has while it is being created, before it is locked. Recovery ignores such files; one a process
   * killed in that instant left behind (empty) is deleted by a later store after a minute.
   */
  static final String MAKING = ".new";

  private final Path file;
  private final RandomAccessFile out;
  private final CRC32C crc = new CRC32C();
  private long size;

  private CompletionLog(Path file, RandomAccessFile out) {
    this.file = file;
    this.out = out;
  }

  /** The directory the logs of the database {@code database} live in. */
  static Path directory(Path database) {
    return database.resolveSibling(database.getFileName() + "-log");
  }

  /**
   * A new log of this store in {@code dir} (created 0700 when missing), locked until {@link #close}. The file is
   * created under a name recovery does not look at, locked, and only then renamed to its {@code .log} name: a log a
   * recovery can see is always locked by its owner, so no recovery takes a log being created for one left behind.
   */
  static CompletionLog create(Path dir) throws IOException {
    PrivateFiles.createDirectories(dir);
    String name = UUID.randomUUID().toString();
    Path making = dir.resolve(name + MAKING).toAbsolutePath();
    Path file = dir.resolve(name + ".log").toAbsolutePath();
    if (!PrivateFiles.createFile(making)) {
      throw new IOException("a completion log named " + making + " exists already");
    }
    OWN.add(file);
    RandomAccessFile raf = null;
    try {
      raf = new RandomAccessFile(making.toFile(), "rw");
      raf.getChannel().lock(); // released when the file is closed; a rename keeps it (it is the file's, not the name's)
      Files.move(making, file, StandardCopyOption.ATOMIC_MOVE);
      sweepStaleCreations(dir, making);
      return new CompletionLog(file, raf);
    } catch (IOException | RuntimeException e) {
      OWN.remove(file);
      if (raf != null) {
        raf.close();
      }
      Files.deleteIfExists(making);
      throw e;
    }
  }

  /** A log is renamed microseconds after it is created; one still unnamed after this was left by a killed process. */
  static final long STALE_CREATION_MILLIS = 60_000;

  /**
   * Deletes the {@code .new} files of creations that never finished (a process killed between creating its log and
   * naming it): empty, unlocked and older than a minute. Best effort; anything that is not such a regular file is
   * left alone.
   */
  private static void sweepStaleCreations(Path dir, Path own) {
    long before = System.currentTimeMillis() - STALE_CREATION_MILLIS;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + MAKING)) {
      for (Path p : ds) {
        Path abs = p.toAbsolutePath();
        if (abs.equals(own) || !Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        BasicFileAttributes a = Files.readAttributes(abs,
            BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.size() == 0 && a.lastModifiedTime().toMillis() < before) {
          Files.deleteIfExists(abs);
        }
      }
    } catch (IOException | RuntimeException e) {
      // Left for the next store opened here: an empty file holds nothing.
    }
  }

  /**
   * Appends one record, in one write: {@code frame} holds {@link #HEADER} bytes for this method to fill, then the
   * payload, {@code length} bytes in all. When this returns the record is in the operating system's hands. The
   * caller serializes appends and {@link #truncateIfLarge} with them.
   */
  void append(byte[] frame, int length) throws IOException {
    int payload = length - HEADER;
    crc.reset();
    crc.update(frame, HEADER, payload);
    int sum = (int) crc.getValue();
    putInt(frame, 0, payload);
    putInt(frame, 4, sum);
    out.write(frame, 0, length);
    size += length;
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  /** Empties the log when it has grown past {@link #TRUNCATE_AT}; call only when every record in it was applied. */
  void truncateIfLarge() throws IOException {
    if (size > TRUNCATE_AT) {
      out.setLength(0);
      out.seek(0);
      size = 0;
    }
  }

  /** Bytes in the log; for tests. */
  long size() {
    return size;
  }

  Path file() {
    return file;
  }

  /** Deletes the log and unlocks it; call only when every record in it was applied. */
  @Override
  public void close() throws IOException {
    try {
      Files.deleteIfExists(file);
    } finally {
      abandon();
    }
  }

  /**
   * Unlocks the log and leaves it in place, for a store closing with records not yet applied: the next store opened
   * on the database applies them.
   */
  void abandon() throws IOException {
    try {
      out.close();
    } finally {
      OWN.remove(file);
    }
  }

  /** A log left behind by a process that ended, locked here, with its intact records. */
  static final class Left {
    private final Path file;
    private final FileChannel channel;
    private final List<byte[]> records;

    private Left(Path file, FileChannel channel, List<byte[]> records) {
      this.file = file;
      this.channel = channel;
      this.records = records;
    }

    List<byte[]> records() {
      return records;
    }

    /** Deletes the log (its records are in the tables now) and unlocks it. */
    void discard() throws IOException {
      try {
        Files.deleteIfExists(file);
      } finally {
        release();
      }
    }

    /** Unlocks the log and leaves it for a later recovery. */
    void release() throws IOException {
      channel.close();
    }
  }

  /**
   * Whether {@code dir} holds a log this JVM does not have open: only then can {@link #findLeft} find something, and
   * a store checks this first instead of taking its writer for nothing (a run list asks on every call).
   */
  static boolean mayHoldLeft(Path dir) throws IOException {
    return !candidates(dir).isEmpty();
  }

  private static List<Path> candidates(Path dir) throws IOException {
    List<Path> candidates = new ArrayList<>();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return candidates;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.log")) {
      for (Path p : ds) {
        Path abs = p.toAbsolutePath();
        if (!OWN.contains(abs) && Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
          candidates.add(abs);
        }
      }
    }
    return candidates;
  }

  /**
   * The logs in {@code dir} left behind by processes that have ended (their lock can be taken), each locked here
   * with its records, until the caller {@linkplain Left#discard discards} or {@linkplain Left#release releases} it.
   * Logs of live processes and of this JVM are left alone; anything in the directory that is not a regular file
   * named like a log is ignored. Run it on a thread nothing interrupts (see the design notes).
   */
  static List<Left> findLeft(Path dir) throws IOException {
    List<Left> out = new ArrayList<>();
    try {
      for (Path p : candidates(dir)) {
        FileChannel ch;
        try {
          ch = FileChannel.open(p, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException gone) {
          continue; // recovered by someone else meanwhile
        }
        boolean kept = false;
        try {
          FileLock lock;
          try {
            lock = ch.tryLock();
          } catch (OverlappingFileLockException inThisJvm) {
            lock = null;
          }
          if (lock != null) {
            out.add(new Left(p, ch, read(ch)));
            kept = true;
          }
        } finally {
          if (!kept) {
            ch.close();
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      for (Left l : out) {
        try {
          l.release();
        } catch (IOException again) {
          e.addSuppressed(again);
        }
      }
      throw e;
    }
    return out;
  }

  /** The intact records of a log, in order, up to the first damaged or cut one. */
  static List<byte[]> read(FileChannel ch) throws IOException {
    List<byte[]> out = new ArrayList<>();
    long end = ch.size();
    long pos = 0;
    ByteBuffer head = ByteBuffer.allocate(HEADER);
    CRC32C check = new CRC32C();
    while (end - pos >= HEADER) {
      head.clear();
      if (readFully(ch, head, pos) < HEADER) {
        break;
      }
      head.flip();
      int length = head.getInt();
      int sum = head.getInt();
      if (length < 0 || length > MAX_RECORD || length > end - pos - HEADER) {
        break;
      }
      ByteBuffer body = ByteBuffer.allocate(length);
      if (readFully(ch, body, pos + HEADER) < length) {
        break;
      }
      check.reset();
      check.update(body.array(), 0, length);
      if ((int) check.getValue() != sum) {
        break;
      }
      out.add(body.array());
      pos += HEADER + length;
    }
    return out;
  }

  private static int readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    int total = 0;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, at + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }
}
