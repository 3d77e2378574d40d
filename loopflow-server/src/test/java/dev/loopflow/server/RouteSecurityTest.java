package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The token by route, however a path is spelt; the host check of a loopback server (DNS rebinding); the body types
 * a route takes. Requests are written on raw sockets, so the paths and headers reach the server exactly as given.
 */
class RouteSecurityTest {
  @TempDir static Path tmp;
  static ServerHarness h;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** A raw HTTP/1.1 exchange: status, and everything after the status line. */
  record Raw(int status, String text) {
    String body() {
      int i = text.indexOf("\r\n\r\n");
      return i < 0 ? "" : text.substring(i + 4);
    }
  }

  static Raw raw(int port, String method, String target, String host, String... headers) throws IOException {
    StringBuilder req = new StringBuilder(method + " " + target + " HTTP/1.1\r\n");
    if (host != null) {
      req.append("Host: ").append(host).append("\r\n");
    }
    for (String hd : headers) {
      req.append(hd).append("\r\n");
    }
    req.append("Connection: close\r\n\r\n");
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(60_000);
      OutputStream out = s.getOutputStream();
      out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(text).as(method + " " + target).startsWith("HTTP/1.1 ");
      return new Raw(Integer.parseInt(text.substring(9, 12)), text);
    }
  }

  static Raw raw(String method, String target, String... headers) throws IOException {
    return raw(h.server.port(), method, target, "127.0.0.1:" + h.server.port(), headers);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The token, by route

  /** Spellings of protected paths: each reaches a protected route, a route-less path, or is refused outright. */
  static Stream<String> protectedSpellings() {
    return Stream.of("/metrics", "/metrics/", "//metrics", "///metrics", "/metrics//", "/METRICS", "/Metrics/",
        "/%6detrics", "/%6Detrics/", "/metrics;x=y", "/metrics;", "/metrics/;jsessionid=1", "/api/../metrics",
        "/api/%2e%2e/metrics", "/./metrics", "/metrics/.", "/metrics?x=1", "/metrics#x", "/api/health",
        "/api/health/", "/api//health", "//api/health", "/API/health", "/api/HEALTH", "/api/health;a=b",
        "/%61pi/health", "/api/%68ealth", "/api/runs/", "/api/workflows/", "/api/workflows//", "/api;x/runs",
        "/assets/../api/runs", "/assets/..%2fapi/runs", "/builder/../metrics", "/runs/../metrics",
        "/runs/x/../../metrics", "/api/runs/%2e%2e", "/api", "/api/", "/nothing-here", "/favicon.ico",
        "/metrics.txt", "/api/schema/", "/api/node-kinds/", "/api/templates/", "/api/runs/x/events/");
  }

  static Stream<Arguments> protectedRequests() {
    List<Arguments> out = new ArrayList<>();
    protectedSpellings().forEach(p -> {
      for (String m : new String[] {"GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"}) {
        out.add(Arguments.of(m, p));
      }
    });
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("protectedRequests")
  void noSpellingOfAProtectedPathAnswersWithoutTheToken_bugMetricsTrailingSlashWasPublic(String method, String path)
      throws IOException {
    Raw r = raw(method, path, "Content-Length: 0");
    // 401 from the token check, or 400 when the server refuses the path outright (an ambiguous encoded segment):
    // never an answer, never a 404 that would tell which routes exist.
    assertThat(r.status()).as(r.text()).isIn(400, 401);
    assertThat(r.body()).doesNotContain("loopflow_").doesNotContain("\"status\":\"ok\"")
        .doesNotContain("\"version\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/metrics", "/metrics/"})
  void metricsAnswerWithTheToken(String path) throws IOException {
    Raw r = raw("GET", path, "Authorization: Bearer " + ServerHarness.TOKEN);
    assertThat(r.status()).as(r.text()).isEqualTo(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/builder", "/builder/", "/runs/run_1", "/builder/review"})
  void pagesStayPublic(String path) throws IOException {
    assertThat(raw("GET", path).status()).isEqualTo(200);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The host check

  static Stream<String> foreignHosts() {
    return Stream.of("evil.com", "evil.com:" + 0, "localhost.evil.com", "127.0.0.1.nip.io", "127.0.0.1.evil.com",
        "evil.com.localhost.x", "localhost.", "LOCALHOST.", "127.0.0.2", "0.0.0.0", "10.0.0.1", "[::2]",
        "[::ffff:127.0.0.1]", "localhost:abc", "localhost:99999", "localhost:-1", "localhost:", "user@localhost",
        "localhost:80@evil.com", "evil.com#localhost", "evil.com?localhost", "evil.com/localhost", "[::1]evil",
        "[::1", "localhost evil.com", "xn--localhost", "local", "localhos", "2130706433", "0x7f.0.0.1",
        "127.1", "127.0.0.1:80:80", "\u00adlocalhost");
  }

  @ParameterizedTest
  @MethodSource("foreignHosts")
  void aLoopbackServerRefusesAForeignHost(String host) throws IOException {
    for (String path : new String[] {"/api/health", "/", "/metrics"}) {
      Raw r = raw(h.server.port(), "GET", path, host, "Authorization: Bearer " + ServerHarness.TOKEN);
      // 421 with the JSON error; a host Jetty finds malformed is refused by it first (400).
      assertThat(r.status()).as(host + " " + path + ": " + r.text()).isIn(400, 421);
      assertThat(r.body()).doesNotContain("\"status\":\"ok\"").doesNotContain("<div id=\"root\">");
      if (r.status() == 421) {
        assertThat(r.body()).contains("\"code\":\"misdirected_request\"").doesNotContain("\n");
      }
    }
  }

  @Test
  void aLoopbackServerRefusesAMissingOrEmptyHost() throws IOException {
    assertThat(raw(h.server.port(), "GET", "/api/health", null, "Authorization: Bearer " + ServerHarness.TOKEN)
        .status()).isIn(400, 421);
    assertThat(raw(h.server.port(), "GET", "/api/health", "", "Authorization: Bearer " + ServerHarness.TOKEN)
        .status()).isIn(400, 421);
    assertThat(raw(h.server.port(), "GET", "/api/health", "localhost", "Host: evil.com",
        "Authorization: Bearer " + ServerHarness.TOKEN).status()).isIn(400, 421);
  }

  @Test
  void anAbsoluteRequestTargetNamingAForeignHostIsRefused() throws IOException {
    Raw r = raw(h.server.port(), "GET", "http://evil.com/api/health", "127.0.0.1",
        "Authorization: Bearer " + ServerHarness.TOKEN);
    assertThat(r.status()).as(r.text()).isIn(400, 421);
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost", "LOCALHOST", "LocalHost", "127.0.0.1", "[::1]", "localhost:1", "[::1]:80",
      "127.0.0.1:65535", "PORT"})
  void aLoopbackServerAnswersLoopbackNamesWithAnyPort(String host) throws IOException {
    String h2 = host.equals("PORT") ? "localhost:" + h.server.port() : host;
    Raw r = raw(h.server.port(), "GET", "/api/health", h2, "Authorization: Bearer " + ServerHarness.TOKEN);
    assertThat(r.status()).as(h2 + ": " + r.text()).isEqualTo(200);
  }

  @Test
  void aServerOnAllAddressesDoesNotCheckTheHost(@TempDir Path dir) throws IOException {
    try (ServerHarness any = new ServerHarness(dir, b -> b.host("0.0.0.0"))) {
      Raw r = raw(any.server.port(), "GET", "/api/health", "loopflow.example.com",
          "Authorization: Bearer " + ServerHarness.TOKEN);
      assertThat(r.status()).as(r.text()).isEqualTo(200);
      assertThat(raw(any.server.port(), "GET", "/metrics/", "loopflow.example.com").status()).isEqualTo(401);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Body types

  static Stream<String> refusedTypes() {
    return Stream.of("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x", "application/jsonp", "application/json-patch+json", "text/json",
        "application/xml", "text/html", "application/octet-stream", "application", "*/*", "json",
        "application/json2", "text/plain; application/json", "application/javascript");
  }

  static Stream<Arguments> jsonRoutes() {
    return Stream.of(Arguments.of("POST", "/api/validate"), Arguments.of("POST", "/api/graph"),
        Arguments.of("POST", "/api/runs"), Arguments.of("POST", "/api/runs/run_x/cancel"),
        Arguments.of("POST", "/api/runs/run_x/resume"), Arguments.of("POST", "/api/runs/run_x/signal"),
        Arguments.of("PUT", "/api/workflows/ct"));
  }

  static Stream<Arguments> refusedBodies() {
    List<Arguments> out = new ArrayList<>();
    jsonRoutes().forEach(r -> refusedTypes().forEach(t -> out.add(Arguments.of(r.get()[0], r.get()[1], t))));
    jsonRoutes().forEach(r -> out.add(Arguments.of(r.get()[0], r.get()[1], null)));
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("refusedBodies")
  void aBodyOfAnotherTypeIs415AndNothingIsDone(String method, String path, String type) throws IOException {
    String body = "{\"source\": \"name: ct\\nnodes:\\n  - {id: a, type: transform, template: x}\\n\"}";
    List<String> headers = new ArrayList<>(List.of("Authorization: Bearer " + ServerHarness.TOKEN,
        "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length));
    if (type != null) {
      headers.add("Content-Type: " + type);
    }
    Raw r = rawWithBody(method, path, body, headers);
    assertThat(r.status()).as(r.text()).isEqualTo(415);
    assertThat(r.body()).contains("\"code\":\"unsupported_media_type\"");
    assertThat(h.workflows.resolve("ct.yaml")).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"application/json", "application/json; charset=utf-8", "APPLICATION/JSON",
      "Application/Json;charset=UTF-8", "application/json ; charset=utf-8"})
  void jsonWithAnyCaseOrCharsetIsTaken(String type) throws IOException {
    String body = "{\"source\": \"name: ok\\nnodes:\\n  - {id: a, type: transform, template: x}\\n\"}";
    Raw r = rawWithBody("POST", "/api/validate", body, List.of("Authorization: Bearer " + ServerHarness.TOKEN,
        "Content-Type: " + type, "Content-Length: " + body.length()));
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    assertThat(r.body()).contains("\"valid\":true");
  }

  @ParameterizedTest
  @ValueSource(strings = {"application/yaml", "application/x-yaml", "text/yaml; charset=utf-8"})
  void aWorkflowMayBePutAsYaml(String type) throws IOException {
    String body = "name: y\nnodes:\n  - {id: a, type: transform, template: x}\n";
    Raw r = rawWithBody("PUT", "/api/workflows/yaml-put", body, List.of("Authorization: Bearer "
        + ServerHarness.TOKEN, "Content-Type: " + type, "Content-Length: " + body.length()));
    assertThat(r.status()).as(r.text()).isIn(200, 201);
    assertThat(rawWithBody("POST", "/api/validate", "{\"source\": \"a: 1\"}", List.of("Authorization: Bearer "
        + ServerHarness.TOKEN, "Content-Type: " + type, "Content-Length: 17")).status()).isEqualTo(415);
  }

  @Test
  void aRequestWithoutABodyNeedsNoType() throws IOException {
    Raw r = rawWithBody("POST", "/api/runs/run_nope/cancel", "", List.of("Authorization: Bearer "
        + ServerHarness.TOKEN, "Content-Length: 0"));
    assertThat(r.status()).as(r.text()).isEqualTo(404);
  }

  @Test
  void anUnauthenticatedRequestIs401BeforeItsTypeIsLookedAt() throws IOException {
    Raw r = rawWithBody("POST", "/api/validate", "x=1", List.of("Content-Type: application/x-www-form-urlencoded",
        "Content-Length: 3"));
    assertThat(r.status()).isEqualTo(401);
  }

  static Raw rawWithBody(String method, String path, String body, List<String> headers) throws IOException {
    StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    headers.forEach(x -> req.append(x).append("\r\n"));
    req.append("Connection: close\r\n\r\n").append(body);
    try (Socket s = new Socket("127.0.0.1", h.server.port())) {
      s.setSoTimeout(60_000);
      s.getOutputStream().write(req.toString().getBytes(StandardCharsets.UTF_8));
      s.getOutputStream().flush();
      String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Raw(Integer.parseInt(text.substring(9, 12)), text);
    }
  }
}
