package dev.loopflow.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** A server-sent-events reader for tests: frames as the spec parses them, comment lines counted. */
final class SseClient implements AutoCloseable {
  /** One dispatched event; {@code id} null when the frame had no id line. */
  record Frame(Long id, String event, String data) {}

  final int status;
  final String contentType;
  final List<Frame> frames = new CopyOnWriteArrayList<>();
  final AtomicInteger comments = new AtomicInteger();
  private final InputStream body;
  private final CountDownLatch ended = new CountDownLatch(1);
  private final String errorBody;

  private SseClient(HttpResponse<InputStream> r) throws IOException {
    this.status = r.statusCode();
    this.contentType = r.headers().firstValue("Content-Type").orElse("");
    this.body = r.body();
    if (status != 200) {
      errorBody = new String(body.readAllBytes(), StandardCharsets.UTF_8);
      ended.countDown();
      return;
    }
    errorBody = null;
    Thread.ofVirtual().start(this::read);
  }

  static SseClient open(ServerHarness h, String path, String lastEventId) {
    HttpRequest.Builder b = h.request(path).header("Accept", "text/event-stream").GET();
    if (lastEventId != null) {
      b.header("Last-Event-ID", lastEventId);
    }
    try {
      return new SseClient(h.http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  String errorBody() {
    return errorBody;
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      Long id = null;
      String event = null;
      StringBuilder data = null;
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          if (data != null) {
            frames.add(new Frame(id, event, data.toString()));
          }
          id = null;
          event = null;
          data = null;
        } else if (line.startsWith(":")) {
          comments.incrementAndGet();
        } else if (line.startsWith("id: ")) {
          id = Long.parseLong(line.substring(4));
        } else if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data = data == null ? new StringBuilder(line.substring(6)) : data.append('\n').append(line.substring(6));
        } else {
          throw new IllegalStateException("unexpected line in the stream: " + line);
        }
      }
    } catch (IOException e) {
      // closed by the test or the server
    } finally {
      ended.countDown();
    }
  }

  /** Waits for the server to end the stream. */
  SseClient awaitEnd(Duration d) throws InterruptedException {
    if (!ended.await(d.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the stream did not end within " + d + "; frames: " + frames.size());
    }
    return this;
  }

  boolean hasEnded() {
    return ended.getCount() == 0;
  }

  /** Waits until a frame matches. */
  Frame await(Predicate<Frame> p, Duration d) {
    long until = System.nanoTime() + d.toNanos();
    while (System.nanoTime() < until) {
      for (Frame f : frames) {
        if (p.test(f)) {
          return f;
        }
      }
      Fixtures.sleep(Duration.ofMillis(20));
    }
    throw new AssertionError("no matching frame within " + d + "; frames: " + frames);
  }

  List<Frame> durable() {
    List<Frame> out = new ArrayList<>();
    for (Frame f : frames) {
      if (f.id() != null) {
        out.add(f);
      }
    }
    return out;
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
