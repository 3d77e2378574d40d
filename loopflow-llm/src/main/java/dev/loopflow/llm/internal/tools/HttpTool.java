package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.PrivateAddresses;
import dev.loopflow.llm.provider.ToolSpec;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code http}: a GET or POST the model asks for. The answer is the status, the content type and the body as text,
 * cut to {@code maxBytes}; the whole exchange must end within the timeout. Redirects are not followed: the model
 * gets the status and {@code location} and may ask for that URL, which is then checked like any other. When the
 * run forbids private addresses ({@code http.deny_private}), the host is resolved and every address must be
 * public (the rule of {@link dev.loopflow.core.spi.PrivateAddresses}).
 */
final class HttpTool implements Tool {
  static final String NAME = "http";

  private static final Map<String, Object> PARAMETERS = Params.object(Params.props(
      "url", Params.string("the http or https URL"),
      "method", Params.oneOf("GET (the default) or POST", List.of("GET", "POST")),
      "body", Params.string("the request body, for POST"),
      "headers", Map.of("type", "object", "additionalProperties", Map.of("type", "string"),
          "description", "request headers")),
      List.of("url"));
  private static final JsonSchemas.Compiled SCHEMA = Params.compile(PARAMETERS);
  private static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(30)).build();

  private final Duration timeout;
  private final int maxBytes;
  private final ToolSpec spec;

  HttpTool(Duration timeout, int maxBytes) {
    this.timeout = timeout;
    this.maxBytes = maxBytes;
    this.spec = new ToolSpec(NAME, "Sends an HTTP GET or POST request and returns the status, content type and body "
        + "(at most " + maxBytes + " bytes). Redirects are returned, not followed.", PARAMETERS);
  }

  @Override
  public ToolSpec spec() {
    return spec;
  }

  @Override
  public JsonSchemas.Compiled schema() {
    return SCHEMA;
  }

  @Override
  public Object call(NodeContext ctx, Map<String, Object> args) throws Exception {
    String method = args.get("method") instanceof String m ? m : "GET";
    URI uri = target((String) args.get("url"), denyPrivate(ctx));
    HttpRequest.Builder rb = HttpRequest.newBuilder(uri).timeout(timeout);
    try {
      if (args.get("headers") instanceof Map<?, ?> headers) {
        headers.forEach((k, v) -> rb.setHeader(String.valueOf(k), String.valueOf(v)));
      }
      String body = args.get("body") instanceof String b ? b : null;
      rb.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofString(body));
    } catch (IllegalArgumentException e) { // a header the JDK refuses to send (Host, Connection, ...)
      throw new ToolError(method + " " + uri + ": " + e.getMessage());
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    CompletableFuture<HttpResponse<InputStream>> sent = CLIENT.sendAsync(rb.build(),
        HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> response = await(sent, deadline, method, uri);
    CompletableFuture<byte[]> read = new CompletableFuture<>();
    Thread.ofVirtual().start(() -> {
      try (InputStream in = response.body()) {
        read.complete(in.readNBytes(maxBytes + 1));
      } catch (IOException e) {
        read.completeExceptionally(e);
      }
    });
    byte[] bytes;
    try {
      bytes = await(read, deadline, method, uri);
    } finally {
      response.body().close(); // stops a body that is still arriving
    }
    String type = response.headers().firstValue("content-type").orElse("");
    String text = new String(bytes, 0, Math.min(bytes.length, maxBytes), charset(type));
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("status", response.statusCode());
    result.put("content_type", type);
    response.headers().firstValue("location").ifPresent(l -> result.put("location", l));
    result.put("body", bytes.length > maxBytes ? text + "\n[cut: the body has more than " + maxBytes + " bytes]"
        : text);
    return result;
  }

  private static boolean denyPrivate(NodeContext ctx) {
    return ctx.option(RunOptions.HTTP_DENY_PRIVATE).map(v -> Boolean.TRUE.equals(v)
        || "true".equals(String.valueOf(v))).orElse(false);
  }

  /** The URL, when it is http(s) with a host and, if private addresses are forbidden, every address is public. */
  private static URI target(String url, boolean denyPrivate) throws ToolError {
    URI uri;
    try {
      uri = new URI(url.strip());
    } catch (URISyntaxException e) {
      throw new ToolError("'" + Toolbox.abbreviate(url, 200) + "' is not a valid URL: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ToolError("only http and https URLs are supported, not '" + Toolbox.abbreviate(url, 200) + "'");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new ToolError("the URL '" + Toolbox.abbreviate(url, 200) + "' has no host");
    }
    if (denyPrivate) {
      String host = uri.getHost();
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      InetAddress[] addresses;
      try {
        addresses = InetAddress.getAllByName(host);
      } catch (UnknownHostException e) {
        throw new ToolError("cannot resolve host '" + host + "'");
      }
      for (InetAddress a : addresses) {
        String why = PrivateAddresses.whyNotPublic(a);
        if (why != null) {
          throw new ToolError(uri + ": " + a.getHostAddress() + " is " + why
              + ", and this run forbids requests to private addresses");
        }
      }
    }
    return uri;
  }

  private <T> T await(CompletableFuture<T> f, long deadline, String method, URI uri) throws Exception {
    try {
      return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new ToolError(method + " " + uri + ": no complete response within " + Toolbox.human(timeout));
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw new ToolError(method + " " + uri + ": " + c.getClass().getSimpleName()
          + (c.getMessage() == null ? "" : ": " + c.getMessage()));
    }
  }

  private static Charset charset(String contentType) {
    int at = contentType.toLowerCase(Locale.ROOT).indexOf("charset=");
    if (at >= 0) {
      try {
        return Charset.forName(contentType.substring(at + 8).split("[;\\s]")[0].replace("\"", ""));
      } catch (IllegalArgumentException unknown) {
        // read as UTF-8, which replaces what it cannot decode
      }
    }
    return StandardCharsets.UTF_8;
  }
}
