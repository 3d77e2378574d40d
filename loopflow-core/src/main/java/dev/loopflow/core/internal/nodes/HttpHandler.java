package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * {@code http}: one request. {@code body} may be a template or a mapping (sent as JSON). The result has
 * {@code status} (the HTTP status code), {@code headers}, {@code body} (parsed when the response is JSON) and
 * {@code url} (where the response came from, after redirects); {@code output} is the body. A final status outside
 * 200..299 fails the node unless listed in {@code ok_status}. Request headers are never copied into the result, so
 * credentials do not reach the journal.
 */
final class HttpHandler implements NodeHandler {
  /** Response bodies are read up to this many bytes unless the node sets {@code max_response_bytes}. */
  static final int DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
  /** The largest {@code max_response_bytes}: the body is held in memory, as bytes and as text. */
  static final int MAX_RESPONSE_BYTES = 512 * 1024 * 1024;

  /**
   * Built on first use: creating an HttpClient initialises TLS (the default SSLContext and its trust store), about a
   * tenth of a second that every CLI command would otherwise pay whether or not its workflow has an http node.
   * Redirects are followed by HttpFetch, which checks every hop.
   */
  private static final class Client {
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
        .followRedirects(HttpClient.Redirect.NEVER).build();
  }

  private static final List<String> METHOD_LIST = List.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD");
  private static final Set<String> METHODS = Set.copyOf(METHOD_LIST);
  /** The methods as written: any case is accepted; the schema lists upper and lower case. */
  private static final List<String> METHOD_NAMES = Stream.concat(METHOD_LIST.stream(),
      METHOD_LIST.stream().map(m -> m.toLowerCase(Locale.ROOT))).toList();

