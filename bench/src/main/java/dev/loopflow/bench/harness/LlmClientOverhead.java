package dev.loopflow.bench.harness;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.loopflow.llm.provider.ChatCall;
import dev.loopflow.llm.provider.ChatClient;
import dev.loopflow.llm.provider.Provider;
import dev.loopflow.llm.provider.ProviderSettings;
import dev.loopflow.llm.provider.Providers;
import dev.loopflow.testkit.FakeOpenAiServer;
import dev.loopflow.testkit.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How much CPU a chat completion costs the client, by client stack: the same calls (W4's shape: {@code --runs}
 * concurrent callers, {@code --n} sequential calls each) against an in-process fake OpenAI server answering after
 * {@code --delay-ms}, through each {@code --clients} entry in turn, interleaved over {@code --rounds}.
 *
 * <ul>
 *   <li>{@code provider}: {@link Providers#client} for {@code provider: openai}, the path the {@code llm} node uses;
 *   <li>{@code raw}: a bare JDK HttpClient POST (HTTP/1.1), request written and reply read by Jackson's streaming
 *       generator and parser: the floor any client stack pays.
 * </ul>
 *
 * <p>Prints one line per client and round: wall ms, process CPU µs per call (the fake server's share is the same for
 * every client, so differences are the client's).
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.loopflow.bench.harness.LlmClientOverhead --runs 500 --n 10</pre>
 */
public final class LlmClientOverhead {

  private static final JsonFactory JSON = new JsonFactory();

  private LlmClientOverhead() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("sun.net.httpserver.maxIdleConnections", "2000");
    int runs = intArg(args, "--runs", 500);
    int n = intArg(args, "--n", 10);
    int rounds = intArg(args, "--rounds", 3);
    int delay = intArg(args, "--delay-ms", 50);
    List<String> clients = Arrays.asList(stringArg(args, "--clients", "provider,raw").split(","));
    try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
      server.defaultReply(new Reply.Delayed(Duration.ofMillis(delay), Reply.text("fine")));
      List<Caller> callers = new ArrayList<>();
      for (String c : clients) {
        callers.add(caller(c, server.baseUrl()));
      }
      for (Caller c : callers) { // warm-up
        batch(c, runs, n);
        batch(c, runs, n);
      }
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < callers.size(); k++) {
          Caller c = callers.get((k + r) % callers.size());
          server.reset();
          server.defaultReply(new Reply.Delayed(Duration.ofMillis(delay), Reply.text("fine")));
          long cpu0 = cpuNanos();
          long t0 = System.nanoTime();
          long chars = batch(c, runs, n);
          long wall = System.nanoTime() - t0;
          long cpu = cpuNanos() - cpu0;
          System.out.printf("%-9s round %d: wall %7.1f ms (%.2fx the %d ms critical path), cpu %6.1f us/call, %d chars%n",
              c.name(), r, wall / 1e6, wall / 1e6 / (n * (double) delay), n * delay, cpu / 1e3 / (runs * (long) n),
              chars);
        }
      }
    }
  }

  private interface Caller {
    String name();

    String call(String prompt) throws Exception;
  }

  private static Caller caller(String name, String url) {
    return switch (name) {
      case "provider" -> {
        ChatClient client = Providers.client(new ProviderSettings(Provider.OPENAI, url, "bench", null, null));
        yield new Caller() {
          public String name() {
            return name;
          }

          public String call(String prompt) {
            return client.chat(ChatCall.of("bench", prompt)).text();
          }
        };
      }
      case "raw" -> {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create(url + "/chat/completions");
        yield new Caller() {
          public String name() {
            return name;
          }

          public String call(String prompt) throws Exception {
            HttpRequest request = HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer bench")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body(prompt)))
                .build();
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
              if (response.statusCode() != 200) {
                throw new IOException("HTTP " + response.statusCode());
              }
              return content(in);
            }
          }
        };
      }
      default -> throw new IllegalArgumentException("--clients: unknown client '" + name + "'");
    };
  }

  private static byte[] body(String prompt) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("model", "bench");
      g.writeArrayFieldStart("messages");
      g.writeStartObject();
      g.writeStringField("role", "user");
      g.writeStringField("content", prompt);
      g.writeEndObject();
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toByteArray();
  }

  /** {@code choices[0].message.content}, the only field W4 needs. */
  private static String content(InputStream in) throws IOException {
    try (JsonParser p = JSON.createParser(in)) {
      String text = null;
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (t == JsonToken.FIELD_NAME && p.currentName().equals("content")
            && p.getParsingContext().getParent() != null) {
          p.nextToken();
          text = p.getValueAsString();
        }
      }
      return text == null ? "" : text;
    }
  }

  private static long batch(Caller c, int runs, int n) throws Exception {
    AtomicLong chars = new AtomicLong();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> all = new ArrayList<>();
      for (int r = 0; r < runs; r++) {
        all.add(pool.submit(() -> {
          for (int i = 0; i < n; i++) {
            chars.addAndGet(c.call("Write draft " + i).length());
          }
          return null;
        }));
      }
      for (Future<?> f : all) {
        f.get();
      }
    }
    return chars.get();
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static int intArg(String[] args, String name, int fallback) {
    String v = stringArg(args, name, null);
    return v == null ? fallback : Integer.parseInt(v);
  }

  private static String stringArg(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }
}
