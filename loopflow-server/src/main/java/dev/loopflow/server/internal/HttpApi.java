package dev.loopflow.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.LoopflowException;
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
import java.util.Map;
import java.util.Properties;

/**
 * The HTTP side of one server: Javalin configured once (no compression, so streamed events are never held back;
 * request bodies up to the configured limit; handlers on virtual threads), the security headers, the token check of
 * {@code /api}, the route table, the pages of the web UI, and the one mapping of every failure to a JSON error body.
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
  private volatile boolean stopping;

  public HttpApi(Settings settings) {
    this.settings = settings;
    this.engine = Loopflow.builder().store(settings.store()).build();
    this.auth = new Auth(settings.token());
    this.ui = new UiBundle(settings.uiResources());
    try {
      Files.createDirectories(settings.workflowsDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the workflows directory " + settings.workflowsDir() + ": "
          + e.getMessage(), e);
    }
    WorkflowFiles workflows = new WorkflowFiles(settings.workflowsDir());
    Map<String, String> env = new java.util.LinkedHashMap<>(System.getenv());
    env.putAll(settings.environment());
    SseFrames frames = new SseFrames(Redactor.ofEnvironment(env));
    this.runs = new LocalRuns(engine, settings.environment(), settings.runOptions(), settings.queueCapacity(),
        frames, settings.observability(), settings.dispatch());
    WorkflowRoutes workflowRoutes = new WorkflowRoutes(engine, workflows);
    CatalogRoutes catalogRoutes = new CatalogRoutes(engine);
    RunRoutes runRoutes = new RunRoutes(engine, workflows, runs, frames, Redactor.ofEnvironment(env),
        settings.heartbeat(), () -> stopping, settings.log());
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
      config.routes.before(this::authenticate);
      config.routes.before(this::limitBody);

      config.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e));
      config.routes.exception(LoopflowException.class, (e, ctx) -> error(ctx, ApiError.of(e)));
      config.routes.exception(HttpResponseException.class, (e, ctx) -> error(ctx, fromJavalin(e, ctx)));
      config.routes.exception(Exception.class, (e, ctx) -> {
        settings.log().accept("loopflow server: internal error on " + ctx.method() + " " + ctx.path() + ": "
            + trace(e));
        error(ctx, ApiError.of(ErrorTable.Kind.INTERNAL, "internal error: " + ApiError.oneLine(
            e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())));
      });

      Map<String, Object> health = new java.util.LinkedHashMap<>();
      health.put("status", "ok");
      health.put("version", version);
      config.routes.get("/api/health", ctx -> json(ctx, 200, health));
      config.routes.get(METRICS, this::metrics);
      config.routes.post("/api/validate", guard(workflowRoutes::validate));
      config.routes.get("/api/schema", guard(workflowRoutes::schema));
      config.routes.get("/api/node-kinds", guard(catalogRoutes::nodeKinds));
      config.routes.get("/api/templates", guard(catalogRoutes::templates));
      config.routes.get("/api/templates/{id}", guard(catalogRoutes::template));
      config.routes.get("/api/workflows", guard(workflowRoutes::list));
      config.routes.get("/api/workflows/{name}", guard(workflowRoutes::get));
      config.routes.put("/api/workflows/{name}", guard(workflowRoutes::put));
      config.routes.get("/api/runs", guard(runRoutes::list));
      config.routes.post("/api/runs", guard(runRoutes::start));
      config.routes.get("/api/runs/{id}", guard(runRoutes::show));
      config.routes.get("/api/runs/{id}/executions", guard(runRoutes::executions));
      config.routes.get("/api/runs/{id}/events", guard(runRoutes::events));
      config.routes.get("/api/runs/{id}/graph", guard(runRoutes::graph));
      config.routes.post("/api/graph", guard(workflowRoutes::graph));
      config.routes.post("/api/runs/{id}/resume", guard(runRoutes::resume));
      config.routes.post("/api/runs/{id}/cancel", guard(runRoutes::cancel));
      config.routes.post("/api/runs/{id}/signal", guard(runRoutes::signal));

      for (String page : new String[] {"/", "/runs/{id}", "/builder", "/builder/{name}"}) {
        config.routes.get(page, this::page);
      }
      config.routes.get("/assets/<path>", this::asset);
    });
  }

  /**
   * A route's handler, with a stack overflow (input nested too deeply for a recursive reader) turned into an
   * exception the error mapping answers, instead of an error that would end the request without a body.
   */
  private static Handler guard(Handler h) {
    return ctx -> {
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
   * Every {@code /api} path needs the token, whether or not a route exists for it, and so does {@code /metrics}:
   * run counts, workflow names and costs are not for anyone who can reach the port. A Prometheus server sends it
   * with {@code authorization: {credentials_file: ...}} in its scrape configuration.
   */
  private void authenticate(Context ctx) {
    if (!ctx.path().startsWith("/api") && !ctx.path().equals(METRICS)) {
      return;
    }
    ctx.header("Cache-Control", "no-store");
    String refusal = auth.refusal(ctx.header("Authorization"));
    if (refusal != null) {
      ctx.header("WWW-Authenticate", "Bearer realm=\"loopflow\"");
      throw ApiError.of(ErrorTable.Kind.UNAUTHORIZED, refusal);
    }
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
}
