package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Values in an http node's url are data, never structure: in a path segment, a query key or value they are
 * percent-encoded, so they add no segment, parameter, query or fragment, never climb the path, and nothing but the
 * author's literal text names the scheme, host and port. Regression: {@code ?q={{ input.q }}} with
 * {@code a&scope=admin#} added a parameter, and {@code ../} in a path value climbed.
 */
class HttpUrlEncodingTest {
  private static HttpServer server;
  private static final List<URI> seen = new CopyOnWriteArrayList<>();
  private static final List<String> hosts = new CopyOnWriteArrayList<>();
  private final Loopflow engine = Loopflow.create();

  @BeforeAll
  static void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> {
      seen.add(ex.getRequestURI());
      hosts.add(ex.getRequestHeaders().getFirst("Host"));
      byte[] b = "ok".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    server.start();
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  private static String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  static Stream<String> hostile() {
    List<String> v = new ArrayList<>(List.of(
        "a&scope=admin#", "a&scope=admin", "x#frag", "?x=1", "=", "&", "&&", ";x=1", "a=b", "k=v&admin=true",
        "../../etc/passwd", "../", "..%2f..%2f", "..%2F", "%2e%2e/x", "a/b", "/", "//", "//evil.example/x",
        "\\..\\..", "..\\", "a b", "a+b", "+", "%", "%25", "%zz", "%00", "%0d%0aHost: evil", "\r\nX-Evil: 1",
        "@evil.example", "user:pw@evil.example", "evil.example:80", "http://evil.example/", "https:",
        "ünïcödé", "😀", "'\"<>{}|`^", "$(id)", "~user", "", " ", "...", "a..b", ".hidden", "x.", "-", "_"));
    return v.stream();
  }

  /** Values that are a dot segment themselves or after percent-decoding: refused where they would form one. */
  static Stream<String> dots() {
    return Stream.of(".", "..", "%2e", "%2e%2e", "%2E%2E", ".%2e", "%252e%252e", "%25252e%25252e");
  }

  private RunResult run(String url, String value) {
    Workflow wf = engine.parse("""
        input:
          v: {type: string}
        nodes:
          - id: h
            type: http
            url: "%s"
        """.formatted(url), "http.yaml");
    return engine.run(wf, RunOptions.builder().inputs(Map.of("v", value)).build());
  }

  /** A segment that is '.' or '..' as written or after percent-decoding it a few times. */
  private static boolean dotSegment(String segment) {
    String s = segment;
    for (int i = 0; i < 4; i++) {
      if (s.equals(".") || s.equals("..")) {
        return true;
      }
      s = decode(s);
    }
    return false;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @MethodSource("hostile")
  void aValueInEveryPositionArrivesAsItselfAndAddsNoStructure(String value) {
    seen.clear();
    hosts.clear();
    RunResult r = run(origin() + "/base/{{ input.v }}/end?q={{ input.v }}&{{ input.v }}=k&fixed=1"
        + "#{{ input.v }}", value);

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(seen).hasSize(1);
    assertThat(hosts).containsExactly("127.0.0.1:" + server.getAddress().getPort());
    URI got = seen.get(0);
    String[] segments = got.getRawPath().split("/", -1);
    assertThat(segments).as(got.getRawPath()).hasSize(4);
    assertThat(segments[1]).isEqualTo("base");
    assertThat(decode(segments[2])).isEqualTo(value);
    assertThat(segments[3]).isEqualTo("end");
    String[] params = got.getRawQuery().split("&", -1);
    assertThat(params).as(got.getRawQuery()).hasSize(3);
    assertThat(params[0]).startsWith("q=");
    assertThat(decode(params[0].substring(2))).isEqualTo(value);
    assertThat(params[1]).endsWith("=k");
    assertThat(decode(params[1].substring(0, params[1].length() - 2))).isEqualTo(value);
    assertThat(params[2]).isEqualTo("fixed=1");
    assertThat(params[0].substring(2)).doesNotContain("=", "#", "?", "/", "+");
  }

  @ParameterizedTest
  @MethodSource("dots")
  void aValueNeverMakesADotSegmentOfThePath(String value) {
    seen.clear();
    for (String url : List.of("/a/{{ input.v }}/b", "/a/{{ input.v }}", "/{{ input.v }}/", "/a/{{ input.v }}?x=1",
        "/a/{{ input.v }}#{{ input.v }}", "/a/.{{ input.v }}/b", "/a/{{ input.v }}./b", "/a/%2e{{ input.v }}/b")) {
      String segment = url.replaceAll("^.*/([^/]*\\{\\{ input.v }}[^/?#]*).*$", "$1").replace("{{ input.v }}",
          value);
      if (!dotSegment(segment)) {
        continue;
      }
      RunResult r = run(origin() + url, value);
      assertThat(r.status()).as(url + " with " + value).isEqualTo(RunStatus.FAILED);
      assertThat(r.error().code()).isEqualTo("node_failed");
      assertThat(r.error().message()).contains("'.' or '..'");
    }
    assertThat(seen).as("no request was sent").isEmpty();
  }

  @ParameterizedTest
  @MethodSource("dots")
  void aDotValueInTheQueryIsData(String value) {
    seen.clear();
    RunResult r = run(origin() + "/a?q={{ input.v }}", value);
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(decode(seen.get(0).getRawQuery().substring(2))).isEqualTo(value);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "http://{{ input.v }}/x",
      "http://{{ input.v }}",
      "https://{{ input.v }}.example.com/x",
      "https://api.{{ input.v }}/x",
      "https://example.com{{ input.v }}",
      "https://example.com{{ input.v }}/x",
      "https://example.com:{{ input.v }}/x",
      "https://{{ input.v }}@example.com/x",
      "https://user:{{ input.v }}@example.com/x",
      "http{{ input.v }}://example.com/x",
      "{{ input.v }}://example.com/x",
      "{{ input.v }}/x",
      "{{ input.v }}?q=1",
      "{{ input.v }}{{ input.v }}",
      " {{ input.v }}/x",
      "example.com/{{ input.v }}",
      "//example.com/{{ input.v }}",
      "https://example.com/{% if input.v %}a{% endif %}",
      "https://example.com/{# c #}{{ input.v }}"})
  void aValueThatCouldNameTheHostIsALoadProblem(String url) {
    assertThatThrownBy(() -> engine.parse("""
        input:
          v: {type: string}
        nodes:
          - id: h
            type: http
            url: "%s"
        """.formatted(url), "http.yaml"))
        .isInstanceOf(WorkflowInvalidException.class)
        .hasMessageContaining("http.yaml:6:")
        .hasMessageContaining("url");
  }

  @ParameterizedTest
  @MethodSource("hostile")
  void theWholeUrlAsOneValueIsUsedAsWritten(String value) {
    seen.clear();
    RunResult r = run("{{ input.v }}", origin() + "/whole?x=" + value.replaceAll("[^A-Za-z0-9]", ""));
    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(seen.get(0).getRawPath()).isEqualTo("/whole");
  }
}
