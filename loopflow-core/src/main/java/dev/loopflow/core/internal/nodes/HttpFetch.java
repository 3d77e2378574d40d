package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodeFailedException;
import dev.loopflow.core.spi.PrivateAddresses;
import dev.loopflow.core.time.Durations;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/*
 * Design notes.
 *
 * One http node request. Redirects are followed here, not by HttpClient, because every hop must pass the same
 * checks as the first request: the private-address policy (after DNS resolution), the scheme, and loop detection.
 * HttpClient's own policy returns the last 3xx as if it were an answer when it gives up, which the node would
 * have reported as success.
 *
 * The body is read through a subscriber that keeps at most maxBytes and cancels the exchange past that, so a huge
 * or endless response costs at most maxBytes of memory; a Content-Length over the limit fails before any byte is
 * read. The whole exchange, redirects and body included, must finish before the deadline.
 *
 * The address check resolves the host and refuses the request when any address is private. HttpClient resolves
 * the name again when it connects; the JVM's address cache (30 seconds by default) makes that the same answer, so
 * a DNS server that answers differently the second time (DNS rebinding) is not a practical way around the check.
 */
final class HttpFetch {
  /** Redirects followed at most, per request. */
  static final int MAX_REDIRECTS = 10;

  /** The parts of a request that a redirect may change. */
  record Request(String method, URI uri, Map<String, String> headers, String payload) {}

  /** Resolves a host name to its addresses, as the address check sees them. */
  interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** The resolver the private-address check uses outside tests: the JVM's, whose cache HttpClient shares. */
  static final Resolver SYSTEM = InetAddress::getAllByName;

  /** The final response; {@code uri} is where it came from after redirects. */
  record Response(int status, URI uri, HttpHeaders headers, byte[] body) {}

  private HttpFetch() {}

