package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The token check of /api, the security headers, and every failure as a JSON error body with its status. */
class AuthAndErrorsTest {
  @TempDir static Path tmp;
  static ServerHarness h;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp, b -> b.maxBodyBytes(4096));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static Stream<String> apiRoutes() {
    return Stream.of("/api/health", "/api/runs", "/api/workflows", "/api/runs/run_x", "/api/runs/run_x/events",
        "/api/no-such-route", "/api", "/api/");
  }

  @ParameterizedTest
  @MethodSource("apiRoutes")
  void everyApiPathNeedsTheToken(String path) {
    ServerHarness.Response r = h.send(HttpRequest.newBuilder(h.uri(path)).GET().build());
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.code()).isEqualTo("unauthorized");
    assertThat(r.json().path("error").path("message").asText()).contains("Authorization: Bearer");
    assertThat(r.header("WWW-Authenticate")).startsWith("Bearer");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Bearer wrong", "Bearer " + ServerHarness.TOKEN + "x", "Bearer " + "test-token-3f9a1",
      "Basic " + ServerHarness.TOKEN, "Token " + ServerHarness.TOKEN, ServerHarness.TOKEN, "Bearer", "Bearer ",
      "Bearer  ", "BearerX " + ServerHarness.TOKEN, "Bearer " + ServerHarness.TOKEN + " extra", "Bearer \t"})
  void aWrongTokenOrSchemeIsRefused(String authorization) {
    ServerHarness.Response r = h.send(HttpRequest.newBuilder(h.uri("/api/health"))
        .header("Authorization", authorization).GET().build());
    assertThat(r.status()).as(authorization).isEqualTo(401);
    assertThat(r.code()).isEqualTo("unauthorized");
  }

  @ParameterizedTest
  @ValueSource(strings = {"?token=", "?access_token=", "?auth=", "?bearer="})
  void aTokenInTheQueryStringIsNotAccepted(String query) {
    ServerHarness.Response r = h.send(HttpRequest.newBuilder(h.uri("/api/health" + query + ServerHarness.TOKEN))
        .GET().build());
    assertThat(r.status()).isEqualTo(401);
  }

  @Test
  void theSchemeIsCaseInsensitiveAndTheTokenIsNot() {
    assertThat(h.send(HttpRequest.newBuilder(h.uri("/api/health")).header("Authorization", "bearer "
        + ServerHarness.TOKEN).build()).status()).isEqualTo(200);
    assertThat(h.send(HttpRequest.newBuilder(h.uri("/api/health")).header("Authorization", "Bearer "
        + ServerHarness.TOKEN.toUpperCase()).build()).status()).isEqualTo(401);
  }

  @Test
  void aTokenDifferingOnlyInCaseIsRefusedOnAKeptAliveConnection_bugJettyHeaderCacheIgnoresCase() throws IOException {
    String twoRequests = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ServerHarness.TOKEN
        + "\r\n\r\nGET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + ServerHarness.TOKEN.toUpperCase() + "\r\nConnection: close\r\n\r\n";
    String raw = rawRequest(twoRequests);
    assertThat(raw).startsWith("HTTP/1.1 200");
    assertThat(raw.substring(raw.indexOf("HTTP/1.1", 10))).startsWith("HTTP/1.1 401");
  }

  @Test
  void healthSaysOkAndTheVersion() {
    ServerHarness.Response r = h.get("/api/health");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    assertThat(r.json().path("status").asText()).isEqualTo("ok");
    assertThat(r.json().path("version").asText()).isNotBlank().doesNotContain("${");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/api/health", "/", "/runs/abc", "/builder", "/api/nope"})
  void everyResponseCarriesTheSecurityHeaders(String path) {
    ServerHarness.Response r = h.get(path);
    assertThat(r.header("Content-Security-Policy")).contains("default-src 'self'").contains("frame-ancestors 'none'");
    assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(r.header("Referrer-Policy")).isEqualTo("no-referrer");
    assertThat(r.header("Server")).isNull();
  }

  @Test
  void anUnknownApiRouteIsNotFoundInJson() {
    ServerHarness.Response r = h.get("/api/runs/x/nothing/here");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("not_found");
  }

  @Test
  void aMethodARouteDoesNotTakeIs405WithAllow() {
    ServerHarness.Response r = h.send(h.request("/api/health").DELETE().build());
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.code()).isEqualTo("method_not_allowed");
    assertThat(r.header("Allow")).contains("GET");
    assertThat(h.send(h.request("/api/runs").DELETE().build()).status()).isEqualTo(405);
  }

  static Stream<String[]> malformedBodies() {
    return Stream.of(
        new String[] {"", null},
        new String[] {"   ", null},
        new String[] {"{", null},
        new String[] {"[]", null},
        new String[] {"\"source\"", null},
        new String[] {"null", null},
        new String[] {"{\"source\": 1}", "source"},
        new String[] {"{\"source\": [\"a\"]}", "source"},
        new String[] {"{\"source\": {}}", "source"},
        new String[] {"{\"source\": \"a\", \"source\": \"b\"}", null},
        new String[] {"{\"source\": \"a\"} {}", null},
        new String[] {"{\"source\": \"a\", \"sourse\": \"b\"}", "sourse"},
        new String[] {"{\"inputs\": 3, \"source\": \"x\"}", null},
        new String[] {"\u0000", null},
        new String[] {"{'source': 'a'}", null},
        new String[] {"[".repeat(2000) + "]".repeat(2000), null},
        new String[] {"{\"source\": " + "[".repeat(1500) + "]".repeat(1500) + "}", null});
  }

  @ParameterizedTest
  @MethodSource("malformedBodies")
  void aMalformedBodyIsABadRequestNamingTheField(String body, String field) {
    ServerHarness.Response r = h.post("/api/validate", body);
    assertThat(r.status()).as(body).isEqualTo(400);
    assertThat(r.code()).isEqualTo("bad_request");
    if (field != null) {
      assertThat(r.json().path("error").path("field").asText()).isEqualTo(field);
      assertThat(r.json().path("error").path("message").asText()).contains(field);
    }
    assertThat(r.body()).doesNotContain("at dev.loopflow").doesNotContain("Exception");
  }

  @Test
  void wrongFieldTypesOfARunAreNamed() {
    ServerHarness.Response r = h.post("/api/runs", "{\"source\": \"name: x\", \"inputs\": [1]}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().path("error").path("field").asText()).isEqualTo("inputs");
    r = h.post("/api/runs", "{\"source\": \"name: x\", \"run_id\": 7}");
    assertThat(r.json().path("error").path("field").asText()).isEqualTo("run_id");
  }

  @Test
  void aBodyOverTheLimitIs413AndNothingIsWritten() throws IOException {
    String big = "name: big\nnodes:\n  - {id: a, type: transform, template: \"" + "x".repeat(5000) + "\"}\n";
    ServerHarness.Response r = h.put("/api/workflows/big", ServerHarness.map("source", big));
    assertThat(r.status()).isEqualTo(413);
    assertThat(r.code()).isEqualTo("payload_too_large");
    assertThat(h.workflows.resolve("big.yaml")).doesNotExist();
    r = h.post("/api/runs", ServerHarness.map("source", big));
    assertThat(r.status()).isEqualTo(413);
    assertThat(h.get("/api/runs").json()).isEmpty();
  }

  @Test
  void aChunkedBodyOverTheLimitIs413() throws IOException {
    // No Content-Length: the limit is applied while the body is read.
    byte[] body = ("{\"source\": \"" + "y".repeat(6000) + "\"}").getBytes(StandardCharsets.UTF_8);
    ServerHarness.Response r = h.send(h.request("/api/validate").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))).build());
    assertThat(r.status()).isEqualTo(413);
    assertThat(r.code()).isEqualTo("payload_too_large");
  }

  @Test
  void aRequestJettyRefusesStillGetsAJsonError() throws IOException {
    String raw = rawRequest("GET /api/workflows/a%00b HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
        + ServerHarness.TOKEN + "\r\nConnection: close\r\n\r\n");
    assertThat(raw).startsWith("HTTP/1.1 400");
    assertThat(raw).contains("\"code\":\"bad_request\"").contains("application/json");
  }

  @Test
  void everyEngineErrorCodeHasAStatus() {
    for (ErrorCode c : ErrorCode.values()) {
      assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(c)).as(c.code()).isBetween(400, 599);
    }
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.RESTART_COOLDOWN_NOT_ELAPSED))
        .isEqualTo(429);
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.STAGE_NOT_RESTARTABLE)).isEqualTo(403);
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.REQUESTER_NOT_AUTHORIZED))
        .isEqualTo(403);
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.RESTART_VALIDATION_FAILED))
        .isEqualTo(400);
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.MAX_ITERATIONS_EXCEEDED))
        .isEqualTo(500);
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.VALIDATION_RETRY_EXHAUSTED))
        .isEqualTo(500);
    assertThat(dev.loopflow.server.internal.ErrorTableAccess.status(ErrorCode.SHARED_MEMORY_KEY_NOT_FOUND))
        .isEqualTo(404);
  }

  @Test
  void pagesNeedNoTokenAndAnswerTheBundledApp() {
    for (String page : List.of("/", "/runs/run_1", "/builder", "/builder/review")) {
      ServerHarness.Response r = h.send(HttpRequest.newBuilder(h.uri(page)).GET().build());
      assertThat(r.status()).as(page).isEqualTo(200);
      assertThat(r.header("Content-Type")).startsWith("text/html");
      assertThat(r.header("Cache-Control")).isEqualTo("no-cache");
      // the loopflow-ui module is a dependency: its index.html, which loads the bundle from /assets
      assertThat(r.body()).as(page).contains("<div id=\"root\"></div>").contains("/assets/");
    }
  }

  @Test
  void theAppsAssetsAreServedWithTheirTypesAndNoToken() {
    String index = h.send(HttpRequest.newBuilder(h.uri("/")).GET().build()).body();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("/assets/[A-Za-z0-9_.-]+\\.(js|css)").matcher(index);
    int found = 0;
    while (m.find()) {
      found++;
      ServerHarness.Response r = h.send(HttpRequest.newBuilder(h.uri(m.group())).GET().build());
      assertThat(r.status()).as(m.group()).isEqualTo(200);
      assertThat(r.header("Content-Type")).startsWith(m.group(1).equals("js") ? "text/javascript" : "text/css");
      assertThat(r.body()).isNotEmpty();
    }
    assertThat(found).as("scripts and styles the page loads").isGreaterThanOrEqualTo(2);
    assertThat(h.send(HttpRequest.newBuilder(h.uri("/assets/nosuch.js")).GET().build()).status()).isEqualTo(404);
  }

  @Test
  void noStackTraceLeaksIntoABody() throws IOException {
    Files.createDirectories(h.workflows);
    ServerHarness.Response r = h.post("/api/validate", ServerHarness.map("source", "a: [".repeat(900)));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("valid").asBoolean()).isFalse();
    assertThat(r.body()).doesNotContain("at dev.").doesNotContain("Exception");
  }

  @Test
  void anUnexpectedFailureIs500WithOneLineAndItsTraceGoesToTheLog() {
    RunStore real = RunStore.inMemory();
    RunStore failing = (RunStore) java.lang.reflect.Proxy.newProxyInstance(RunStore.class.getClassLoader(),
        new Class<?>[] {RunStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("listRuns")) {
            throw new IllegalStateException("the disk is on fire\nat line two");
          }
          if (method.getName().equals("findRun")) {
            throw new dev.loopflow.core.error.LoopflowException(ErrorCode.STORE_UNAVAILABLE, "the database refuses "
                + "connections");
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (LoopflowServer s = LoopflowServer.builder().store(failing).workflowsDir(tmp.resolve("w2"))
        .token(ServerHarness.TOKEN).port(0).log(log::add).build().start()) {
      java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
      ServerHarness.Response r = new ServerHarness.Response(client.send(HttpRequest.newBuilder(java.net.URI.create(
          s.url() + "api/runs")).header("Authorization", "Bearer " + ServerHarness.TOKEN).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()));
      assertThat(r.status()).isEqualTo(500);
      assertThat(r.code()).isEqualTo("internal");
      assertThat(r.json().path("error").path("message").asText()).isEqualTo("internal error: the disk is on fire");
      assertThat(r.body()).doesNotContain("at line two").doesNotContain("IllegalStateException")
          .doesNotContain("at dev.");
      assertThat(log).singleElement().asString().contains("GET /api/runs").contains("IllegalStateException")
          .contains("at dev.loopflow");
      r = new ServerHarness.Response(client.send(HttpRequest.newBuilder(java.net.URI.create(s.url()
          + "api/runs/x")).header("Authorization", "Bearer " + ServerHarness.TOKEN).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()));
      assertThat(r.status()).isEqualTo(503);
      assertThat(r.code()).isEqualTo("store_unavailable");
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private String rawRequest(String request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", h.server.port())) {
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
