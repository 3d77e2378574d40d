package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.NodeFailedException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.Values;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code http}: one request. {@code body} may be a template or a mapping (sent as JSON). The result has
 * {@code status}, {@code headers} and {@code body} (parsed when the response is JSON); {@code output} is the
 * body. A status of 400 or more fails the node unless listed in {@code ok_status}. Request headers are never
 * copied into the result, so credentials do not reach the journal.
 */
final class HttpHandler implements NodeHandler {
  /**
   * Built on first use: creating an HttpClient initialises TLS (the default SSLContext and its trust store), about a
   * tenth of a second that every CLI command would otherwise pay whether or not its workflow has an http node.
   */
  private static final class Client {
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
      .followRedirects(HttpClient.Redirect.NORMAL).build();
  }
  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD");

  @Override
  public String kind() {
    return "http";
  }

  @Override
  public Set<String> fields() {
    return Set.of("url", "method", "headers", "body", "ok_status");
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    Template url = cfg.requiredTemplate("url");
    String method = cfg.has("method") ? cfg.string("method") : "GET";
    if (method != null && !METHODS.contains(method.toUpperCase(java.util.Locale.ROOT))) {
      cfg.error("method", "unknown HTTP method '" + method + "'; expected one of " + new java.util.TreeSet<>(METHODS));
      method = null;
    }
    Map<String, Template> headers = new LinkedHashMap<>();
    Map<String, Object> h = cfg.map("headers");
    if (h != null) {
      h.forEach((k, v) -> headers.put(k, cfg.template("headers", String.valueOf(v))));
    }
    Object rawBody = cfg.plain("body");
    Template body = rawBody instanceof String ? cfg.template("body") : null;
    Object jsonBody = rawBody instanceof String ? null : rawBody;
    java.util.List<Object> okStatus = cfg.list("ok_status");
    if (url == null || method == null) {
      return null;
    }
    String m = method.toUpperCase(java.util.Locale.ROOT);
    return ctx -> execute(ctx, url, m, headers, body, jsonBody, okStatus);
  }

  private static NodeOutcome execute(NodeContext ctx, Template url, String method, Map<String, Template> headers,
      Template body, Object jsonBody, java.util.List<Object> okStatus) throws Exception {
    HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(ctx.render(url)));
    Duration remaining = ctx.remaining();
    rb.timeout(remaining == null ? Duration.ofMinutes(5) : remaining.isNegative() ? Duration.ofMillis(1) : remaining);
    String payload = null;
    if (body != null) {
      payload = Values.text(ctx.evaluate(body));
    } else if (jsonBody != null) {
      payload = Json.compact(renderDeep(ctx, jsonBody));
      rb.header("Content-Type", "application/json");
    }
    for (Map.Entry<String, Template> e : headers.entrySet()) {
      rb.setHeader(e.getKey(), ctx.render(e.getValue()));
    }
    rb.method(method, payload == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString(payload));
    HttpResponse<String> resp = Client.CLIENT.send(rb.build(), HttpResponse.BodyHandlers.ofString());
    Object parsed = resp.body();
    String type = resp.headers().firstValue("content-type").orElse("");
    if (type.contains("json") && !resp.body().isBlank()) {
      try {
        parsed = Json.parse(resp.body());
      } catch (IllegalArgumentException keepText) {
        // not JSON after all
      }
    }
    Map<String, Object> respHeaders = new LinkedHashMap<>();
    resp.headers().map().forEach((k, v) -> respHeaders.put(k, v.size() == 1 ? v.get(0) : v));
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("status", resp.statusCode());
    fields.put("headers", respHeaders);
    fields.put("body", parsed);
    boolean ok = resp.statusCode() < 400 || okStatus != null && okStatus.stream()
        .anyMatch(s -> String.valueOf(s).equals(String.valueOf(resp.statusCode())));
    if (!ok) {
      fields.put("output", parsed);
      throw new NodeFailedException(method + " " + resp.uri() + " returned HTTP " + resp.statusCode(), fields);
    }
    return new NodeOutcome(parsed, fields, null, null);
  }

  private static Object renderDeep(NodeContext ctx, Object v) {
    if (v instanceof String s && (s.contains("{{") || s.contains("{%"))) {
      return ctx.evaluate(dev.loopflow.core.expr.Expressions.template(s));
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, val) -> out.put(String.valueOf(k), renderDeep(ctx, val)));
      return out;
    }
    if (v instanceof java.util.List<?> l) {
      return l.stream().map(x -> renderDeep(ctx, x)).toList();
    }
    return v;
  }
}
