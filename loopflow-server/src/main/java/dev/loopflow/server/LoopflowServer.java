package dev.loopflow.server;

import dev.loopflow.core.store.RunStore;
import dev.loopflow.observability.Observability;
import dev.loopflow.server.internal.HostCheck;
import dev.loopflow.server.internal.HttpApi;
import dev.loopflow.server.internal.Settings;
import dev.loopflow.server.spi.RunDispatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The loopflow HTTP server: the JSON API under {@code /api} (every call needs {@code Authorization: Bearer TOKEN}),
 * live run events as server-sent events, the run metrics in the Prometheus text format at {@code /metrics} (with the
 * same token), and the web UI's pages. Runs started or resumed through it execute in this
 * process with the same engine as the command line, journaled to the given store; runs in the store that another
 * process executes are listed, shown, streamed and acted on the same way.
 *
 * <pre>{@code
 * try (LoopflowServer server = LoopflowServer.builder().store(store).workflowsDir(dir).token(token).port(0).build()) {
 *   server.start();
 *   System.out.println(server.url());
 *   ...
 * }
 * }</pre>
 *
 * A server is configured once: {@link Builder#build()} checks every setting and the builder cannot be changed after.
 * {@link #close()} cancels the runs this server executes (as the command line's Ctrl-C does), ends every event
 * stream and stops listening; it does not close the store, which belongs to the caller.
 */
public final class LoopflowServer implements AutoCloseable {
  private final Settings settings;
  private HttpApi api;
  private boolean closed;

  private LoopflowServer(Settings settings) {
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the address and starts serving. Throws {@link java.io.UncheckedIOException} naming the address when it
   * cannot be bound (in use, not an address of this machine), {@link IllegalStateException} when started twice or
   * after {@link #close()}.
   */
  public synchronized LoopflowServer start() {
    if (closed || api != null) {
      throw new IllegalStateException(closed ? "the server was closed" : "the server is already started");
    }
    HttpApi a = new HttpApi(settings);
    a.start();
    api = a;
    return this;
  }

  /** The port the server listens on (the one chosen when it was configured with port 0). */
  public synchronized int port() {
    if (api == null) {
      throw new IllegalStateException("the server is not started");
    }
    return api.port();
  }

  /** {@code http://HOST:PORT/}, with an IPv6 host in brackets. */
  public String url() {
    String host = settings.host();
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + "/";
  }

  /** The directory named workflows are read from and written to. */
  public Path workflowsDir() {
    return settings.workflowsDir();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (api != null) {
      api.close();
    }
  }

  /** Whether {@code host} names this machine's loopback interface (an unresolvable name does not). */
  public static boolean isLoopback(String host) {
    return HostCheck.resolvesToLoopbackOnly(host);
  }


  /** Configures a server; {@link #build()} checks every setting once. */
  public static final class Builder {
    /** The default limit of a request body: 1 MiB. */
    public static final long DEFAULT_MAX_BODY_BYTES = 1L << 20;

    private RunStore store;
    private Path workflowsDir;
    private String token;
    private String host = "127.0.0.1";
    private int port = 8080;
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private Duration heartbeat = Duration.ofSeconds(15);
    private int streamQueue = 4096;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final Map<String, Object> runOptions = new LinkedHashMap<>();
    private Consumer<String> log = line -> System.err.println(line);
    private Observability observability;
    private RunDispatch dispatch;
    private boolean built;

    private Builder() {}

    /** The run store (required). The server reads and journals runs there; the caller closes it. */
    public Builder store(RunStore s) {
      unsealed().store = Objects.requireNonNull(s, "store");
      return this;
    }

    /** The directory of named workflow files (required); created when missing. */
    public Builder workflowsDir(Path dir) {
      unsealed().workflowsDir = Objects.requireNonNull(dir, "workflowsDir").toAbsolutePath().normalize();
      return this;
    }

    /** The bearer token every {@code /api} call must carry (required). */
    public Builder token(String t) {
      unsealed().token = t;
      return this;
    }

    /** The address to bind (default 127.0.0.1). */
    public Builder host(String h) {
      unsealed().host = h;
      return this;
    }

    /** The port (default 8080; 0 picks a free one, see {@link #port()}). */
    public Builder port(int p) {
      unsealed().port = p;
      return this;
    }

    /** The largest request body accepted (default 1 MiB); a larger one is refused with 413 and nothing is done. */
    public Builder maxBodyBytes(long n) {
      unsealed().maxBodyBytes = n;
      return this;
    }

    /** How often an idle event stream gets a comment line (default 15 s). */
    public Builder heartbeat(Duration d) {
      unsealed().heartbeat = d;
      return this;
    }

    /**
     * How many events a stream may fall behind a run executing here before it is disconnected (default 4096); the
     * client reconnects with its last event id and misses nothing.
     */
    public Builder streamQueue(int events) {
      unsealed().streamQueue = events;
      return this;
    }

    /** A variable runs started or resumed here see, over the process environment. */
    public Builder environment(String name, String value) {
      unsealed().environment.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** A run option every run started or resumed here gets (for example {@code http.deny_private}). */
    public Builder runOption(String name, Object value) {
      unsealed().runOptions.put(Objects.requireNonNull(name, "name"), value);
      return this;
    }

    /**
     * The traces and metrics of the runs this server executes (see {@link Observability}); {@code GET /metrics}
     * serves its metrics when they are kept in {@link Observability#prometheusRegistry()}. Default: metrics in a
     * Prometheus registry of this server's own, no tracing. The caller closes what it passes.
     */
    public Builder observability(Observability o) {
      unsealed().observability = Objects.requireNonNull(o, "observability");
      return this;
    }

    /** Where the server writes what no response carries (an internal error's details); default stderr. */
    /**
     * Runs started or resumed over HTTP are queued with {@code d} (worker processes execute them) instead of
     * executing in the server; null (the default) executes them here.
     */
    public Builder dispatch(RunDispatch d) {
      unsealed().dispatch = d;
      return this;
    }

    public Builder log(Consumer<String> sink) {
      unsealed().log = Objects.requireNonNull(sink, "log");
      return this;
    }

    /**
     * Checks every setting and makes the server (not started). Throws {@link IllegalArgumentException} naming the
     * setting and its value when one is missing or out of range; the builder cannot be used afterwards.
     */
    public LoopflowServer build() {
      unsealed();
      if (store == null) {
        throw new IllegalArgumentException("store is required");
      }
      if (workflowsDir == null) {
        throw new IllegalArgumentException("workflowsDir is required");
      }
      if (token == null || token.isBlank() || token.length() > 4096
          || token.codePoints().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
        throw new IllegalArgumentException("token must be 1 to 4096 characters without spaces or control "
            + "characters");
      }
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("host must name an address, was '" + host + "'");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
      }
      if (maxBodyBytes < 1024 || maxBodyBytes > (1L << 30)) {
        throw new IllegalArgumentException("maxBodyBytes must be 1024 to 1073741824, was " + maxBodyBytes);
      }
      if (heartbeat == null || heartbeat.isNegative() || heartbeat.isZero()) {
        throw new IllegalArgumentException("heartbeat must be positive, was " + heartbeat);
      }
      if (streamQueue < 16) {
        throw new IllegalArgumentException("streamQueue must be at least 16, was " + streamQueue);
      }
      built = true;
      return new LoopflowServer(new Settings(store, workflowsDir, token, host.strip(), port, maxBodyBytes, heartbeat,
          Map.copyOf(environment), Collections.unmodifiableMap(new LinkedHashMap<>(runOptions)),
          streamQueue, log, LoopflowServer.class.getClassLoader(), observability != null ? observability
              : Observability.builder().meterRegistry(Observability.prometheusRegistry()).build(), dispatch));
    }

    private Builder unsealed() {
      if (built) {
        throw new IllegalStateException("this builder already built a server; start a new builder");
      }
      return this;
    }
  }
}
