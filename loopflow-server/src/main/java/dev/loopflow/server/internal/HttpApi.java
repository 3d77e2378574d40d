package dev.loopflow.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.observability.Observability;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The HTTP side of one server: Javalin configured once (no compression, so streamed events are never held back;
 * request bodies up to the configured limit; handlers on virtual threads), the security headers, the host check of a
 * loopback server, the token check, the route table, the pages of the web UI, and the one mapping of every failure
 * to a JSON error body.
 *
 * <p>What must stay true about the token: it is required by route, not by how a path is spelt. Every API route is
 * registered through {@link #api}, which checks the token before its handler runs, whatever path or method reached
 * it; and before any route, every request that is not for one of the public pages needs it too, so a path no route
 * takes (a 404 or 405) tells nothing either. The public pages are listed once, in {@link #PUBLIC_PAGES}.
 */
public final class HttpApi implements AutoCloseable {
  private final Settings settings;
  private final Loopflow engine;
  private final LocalRuns runs;
  private final Auth auth;
  /** The path of the Prometheus page. */
  static final String METRICS = "/metrics";
  private final UiBundle ui;
  private final Javalin app;
  /** Whether the server listens on loopback only: then it answers only requests addressed to a loopback name. */
  private final boolean loopbackOnly;
  private volatile boolean stopping;

  /**
   * The pages of the web UI and its bundled assets, which need no token (they hold no data; the app asks the API
   * with the token). Asset paths are plain names in plain folders: a path with a dot-dot segment, an escape or a
   * parameter is not public, whatever it would resolve to.
   */
  static final Pattern PUBLIC_PAGES = Pattern.compile(
      "/|/builder/?|/runs/[^/]+/?|/builder/[^/]+/?|/assets/(?:(?!\\.\\.)[A-Za-z0-9_.-]+/)*(?!\\.\\.)[A-Za-z0-9_.-]+");

  /** The body types a route takes. */
  enum Accepts {
    /** No body is read (GET routes). */
    NOTHING,
    /** {@code application/json}. */
    JSON,
    /** {@code application/json}, or YAML itself ({@code application/yaml} and its variants). */
    JSON_OR_YAML
  }

  public HttpApi(Settings settings) {
    this.settings = settings;
    this.engine = Loopflow.builder().store(settings.store()).build();
    this.auth = new Auth(settings.token());
    this.loopbackOnly = HostCheck.resolvesToLoopbackOnly(settings.host());
    this.ui = new UiBundle(settings.uiResources());
    try {
      Files.createDirectories(settings.workflowsDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the workflows directory " + settings.workflowsDir() + ": "
          + e.getMessage(), e);
    }
    WorkflowFiles workflows = new WorkflowFiles(settings.workflowsDir());
    Map<String, String> env = new LinkedHashMap<>(System.getenv());
    env.putAll(settings.environment());
    Redactor redactor = Redactor.ofEnvironment(env);
    SseFrames frames = new SseFrames(redactor);
    this.runs = new LocalRuns(engine, settings.environment(), settings.runOptions(), settings.queueCapacity(),
        frames, settings.observability(), settings.dispatch());
    WorkflowRoutes workflowRoutes = new WorkflowRoutes(engine, workflows);
    CatalogRoutes catalogRoutes = new CatalogRoutes(engine);
    RunRoutes runRoutes = new RunRoutes(engine, workflows, runs, redactor, () -> stopping, settings.log());
    JournalRoutes journalRoutes = new JournalRoutes(engine, runs, frames, redactor, settings.heartbeat(),
        () -> stopping, settings.log());
    ExecutionSteps executionSteps = new ExecutionSteps(engine.store(), redactor);
    String version = version();
    this.app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;
      config.http.compressionStrategy = CompressionStrategy.NONE;
      config.http.maxRequestSize = settings.maxBodyBytes();
      config.http.prefer405over404 = true;
      config.concurrency.useVirtualThreads = true;
      config.jetty.modifyHttpConfiguration(http -> {
        http.setSendServerVersion(false);
        // Jetty caches the header fields of a connection and by default looks them up ignoring case: a second
        // request on a kept-alive connection whose token differed from the first only in case got the first's
        // header, and passed. Tokens are compared exactly, so the cache must be too.
        http.setHeaderCacheCaseSensitive(true);
      });
      config.jetty.modifyServer(server -> server.setErrorHandler(new JettyErrors()));
      config.routes.before(this::securityHeaders);
      config.routes.before(this::checkHost);
      config.routes.before(this::authenticate);
      config.routes.before(this::limitBody);

      config.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e));
      config.routes.exception(LoopflowException.class, (e, ctx) -> error(ctx, ApiError.of(e)));
      config.routes.exception(HttpResponseException.class, (e, ctx) -> error(ctx, fromJavalin(e, ctx)));
      config.routes.exception(IOException.class, (e, ctx) -> {
        // The operating system's reason only: an exception's message names the server's files.
        settings.log().accept("loopflow server: internal error on " + ctx.method() + " " + ctx.path() + ": "
            + trace(e));
        error(ctx, ApiError.of(ErrorTable.Kind.INTERNAL, "internal error: " + ApiError.oneLine(WorkflowFiles.why(e))));
      });
      config.routes.exception(Exception.class, (e, ctx) -> {
        settings.log().accept("loopflow server: internal error on " + ctx.method() + " " + ctx.path() + ": "
            + trace(e));
        error(ctx, ApiError.of(ErrorTable.Kind.INTERNAL, "internal error: " + ApiError.oneLine(
            e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())));
      });

      Map<String, Object> health = new LinkedHashMap<>();
      health.put("status", "ok");
      health.put("version", version);
      config.routes.get("/api/health", api(Accepts.NOTHING, ctx -> json(ctx, 200, health)));
      config.routes.get(METRICS, api(Accepts.NOTHING, this::metrics));
      config.routes.post("/api/validate", api(Accepts.JSON, workflowRoutes::validate));
      config.routes.get("/api/schema", api(Accepts.NOTHING, workflowRoutes::schema));
      config.routes.get("/api/node-kinds", api(Accepts.NOTHING, catalogRoutes::nodeKinds));
      config.routes.get("/api/templates", api(Accepts.NOTHING, catalogRoutes::templates));
      config.routes.get("/api/templates/{id}", api(Accepts.NOTHING, catalogRoutes::template));
      config.routes.get("/api/workflows", api(Accepts.NOTHING, workflowRoutes::list));
      config.routes.get("/api/workflows/{name}", api(Accepts.NOTHING, workflowRoutes::get));
      config.routes.put("/api/workflows/{name}", api(Accepts.JSON_OR_YAML, workflowRoutes::put));
      config.routes.get("/api/runs", api(Accepts.NOTHING, runRoutes::list));
      config.routes.post("/api/runs", api(Accepts.JSON, runRoutes::start));
      config.routes.get("/api/runs/{id}", api(Accepts.NOTHING, runRoutes::show));
      config.routes.delete("/api/runs/{id}", api(Accepts.NOTHING, runRoutes::delete));
      config.routes.get("/api/runs/{id}/executions", api(Accepts.NOTHING, journalRoutes::executions));
      config.routes.get("/api/runs/{id}/events", api(Accepts.NOTHING, journalRoutes::events));
      config.routes.get("/api/runs/{id}/graph", api(Accepts.NOTHING, runRoutes::graph));
      config.routes.get("/api/runs/{id}/diff", api(Accepts.NOTHING, runRoutes::diff));
      config.routes.get("/api/runs/{id}/loops/{loop}/passes", api(Accepts.NOTHING, journalRoutes::passes));
      config.routes.get("/api/runs/{id}/loops/{loop}/passes/{pass}", api(Accepts.NOTHING, journalRoutes::pass));
      config.routes.get("/api/runs/{id}/steps", api(Accepts.NOTHING, executionSteps::steps));
      config.routes.post("/api/graph", api(Accepts.JSON, workflowRoutes::graph));
      config.routes.post("/api/runs/{id}/resume", api(Accepts.JSON, runRoutes::resume));
      config.routes.post("/api/runs/{id}/fork", api(Accepts.JSON, runRoutes::fork));
      config.routes.post("/api/runs/{id}/cancel", api(Accepts.JSON, runRoutes::cancel));
      config.routes.post("/api/runs/{id}/signal", api(Accepts.JSON, runRoutes::signal));

      for (String page : new String[] {"/", "/runs/{id}", "/builder", "/builder/{name}"}) {
        config.routes.get(page, this::page);
      }
      config.routes.get("/assets/<path>", this::asset);
    });
  }

  /**
   * An API route's handler: the token is checked first (whatever path or method reached the route), then the body's
   * type, and a stack overflow (input nested too deeply for a recursive reader) is turned into an exception the
   * error mapping answers, instead of an error that would end the request without a body.
   */
  private Handler api(Accepts accepts, Handler h) {
    return ctx -> {
      requireToken(ctx);
      checkContentType(ctx, accepts);
      try {
        h.handle(ctx);
      } catch (StackOverflowError e) {
        throw new IllegalStateException("stack overflow: the request is nested too deeply", e);
      }
    };
  }

  /** Binds and starts serving; throws {@link UncheckedIOException} when the address cannot be bound. */
  public void start() {
    try {
      app.start(settings.host(), settings.port());
    } catch (RuntimeException e) {
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof IOException)) {
        cause = cause.getCause();
      }
      String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
      throw new UncheckedIOException("cannot listen on " + settings.host() + ":" + settings.port() + ": " + why,
          cause instanceof IOException io ? io : new IOException(why, e));
    }
  }

  public int port() {
    return app.port();
  }

  /** Cancels the runs executing here (as a Ctrl-C would), ends every stream, then stops listening. */
  @Override
  public void close() {
    runs.close();
    stopping = true;
    app.stop();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Before every request

  private void securityHeaders(Context ctx) {
    ctx.header("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; "
        + "form-action 'self'");
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Referrer-Policy", "no-referrer");
    ctx.header("X-Frame-Options", "DENY");
  }

  /**
   * A server listening on loopback answers only requests addressed to a loopback name (see {@link HostCheck}): the
   * {@code Host} header and the host of an absolute request target must both be one. A server on another address
   * is reached under names this one cannot know, and needs its token for everything but the pages anyway.
   */
  private void checkHost(Context ctx) {
    if (!loopbackOnly) {
      return;
    }
    String host = ctx.req().getHeader("Host");
    if (!HostCheck.isLoopbackHost(host) || !HostCheck.isLoopbackName(ctx.req().getServerName())) {
      throw ApiError.of(ErrorTable.Kind.MISDIRECTED, "this server listens on loopback and answers only requests "
          + "for localhost, 127.0.0.1 or [::1], not for host '" + JsonBody.printable(host == null ? "" : host)
          + "'");
    }
  }

  /**
   * Every request needs the token except a GET (or HEAD) of a public page: API paths whether or not a route exists
   * for them, {@code /metrics}, and any path however spelt (a trailing or doubled slash, another case, percent
   * encoding, parameters) that is not exactly a page. Run counts, workflow names and costs are not for anyone who
   * can reach the port. A Prometheus server sends the token with {@code authorization: {credentials_file: ...}} in
   * its scrape configuration.
   */
  private void authenticate(Context ctx) {
    String method = ctx.method().name();
    if ((method.equals("GET") || method.equals("HEAD")) && PUBLIC_PAGES.matcher(ctx.path()).matches()) {
      return;
    }
    requireToken(ctx);
  }

  private void requireToken(Context ctx) {
    ctx.header("Cache-Control", "no-store");
    String refusal = auth.refusal(ctx.header("Authorization"));
    if (refusal != null) {
      ctx.header("WWW-Authenticate", "Bearer realm=\"loopflow\"");
      throw ApiError.of(ErrorTable.Kind.UNAUTHORIZED, refusal);
    }
  }

  /**
   * Refuses a body of a type the route does not take (415), so that a page on another site cannot post a form or
   * plain text to a route as a request a browser sends without asking first. A request without a body may omit the
   * type.
   */
  private static void checkContentType(Context ctx, Accepts accepts) {
    if (accepts == Accepts.NOTHING) {
      return;
    }
    String type = ctx.req().getContentType();
    if (type == null || type.isBlank()) {
      if (ctx.bodyAsBytes().length == 0) {
        return;
      }
      throw unsupported(accepts, "a body without a Content-Type");
    }
    String media = type.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    boolean ok = media.equals("application/json") || accepts == Accepts.JSON_OR_YAML && (media.equals(
        "application/yaml") || media.equals("application/x-yaml") || media.equals("text/yaml")
        || media.equals("text/x-yaml"));
    if (!ok) {
      throw unsupported(accepts, "Content-Type '" + JsonBody.printable(type) + "'");
    }
  }

  private static ApiError unsupported(Accepts accepts, String what) {
    return ApiError.withExtra(ErrorTable.of(ErrorTable.Kind.UNSUPPORTED_MEDIA_TYPE), "this route takes "
        + (accepts == Accepts.JSON ? "a JSON body (Content-Type: application/json)"
            : "a JSON body (Content-Type: application/json) or YAML (Content-Type: application/yaml)")
        + ", not " + what, Map.of("field", "Content-Type"));
  }

  /** The run metrics in the Prometheus text format; 404 when the server keeps none. */
  private void metrics(Context ctx) {
    if (!settings.observability().servesPrometheus()) {
      throw ApiError.of(ErrorTable.Kind.NOT_FOUND, "this server keeps no metrics");
    }
    ctx.status(200).contentType(Observability.PROMETHEUS_CONTENT_TYPE).result(settings.observability().prometheusText());
  }

  /** A body announced as larger than the limit is refused before a byte of it is read. */
  private void limitBody(Context ctx) {
    long length = ctx.req().getContentLengthLong();
    if (length > settings.maxBodyBytes()) {
      throw tooLarge();
    }
  }

  private ApiError tooLarge() {
    return ApiError.of(ErrorTable.Kind.PAYLOAD_TOO_LARGE, "the request body is larger than the limit of "
        + settings.maxBodyBytes() + " bytes");
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Pages

  private void page(Context ctx) {
    ctx.header("Cache-Control", "no-cache");
    ctx.status(200).contentType("text/html; charset=utf-8").result(ui.page());
  }

  private void asset(Context ctx) {
    String path = ctx.pathParam("path");
    byte[] bytes = ui.asset(path);
    if (bytes == null) {
      throw ApiError.of(ErrorTable.Kind.NOT_FOUND, "no such file: /assets/" + JsonBody.printable(path));
    }
    // Bundled assets carry a content hash in their names: a new build has new names.
    ctx.header("Cache-Control", "public, max-age=31536000, immutable");
    ctx.status(200).contentType(UiBundle.contentType(path)).result(bytes);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Responses

  /** Writes {@code value} as the JSON response with {@code status}. */
  static void json(Context ctx, int status, Object value) {
    ctx.status(status).contentType("application/json").result(json(value));
  }

  static String json(Object value) {
    try {
      return Json.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the response as JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static void error(Context ctx, ApiError e) {
    json(ctx, e.status(), e.body());
  }

  /** A status Javalin produced itself: no route, a method a route does not take, a body over the limit. */
  private ApiError fromJavalin(HttpResponseException e, Context ctx) {
    String where = ctx.method().name() + " " + JsonBody.printable(ctx.path());
    return switch (e.getStatus()) {
      case 404 -> ApiError.of(ErrorTable.Kind.NOT_FOUND, "no such route: " + where);
      case 405 -> {
        String allowed = e.getDetails().getOrDefault("availableMethods", e.getDetails().get("Available methods"));
        if (allowed != null) {
          ctx.header("Allow", allowed);
        }
        yield ApiError.of(ErrorTable.Kind.METHOD_NOT_ALLOWED, "method not allowed: " + where
            + (allowed == null ? "" : " (allowed: " + allowed + ")"));
      }
      case 413 -> tooLarge();
      default -> ApiError.withExtra(ErrorTable.ofStatus(e.getStatus()), e.getMessage(), null);
    };
  }

  private static String trace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return w.toString();
  }

  /** The version this module was built as. */
  static String version() {
    try (InputStream in = HttpApi.class.getResourceAsStream("/dev/loopflow/server/version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * A whole-number query parameter from {@code min} to {@code max}; {@code absent} when it is missing or blank. Anything
   * else (not a number, out of range, too large for a long) is {@code 400 bad_request} naming the field.
   */
  static int intParam(Context ctx, String name, int absent, int min, int max) {
    String v = ctx.queryParam(name);
    if (v == null || v.isBlank()) {
      return absent;
    }
    try {
      long n = Long.parseLong(v.strip());
      if (n >= min && n <= max) {
        return (int) n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw ApiError.badField(name, name + " must be a whole number from " + min + " to " + max + ", was '"
        + JsonBody.printable(v) + "'");
  }
}
