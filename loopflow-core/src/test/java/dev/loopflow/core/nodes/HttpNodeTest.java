package dev.loopflow.core.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpNodeTest {
  private static TestHttpServer server;
  private final Loopflow engine = Loopflow.create();

  @BeforeAll
  static void start() throws Exception {
    server = new TestHttpServer();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** A workflow with one http node {@code h} (extra fields indented under it) and a transform reading it. */
  private RunResult run(String url, String extra, RunOptions.Builder opts) {
    Workflow wf = engine.parse("""
        name: http
        nodes:
          - id: h
            type: http
            url: "%s"
        %s
          - id: after
            type: transform
            template: "{{ h.status }}/{{ h.node_status }}"
        """.formatted(url, extra.isEmpty() ? "" : extra.indent(4).stripTrailing()), "http.yaml");
    return engine.run(wf, opts.build());
  }

  private RunResult run(String url, String extra) {
    return run(url, extra, RunOptions.builder());
  }

  private static String redirect(int code, String to) {
    return server.url("/redirect/" + code + "?to=" + URLEncoder.encode(to, StandardCharsets.UTF_8));
  }

  private static String errorOf(RunResult r) {
    assertThat(r.status()).as("run status").isEqualTo(RunStatus.FAILED);
    return r.error().message();
  }

  // --- response size ------------------------------------------------------------------------------------------

  @Test
  void streamedBodyOverTheConfiguredCapFailsWithoutReadingTheRest_bugHttpBodyReadWhole() {
    long total = 50L * 1024 * 1024;
    RunResult r = run(server.url("/stream/" + total), "max_response_bytes: 1048576");

    assertThat(errorOf(r)).contains("max_response_bytes (1048576 bytes)").contains("the rest was not read");
    assertThat(r.nodes().get("h")).containsEntry("status", 200).containsEntry("node_status", "failed")
        .doesNotContainKey("body");
    assertThat(server.bytesWritten("/stream/" + total)).as("bytes the server sent").isLessThan(total);
  }

  @Test
  void streamedBodyOverTheDefaultCapOfTenMegabytesFails() {
    RunResult r = run(server.url("/stream/" + (12 * 1024 * 1024)), "");

    assertThat(errorOf(r)).contains("max_response_bytes (10485760 bytes)");
  }

  @Test
  void declaredContentLengthOverTheCapFailsBeforeTheBodyIsRead() {
    long total = 50L * 1024 * 1024;
    RunResult r = run(server.url("/declared/" + total), "max_response_bytes: 1048576");

    assertThat(errorOf(r)).contains("max_response_bytes (1048576 bytes; Content-Length: " + total + ")");
    assertThat(server.bytesWritten("/declared/" + total)).isLessThan(total);
  }

  @Test
  void bodyOfExactlyTheCapIsRead() {
    RunResult r = run(server.url("/stream/4096"), "max_response_bytes: 4096");

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat((String) r.nodes().get("h").get("body")).hasSize(4096);
    assertThat(run(server.url("/stream/4097"), "max_response_bytes: 4096").status()).isEqualTo(RunStatus.FAILED);
  }

  // --- redirects and statuses ---------------------------------------------------------------------------------

  @Test
  void redirectLoopFails_bugRedirectLoopCompletedAsSuccess() {
    String msg = errorOf(run(server.url("/loop/a"), ""));

    assertThat(msg).startsWith("http node 'h' failed: redirect loop: ").contains("/loop/a -> ").contains("/loop/b");
  }

  @ParameterizedTest
  @ValueSource(ints = {301, 302, 303, 307, 308})
  void redirectWithoutLocationFails_bugUnfollowableRedirectCompletedAsSuccess(int code) {
    RunResult r = run(server.url("/no-location/" + code), "");

    assertThat(errorOf(r)).contains("returned HTTP " + code + " without a Location header");
    assertThat(r.nodes().get("h")).containsEntry("status", code);
  }

  @Test
  void movedPermanentlyIsFollowedToTheFinalAnswer() {
    RunResult r = run(redirect(301, "/json"), "");

    assertThat(r.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(r.nodes().get("h")).containsEntry("status", 200).containsEntry("node_status", "completed")
        .containsEntry("body", Map.of("a", 1, "list", List.of(1, 2))).containsEntry("url", server.url("/json"));
    assertThat(r.output()).isEqualTo("200/completed");
  }

  @Test
  void tenRedirectsAreFollowedAndTheEleventhFails() {
    assertThat(run(server.url("/chain/10"), "").status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(errorOf(run(server.url("/chain/11"), ""))).contains("more than 10 redirects");
  }

  @Test
  void redirectToAnotherSchemeOrDowngradeIsNotFollowed() {
    assertThat(errorOf(run(redirect(302, "file:///etc/passwd"), ""))).contains("only http and https URLs");
    assertThat(errorOf(run(redirect(302, "ftp://127.0.0.1/x"), ""))).contains("only http and https URLs");
  }

  @Test
  void redirectIsTheAnswerWhenFollowRedirectsIsFalse() {
    long jsonRequests = server.requests.stream().filter(r -> r.equals("GET /json")).count();
    String msg = errorOf(run(redirect(302, "/json"), "follow_redirects: false"));
    assertThat(msg).contains("returned HTTP 302 (a redirect, not followed: follow_redirects is false)");

    RunResult ok = run(redirect(302, "/json"), "follow_redirects: false\nok_status: [302]");
    assertThat(ok.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(ok.nodes().get("h")).containsEntry("status", 302);
    @SuppressWarnings("unchecked")
    Map<String, Object> headers = (Map<String, Object>) ok.nodes().get("h").get("headers");
    assertThat(headers).containsEntry("location", "/json");
    assertThat(server.requests.stream().filter(r -> r.equals("GET /json")).count()).isEqualTo(jsonRequests);
  }

  @ParameterizedTest
  @ValueSource(ints = {304, 400, 404, 418, 500, 503})
  void statusOutside2xxFailsUnlessListedInOkStatus(int code) {
    String url = code == 304 ? server.url("/no-location/304") : server.url("/status/" + code);
    assertThat(errorOf(run(url, ""))).contains("returned HTTP " + code);

    RunResult ok = run(url, "ok_status: [" + code + "]");
    assertThat(ok.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(ok.output()).isEqualTo(code + "/completed");
  }

  @Test
  void httpStatusCodeIsTheResultsStatus_bugHttpStatusShadowedByNodeStatus() {
    RunResult ok = run(server.url("/json"), "");
    assertThat(ok.output()).isEqualTo("200/completed");
    assertThat(ok.nodes().get("h")).containsEntry("status", 200).containsEntry("node_status", "completed");

    RunResult failed = run(server.url("/status/404"), "allow_failure: true");
    assertThat(failed.status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(failed.output()).isEqualTo("404/failed");
    assertThat(failed.nodes().get("h")).containsEntry("status", 404).containsEntry("node_status", "failed")
        .containsKey("error");
    assertThat(failed.nodes().get("after")).containsEntry("status", "completed").doesNotContainKey("node_status");
  }

  @Test
  void seeOtherTurnsAPostIntoAGetAndTemporaryRedirectKeepsIt() {
    RunResult see = run(redirect(303, "/echo"), "method: POST\nbody: payload");
    assertThat(see.nodes().get("h").get("body")).isEqualTo(Map.of("method", "GET", "body", "", "auth", ""));

    RunResult keep = run(redirect(307, "/echo"), "method: POST\nbody: payload");
    assertThat(keep.nodes().get("h").get("body")).isEqualTo(Map.of("method", "POST", "body", "payload",
        "auth", ""));
  }

  @Test
  void credentialsAreNotSentToAnotherOriginOnRedirect() {
    String sameOrigin = redirect(302, "/echo");
    String otherOrigin = redirect(302, server.url("/echo").replace("127.0.0.1", "localhost"));
    String auth = "headers:\n  Authorization: Bearer secret";

    assertThat(run(sameOrigin, auth).nodes().get("h").get("body")).asInstanceOf(
        org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("auth", "present");
    assertThat(run(otherOrigin, auth).nodes().get("h").get("body")).asInstanceOf(
        org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("auth", "");
  }

  @Test
  void jsonBodyTemplatesAreRendered() {
    RunResult r = run(server.url("/echo"), "method: POST\nbody: {text: \"{{ 'a' ~ 'b' }}\"}");

    assertThat(r.nodes().get("h").get("body")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .containsEntry("body", "{\"text\":\"ab\"}");
  }

  // --- private addresses --------------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:PORT/json", "http://localhost:PORT/json", "http://[::1]:PORT/json",
      "http://[::ffff:127.0.0.1]:PORT/json", "http://0.0.0.0:PORT/json", "http://127.1.2.3:PORT/json",
      "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://192.168.1.1/", "http://172.16.0.1/",
      "http://100.64.0.1/", "http://[fd00::1]/", "http://[fe80::1]/", "http://[::127.0.0.1]:PORT/json",
      "http://[64:ff9b::a9fe:a9fe]/"})
  void privateAddressesAreRefusedWhenTheRunForbidsThem(String template) {
    String url = template.replace("PORT", server.url("").replaceAll(".*:(\\d+)$", "$1"));
    int before = server.requests.size();

    RunResult r = run(url, "", RunOptions.builder().option(RunOptions.HTTP_DENY_PRIVATE, true));

    assertThat(errorOf(r)).contains("this run forbids requests to private addresses");
    assertThat(server.requests).hasSize(before);
  }

  @Test
  void privateAddressesAreAllowedByDefault() {
    assertThat(run(server.url("/json"), "").status()).isEqualTo(RunStatus.COMPLETED);
    assertThat(run(server.url("/json"), "", RunOptions.builder().option(RunOptions.HTTP_DENY_PRIVATE, false))
        .status()).isEqualTo(RunStatus.COMPLETED);
  }

  // --- configuration ------------------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"max_response_bytes: 0", "max_response_bytes: -5", "max_response_bytes: ten",
      "max_response_bytes: 600000000", "ok_status: [abc]", "ok_status: [99]", "ok_status: 404",
      "follow_redirects: sometimes"})
  void badSettingsAreLoadErrorsNamingTheField(String line) {
    String field = line.substring(0, line.indexOf(':'));
    assertThatThrownBy(() -> engine.parse("""
        name: bad
        nodes:
          - id: h
            type: http
            url: http://example.invalid/
            %s
        """.formatted(line), "bad.yaml"))
        .isInstanceOf(WorkflowInvalidException.class)
        .hasMessageContaining("nodes.h." + field);
  }

  @ParameterizedTest
  @ValueSource(strings = {"file:///etc/passwd", "ftp://127.0.0.1/", "gopher://127.0.0.1/", "http:///nohost",
      "not a url"})
  void onlyHttpUrlsWithAHostAreFetched(String url) {
    assertThat(errorOf(run(url, ""))).containsAnyOf("only http and https URLs", "has no host", "not a valid URL");
  }
}