  /**
   * Sends the request and follows redirects. {@code denyPrivate}: when not null, every hop's host is resolved with
   * it and the request refused when an address is not public.
   */
  static Response fetch(HttpClient client, Request first, long maxBytes, boolean followRedirects,
      Resolver denyPrivate, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Request req = first;
    List<URI> chain = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int hop = 0; ; hop++) {
      checkTarget(req, chain, denyPrivate);
      chain.add(req.uri());
      seen.add(req.method() + " " + req.uri());
      HttpResponse<byte[]> resp = exchange(client, req, maxBytes, followRedirects, deadline, timeout);
      int status = resp.statusCode();
      if (!followRedirects || !isRedirect(status)) {
        return new Response(status, req.uri(), resp.headers(), resp.body());
      }
      String where = req.method() + " " + req.uri();
      String location = resp.headers().firstValue("location").orElse(null);
      if (location == null || location.isBlank()) {
        throw new NodeFailedException(where + " returned HTTP " + status + " without a Location header, so the "
            + "redirect cannot be followed", partial(status, resp.headers()));
      }
      URI next;
      try {
        next = req.uri().resolve(location.strip());
      } catch (IllegalArgumentException e) {
        throw new NodeFailedException(where + " returned HTTP " + status + " with Location '" + location
            + "', which is not a valid URL", partial(status, resp.headers()));
      }
      if ("https".equalsIgnoreCase(req.uri().getScheme()) && "http".equalsIgnoreCase(next.getScheme())) {
        throw new NodeFailedException(where + " redirects to " + next + "; redirects from https to http are not "
            + "followed", partial(status, resp.headers()));
      }
      req = redirected(req, next, status);
      if (seen.contains(req.method() + " " + req.uri())) {
        throw new NodeFailedException("redirect loop: " + path(chain, next), partial(status, resp.headers()));
      }
      if (hop + 1 > MAX_REDIRECTS) {
        throw new NodeFailedException("more than " + MAX_REDIRECTS + " redirects: " + path(chain, next),
            partial(status, resp.headers()));
      }
    }
  }

  static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  /**
   * The request a redirect asks for: 303, and 301/302 after a POST, become a GET without a body (what browsers
   * do); 307 and 308 repeat the method and body. Credentials are not sent to another origin.
   */
  private static Request redirected(Request req, URI next, int status) {
    boolean toGet = status == 303 && !req.method().equals("HEAD")
        || (status == 301 || status == 302) && req.method().equals("POST");
    Map<String, String> headers = new LinkedHashMap<>(req.headers());
    if (!sameOrigin(req.uri(), next)) {
      headers.keySet().removeIf(h -> {
        String l = h.toLowerCase(Locale.ROOT);
        return l.equals("authorization") || l.equals("cookie") || l.equals("proxy-authorization");
      });
    }
    if (toGet) {
      headers.keySet().removeIf(h -> h.equalsIgnoreCase("content-type"));
    }
    return new Request(toGet ? "GET" : req.method(), next, headers, toGet ? null : req.payload());
  }

  private static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost() != null
        && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
  }

  private static int port(URI u) {
    return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
  }

  private static String path(List<URI> chain, URI next) {
    StringBuilder sb = new StringBuilder();
    for (URI u : chain) {
      sb.append(u).append(" -> ");
    }
    return sb.append(next).toString();
  }

  /** The URL must be http(s) with a host; with private addresses forbidden, every address of the host public. */
  private static void checkTarget(Request req, List<URI> chain, Resolver denyPrivate) {
    URI u = req.uri();
    String what = chain.isEmpty() ? req.method() + " " + u : "redirect from " + chain.get(chain.size() - 1) + " to "
        + u;
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, what + ": only http and https URLs are supported");
    }
    if (u.getHost() == null || u.getHost().isEmpty()) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, what + ": the URL has no host");
    }
    if (denyPrivate == null) {
      return;
    }
    String host = u.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    InetAddress[] addresses;
    try {
      addresses = denyPrivate.resolve(host);
    } catch (UnknownHostException e) {
      throw new LoopflowException(ErrorCode.NODE_FAILED, what + ": cannot resolve host '" + host + "'");
    }
    for (InetAddress a : addresses) {
      String why = PrivateAddresses.whyNotPublic(a);
      if (why != null) {
        throw new LoopflowException(ErrorCode.NODE_FAILED, what + ": " + a.getHostAddress() + " is " + why
            + ", and this run forbids requests to private addresses");
      }
    }
  }

  private static HttpResponse<byte[]> exchange(HttpClient client, Request req, long maxBytes, boolean follow,
      long deadline, Duration timeout) throws InterruptedException {
    Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    String where = req.method() + " " + req.uri();
    HttpRequest request;
    try {
      HttpRequest.Builder rb = HttpRequest.newBuilder(req.uri()).timeout(left);
      req.headers().forEach(rb::setHeader);
      rb.method(req.method(), req.payload() == null ? HttpRequest.BodyPublishers.noBody()
          : HttpRequest.BodyPublishers.ofString(req.payload()));
      request = rb.build();
    } catch (IllegalArgumentException e) { // a URL or header HttpClient does not accept (a restricted header name)
      throw new LoopflowException(ErrorCode.NODE_FAILED, where + ": " + e.getMessage());
    }
    HttpResponse.BodyHandler<byte[]> handler = info -> {
      if (follow && isRedirect(info.statusCode())) {
        return new CappedBody(0, true, info); // a redirect's body is never read
      }
      long declared = declaredLength(info.headers());
      if (declared > maxBytes) {
        return CappedBody.failing(new TooLarge(info.statusCode(), info.headers(), declared), info);
      }
      return new CappedBody(maxBytes, false, info);
    };
    CompletableFuture<HttpResponse<byte[]>> f = client.sendAsync(request, handler);
    try {
      return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new LoopflowException(ErrorCode.NODE_FAILED, where + ": no complete response within "
          + Durations.format(timeout));
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException && cause.getCause() instanceof TooLarge t) {
        cause = t;
      }
      if (cause instanceof TooLarge t) {
        throw new NodeFailedException(where + " returned a body larger than max_response_bytes (" + maxBytes
            + " bytes" + (t.declared >= 0 ? "; Content-Length: " + t.declared : "") + "); the rest was not read",
            partial(t.status, t.headers));
      }
      String msg = cause.getMessage();
      throw new LoopflowException(ErrorCode.NODE_FAILED, where + ": " + cause.getClass().getSimpleName()
          + (msg == null || msg.isBlank() ? "" : ": " + msg), null, cause);
    }
  }

  /** The Content-Length the response declares, or -1 when it declares none (or nonsense). */
  private static long declaredLength(HttpHeaders headers) {
    try {
      return headers.firstValueAsLong("content-length").orElse(-1);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** What a failed request still tells: the status and the response headers. */
  static Map<String, Object> partial(int status, HttpHeaders headers) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", status);
    m.put("headers", headerMap(headers));
    return m;
  }

  static Map<String, Object> headerMap(HttpHeaders headers) {
    Map<String, Object> out = new LinkedHashMap<>();
    headers.map().forEach((k, v) -> out.put(k, v.size() == 1 ? v.get(0) : List.copyOf(v)));
    return out;
  }

  /** The body is over the limit. */
  private static final class TooLarge extends IOException {
    final transient int status;
    final transient HttpHeaders headers;
    final long declared;

    TooLarge(int status, HttpHeaders headers, long declared) {
      super("response body over the limit");
      this.status = status;
      this.headers = headers;
      this.declared = declared;
    }
  }

  /** Keeps at most {@code max} bytes; past that it cancels the exchange and fails. */
  private static final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    private final long max;
    private final boolean discard;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private final HttpResponse.ResponseInfo info;
    private Flow.Subscription subscription;
    private TooLarge failure;

    CappedBody(long max, boolean discard, HttpResponse.ResponseInfo info) {
      this.max = max;
      this.discard = discard;
      this.info = info;
    }

    static HttpResponse.BodySubscriber<byte[]> failing(TooLarge t, HttpResponse.ResponseInfo info) {
      CappedBody b = new CappedBody(0, false, info);
      b.failure = t;
      return b;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (failure != null) {
        s.cancel();
        result.completeExceptionally(failure);
      } else if (discard) {
        s.cancel();
        result.complete(new byte[0]);
      } else {
        s.request(Long.MAX_VALUE);
      }
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) {
        return;
      }
      for (ByteBuffer b : items) {
        if (buffer.size() + (long) b.remaining() > max) {
          subscription.cancel();
          result.completeExceptionally(new TooLarge(info.statusCode(), info.headers(), -1));
          return;
        }
        byte[] chunk = new byte[b.remaining()];
        b.get(chunk);
        buffer.writeBytes(chunk);
      }
    }

    @Override
    public void onError(Throwable t) {
      result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      result.complete(buffer.toByteArray());
    }
  }
}