  static final FieldSpec MAX_BYTES = FieldSpec.integer("max_response_bytes", 1, MAX_RESPONSE_BYTES, "The most bytes "
      + "of the response body read (default 10 MiB); a longer body fails the node.");
  static final FieldSpec STATUS = FieldSpec.integer("ok_status", 100, 599, null);
  static final NodeKindSpec SPEC = NodeKindSpec.of("http", "Sends one HTTP request; the result has status, headers "
      + "and body (parsed when it is JSON).", List.of(
      FieldSpec.template("url", "The URL (http or https).").asRequired(),
      FieldSpec.choice("method", METHOD_NAMES, "The method (default GET)."),
      FieldSpec.map("headers", ShellHandler.TEXT, "Request headers (values are templates)."),
      FieldSpec.any("body", "The request body: a template, or a mapping or list sent as JSON (its strings are "
          + "templates)."),
      FieldSpec.list("ok_status", STATUS, "Status codes besides 200..299 that count as success."),
      MAX_BYTES,
      FieldSpec.bool("follow_redirects", "Follow redirects (default true); every hop is checked like the first.")));

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  /** What a node asks for, compiled. {@code jsonBody} holds templates where the mapping had template strings. */
  private record Spec(UrlTemplate url, String method, Map<String, Template> headers, Template body, Object jsonBody,
      Set<Integer> okStatus, long maxBytes, boolean followRedirects) {}

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    Template urlTemplate = cfg.requiredTemplate("url");
    UrlTemplate url = null;
    if (urlTemplate != null) {
      try {
        url = UrlTemplate.of(urlTemplate.source(), source -> cfg.template("url", source));
      } catch (IllegalArgumentException e) {
        cfg.error("url", e.getMessage());
      }
    }
    String method = cfg.has("method") ? cfg.string("method") : "GET";
    if (method != null && !METHODS.contains(method.toUpperCase(Locale.ROOT))) {
      cfg.error("method", "unknown HTTP method '" + method + "'; expected one of " + new TreeSet<>(METHODS));
      method = null;
    }
    Map<String, Template> headers = new LinkedHashMap<>();
    Map<String, Object> h = cfg.map("headers");
    if (h != null) {
      h.forEach((k, v) -> headers.put(k, cfg.template("headers", String.valueOf(v))));
    }
    Object rawBody = cfg.plain("body");
    Template body = rawBody instanceof String ? cfg.template("body") : null;
    Object jsonBody = rawBody == null || rawBody instanceof String ? null : compileDeep(cfg, rawBody);
    Set<Integer> okStatus = okStatus(cfg);
    Integer max = cfg.has("max_response_bytes") ? cfg.integer(MAX_BYTES.name(), MAX_BYTES.minimumInt(),
        MAX_BYTES.maximumInt())
        : Integer.valueOf(DEFAULT_MAX_RESPONSE_BYTES);
    Boolean follow = cfg.has("follow_redirects") ? cfg.bool("follow_redirects") : Boolean.TRUE;
    if (url == null || method == null || okStatus == null || max == null || follow == null) {
      return null;
    }
    Spec spec = new Spec(url, method.toUpperCase(Locale.ROOT), headers, body, jsonBody, okStatus, max, follow);
    return ctx -> execute(ctx, spec);
  }

  /** {@code ok_status}: HTTP status codes (100..599) that count as success besides 200..299; null after an error. */
  private static Set<Integer> okStatus(NodeConfig cfg) {
    if (!cfg.has("ok_status")) {
      return Set.of();
    }
    List<Object> list = cfg.list("ok_status");
    if (list == null) {
      return null;
    }
    Set<Integer> out = new LinkedHashSet<>();
    for (Object o : list) {
      if (o instanceof Number n && n.doubleValue() == n.intValue() && n.intValue() >= STATUS.minimumInt()
          && n.intValue() <= STATUS.maximumInt()) {
        out.add(n.intValue());
      } else {
        cfg.error("ok_status", "'ok_status' must list HTTP status codes between 100 and 599, found "
            + (o instanceof String s ? "'" + s + "'" : String.valueOf(o)));
        return null;
      }
    }
    return out;
  }

  /** Template strings inside a JSON body are compiled at load time like every other template. */
  private static Object compileDeep(NodeConfig cfg, Object v) {
    if (v instanceof String s && (s.contains("{{") || s.contains("{%"))) {
      return cfg.template("body", s);
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, val) -> out.put(String.valueOf(k), compileDeep(cfg, val)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(compileDeep(cfg, x)));
      return out;
    }
    return v;
  }

  private static Object renderDeep(NodeContext ctx, Object v) {
    if (v instanceof Template t) {
      return ctx.evaluate(t);
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, val) -> out.put(String.valueOf(k), renderDeep(ctx, val)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(renderDeep(ctx, x)));
      return out;
    }
    return v;
  }

  private static NodeOutcome execute(NodeContext ctx, Spec spec) throws Exception {
    String rendered;
    try {
      rendered = spec.url().render(ctx::evaluate);
    } catch (IllegalArgumentException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "url: " + e.getMessage());
    }
    URI uri;
    try {
      uri = new URI(rendered);
    } catch (URISyntaxException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, "'" + rendered + "' is not a valid URL: " + e.getReason());
    }
    Map<String, String> headers = new LinkedHashMap<>();
    String payload = null;
    if (spec.body() != null) {
      payload = Values.text(ctx.evaluate(spec.body()));
    } else if (spec.jsonBody() != null) {
      payload = Json.compact(renderDeep(ctx, spec.jsonBody()));
      headers.put("Content-Type", "application/json");
    }
    for (Map.Entry<String, Template> e : spec.headers().entrySet()) {
      headers.put(e.getKey(), ctx.render(e.getValue()));
    }
    Duration remaining = ctx.remaining();
    Duration timeout = remaining == null ? Duration.ofMinutes(5) : remaining.isNegative() ? Duration.ofMillis(1)
        : remaining;
    boolean denyPrivate = ctx.option(RunOptions.HTTP_DENY_PRIVATE).map(v -> Boolean.TRUE.equals(v)
        || "true".equals(String.valueOf(v))).orElse(false);
    HttpFetch.Response resp = HttpFetch.fetch(Client.CLIENT, new HttpFetch.Request(spec.method(), uri, headers,
        payload), spec.maxBytes(), spec.followRedirects(), denyPrivate ? HttpFetch.SYSTEM : null, timeout);

    Object parsed = decode(resp);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("status", resp.status());
    fields.put("headers", HttpFetch.headerMap(resp.headers()));
    fields.put("body", parsed);
    fields.put("url", resp.uri().toString());
    int status = resp.status();
    if (status / 100 != 2 && !spec.okStatus().contains(status)) {
      String why = HttpFetch.isRedirect(status) ? " (a redirect, not followed: follow_redirects is false)" : "";
      fields.put("output", parsed);
      throw new NodeFailedException(spec.method() + " " + resp.uri() + " returned HTTP " + status + why, fields);
    }
    return new NodeOutcome(parsed, fields, null, null);
  }

  /** The body as text in its declared charset (UTF-8 by default), parsed when the response says it is JSON. */
  private static Object decode(HttpFetch.Response resp) {
    String type = resp.headers().firstValue("content-type").orElse("").toLowerCase(Locale.ROOT);
    Charset charset = StandardCharsets.UTF_8;
    int at = type.indexOf("charset=");
    if (at >= 0) {
      String name = type.substring(at + 8).split("[;\\s]")[0].replace("\"", "");
      try {
        charset = Charset.forName(name);
      } catch (IllegalArgumentException unknown) {
        // an unknown charset: read as UTF-8, which replaces what it cannot decode
      }
    }
    String text = new String(resp.body(), charset);
    if (type.contains("json") && !text.isBlank()) {
      try {
        return Json.parse(text);
      } catch (IllegalArgumentException keepText) {
        // not JSON after all
      }
    }
    return text;
  }
}
