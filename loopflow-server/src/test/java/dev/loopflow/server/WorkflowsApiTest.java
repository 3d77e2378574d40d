package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** /api/validate and /api/workflows: problems as the loader reports them, files only inside the directory. */
class WorkflowsApiTest {
  @TempDir static Path tmp;
  static ServerHarness h;
  static Path outside;

  static final String REVIEW = """
      name: review
      description: Reviews a text.
      input:
        text: {type: string, description: "what to review"}
        rounds: {type: integer, default: 2}
      nodes:
        - {id: a, type: transform, template: "{{ input.text }} x{{ input.rounds }}"}
      """;

  static final String BAD = """
      name: bad
      nodes:
        - id: a
          type: shel
          command: echo hi
        - id: b
          bash: echo "{{ revewer.output }}"
          depnds_on: [a]
      edges:
        - {from: a, to: c}
      """;

  @BeforeAll
  static void start() throws IOException {
    h = new ServerHarness(tmp.resolve("home"));
    outside = tmp.resolve("home");
    Files.writeString(outside.resolve("secret.yaml"), "name: secret\nnodes: [{id: s, type: transform, "
        + "template: TOP-SECRET}]\n");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @BeforeEach
  void clean() throws IOException {
    try (Stream<Path> files = Files.list(h.workflows)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
  }

  @Test
  void aValidSourceHasNoProblems() {
    ServerHarness.Response r = h.post("/api/validate", ServerHarness.map("source", REVIEW));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("valid").asBoolean()).isTrue();
    assertThat(r.json().path("problems")).isEmpty();
  }

  @Test
  void anInvalidSourceGetsEveryProblemWithLineColumnAndPath() {
    ServerHarness.Response r = h.post("/api/validate", ServerHarness.map("source", BAD));
    assertThat(r.status()).isEqualTo(200);
    JsonNode j = r.json();
    assertThat(j.path("valid").asBoolean()).isFalse();
    List<String> problems = new ArrayList<>();
    j.path("problems").forEach(p -> problems.add(p.path("line").asInt() + ":" + p.path("col").asInt() + " "
        + p.path("path").asText() + " " + p.path("message").asText()));
    assertThat(problems).containsExactly(
        "4:11 nodes.a.type unknown node kind 'shel' (did you mean 'shell'?)",
        "7:20 nodes.b.bash unknown reference 'revewer': no node or variable has that name",
        "8:5 nodes.b.depnds_on unknown field 'depnds_on' for a shell node (did you mean 'depends_on'?)",
        "10:19 edges[0].to unknown node 'c' (did you mean 'a'?)");
  }

  @Test
  void broken_yaml_isAProblemNotAnError() {
    for (String src : List.of("", "nodes: [", "\t- x", ": : :", "name: x\nnodes: {}", "[1, 2]", "&a [*a]")) {
      ServerHarness.Response r = h.post("/api/validate", ServerHarness.map("source", src));
      assertThat(r.status()).as(src).isEqualTo(200);
      assertThat(r.json().path("valid").asBoolean()).isFalse();
      assertThat(r.json().path("problems").get(0).path("line").asInt()).isPositive();
    }
  }

  @Test
  void listingGivesNamesInputsAndValidity() throws IOException {
    h.workflow("review", REVIEW);
    h.workflow("bad", BAD);
    Files.writeString(h.workflows.resolve("other.yml"), "name: other\nnodes: [{id: o, type: transform, template: o}]\n");
    Files.writeString(h.workflows.resolve("review.yml"), "name: shadowed\nnodes: [{id: o, type: transform, "
        + "template: o}]\n");
    Files.writeString(h.workflows.resolve("has space.yaml"), REVIEW);
    Files.writeString(h.workflows.resolve("notes.txt"), "x");
    Files.createDirectories(h.workflows.resolve("dir.yaml"));
    ServerHarness.Response r = h.get("/api/workflows");
    assertThat(r.status()).isEqualTo(200);
    JsonNode list = r.json();
    List<String> names = new ArrayList<>();
    list.forEach(w -> names.add(w.path("name").asText()));
    assertThat(names).containsExactly("bad", "other", "review");
    JsonNode review = list.get(2);
    assertThat(review.path("file").asText()).isEqualTo("review.yaml");
    assertThat(review.path("description").asText()).isEqualTo("Reviews a text.");
    assertThat(review.path("valid").asBoolean()).isTrue();
    assertThat(review.path("inputs")).hasSize(2);
    JsonNode text = review.path("inputs").get(0);
    assertThat(text.path("name").asText()).isEqualTo("text");
    assertThat(text.path("type").asText()).isEqualTo("string");
    assertThat(text.path("required").asBoolean()).isTrue();
    assertThat(text.path("default").isNull()).isTrue();
    assertThat(text.path("description").asText()).isEqualTo("what to review");
    JsonNode rounds = review.path("inputs").get(1);
    assertThat(rounds.path("required").asBoolean()).isFalse();
    assertThat(rounds.path("default").asInt()).isEqualTo(2);
    JsonNode bad = list.get(0);
    assertThat(bad.path("valid").asBoolean()).isFalse();
    assertThat(bad.path("inputs")).isEmpty();
    assertThat(bad.path("description").isNull()).isTrue();
  }

  @Test
  void oneWorkflowAsJsonOrAsYaml() {
    h.workflow("review", REVIEW);
    ServerHarness.Response r = h.get("/api/workflows/review");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("name").asText()).isEqualTo("review");
    assertThat(r.json().path("source").asText()).isEqualTo(REVIEW);
    assertThat(r.json().path("valid").asBoolean()).isTrue();
    assertThat(r.json().path("problems")).isEmpty();
    assertThat(r.json().path("inputs")).hasSize(2);
    ServerHarness.Response yaml = h.send(h.request("/api/workflows/review").header("Accept", "application/yaml")
        .build());
    assertThat(yaml.status()).isEqualTo(200);
    assertThat(yaml.header("Content-Type")).startsWith("application/yaml");
    assertThat(yaml.body()).isEqualTo(REVIEW);
  }

  @Test
  void anInvalidFileIsShownWithItsProblems() {
    h.workflow("bad", BAD);
    ServerHarness.Response r = h.get("/api/workflows/bad");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("valid").asBoolean()).isFalse();
    assertThat(r.json().path("problems")).hasSize(4);
    assertThat(r.json().path("source").asText()).isEqualTo(BAD);
  }

  @Test
  void aMissingWorkflowIs404() {
    ServerHarness.Response r = h.get("/api/workflows/nothing");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("workflow_not_found");
  }

  @Test
  void putWritesAValidWorkflowAndReplacesIt() throws IOException {
    ServerHarness.Response r = h.put("/api/workflows/review", ServerHarness.map("source", REVIEW));
    assertThat(r.status()).isEqualTo(201);
    assertThat(r.json().path("file").asText()).isEqualTo("review.yaml");
    assertThat(Files.readString(h.workflows.resolve("review.yaml"))).isEqualTo(REVIEW);
    String changed = REVIEW.replace("Reviews a text.", "Reviews a text twice.");
    r = h.send(h.request("/api/workflows/review").header("Content-Type", "application/yaml")
        .PUT(HttpRequest.BodyPublishers.ofString(changed)).build());
    assertThat(r.status()).isEqualTo(200);
    assertThat(Files.readString(h.workflows.resolve("review.yaml"))).isEqualTo(changed);
    try (Stream<Path> files = Files.list(h.workflows)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("review.yaml");
    }
  }

  @Test
  void putKeepsAnExistingYmlFile() throws IOException {
    Files.writeString(h.workflows.resolve("other.yml"), REVIEW);
    ServerHarness.Response r = h.put("/api/workflows/other", ServerHarness.map("source", REVIEW + "# edited\n"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("file").asText()).isEqualTo("other.yml");
    assertThat(Files.readString(h.workflows.resolve("other.yml"))).endsWith("# edited\n");
    assertThat(h.workflows.resolve("other.yaml")).doesNotExist();
  }

  @Test
  void putNeverWritesAnInvalidWorkflow() throws IOException {
    h.workflow("review", REVIEW);
    ServerHarness.Response r = h.put("/api/workflows/review", ServerHarness.map("source", BAD));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("workflow_invalid");
    assertThat(r.json().path("error").path("problems")).hasSize(4);
    assertThat(r.json().path("error").path("problems").get(0).path("line").asInt()).isEqualTo(4);
    assertThat(Files.readString(h.workflows.resolve("review.yaml"))).isEqualTo(REVIEW);
    r = h.put("/api/workflows/fresh", ServerHarness.map("source", BAD));
    assertThat(r.status()).isEqualTo(400);
    assertThat(h.workflows.resolve("fresh.yaml")).doesNotExist();
  }

  @Test
  void putTakesJsonOrYamlOnly() {
    ServerHarness.Response r = h.send(h.request("/api/workflows/review").header("Content-Type", "text/plain")
        .PUT(HttpRequest.BodyPublishers.ofString(REVIEW)).build());
    assertThat(r.status()).isEqualTo(415);
    assertThat(r.code()).isEqualTo("unsupported_media_type");
  }

  /** Names that must never reach a file outside the workflows directory, as they appear in the URL path. */
  static Stream<String> hostileNames() {
    List<String> raw = List.of("../secret", "../../etc/passwd", "a/b", "a\\b", "..\\secret", "/etc/passwd",
        "secret/..", "./review", ".hidden", "-rf", "a..b", "review.", "x".repeat(129), "x".repeat(5000),
        "revi\u0435w", "\uff0e\uff0e\uff0fsecret", "\u2024\u2024/secret", "re view", "review\t", "review\n",
        "%2e%2e%2fsecret", "..%2fsecret", "\u202eweiver", "../home/secret", "~", "~/x",
        "$HOME", "a;b", "a|b", "*", "?", "\u0000", "a\u0000b", "review%00");
    List<String> encoded = new ArrayList<>();
    for (String n : raw) {
      encoded.add(URLEncoder.encode(n, StandardCharsets.UTF_8).replace("+", "%20"));
    }
    encoded.addAll(List.of("%2e%2e%2fsecret", "%2e%2e/secret", "..%2Fsecret", "%252e%252e%252fsecret",
        "..%5Csecret", "%c0%ae%c0%ae%c0%afsecret", "%2E%2E"));
    return encoded.stream();
  }

  @ParameterizedTest
  @MethodSource("hostileNames")
  void noNameReadsOrWritesOutsideTheDirectory(String encodedName) throws IOException {
    h.workflow("review", REVIEW);
    ServerHarness.Response get = send("GET", encodedName, null);
    ServerHarness.Response put = send("PUT", encodedName, REVIEW.replace("review", "planted"));
    ServerHarness.Response run = h.post("/api/runs", ServerHarness.map("workflow",
        java.net.URLDecoder.decode(encodedName.replace("+", "%2B"), StandardCharsets.UTF_8)));
    for (ServerHarness.Response r : List.of(get, put, run)) {
      assertThat(r.body()).doesNotContain("TOP-SECRET");
      assertThat(r.status()).as(encodedName + " -> " + r).isIn(400, 404);
    }
    assertThat(Files.readString(outside.resolve("secret.yaml"))).contains("TOP-SECRET");
    try (Stream<Path> files = Files.list(outside)) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith("loopflow.db")).toList())
          .containsExactlyInAnyOrder("secret.yaml", "workflows");
    }
    try (Stream<Path> files = Files.list(h.workflows)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("review.yaml");
    }
    assertThat(Files.readString(h.workflows.resolve("review.yaml"))).isEqualTo(REVIEW);
    assertThat(h.get("/api/runs").json()).isEmpty();
  }

  @Test
  void aLinkOutOfTheDirectoryIsNotFollowed() throws IOException {
    Files.createSymbolicLink(h.workflows.resolve("escape.yaml"), outside.resolve("secret.yaml"));
    assertThat(h.get("/api/workflows/escape").status()).isEqualTo(404);
    assertThat(h.get("/api/workflows").body()).doesNotContain("escape");
    assertThat(h.post("/api/runs", ServerHarness.map("workflow", "escape")).status()).isEqualTo(404);
  }

  @Test
  void graphOfAnUnsavedWorkflow() {
    ServerHarness.Response r = h.post("/api/graph", ServerHarness.map("source", REVIEW));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.json().path("workflow").asText()).isEqualTo("review");
    assertThat(r.json().path("nodes").get(0).path("id").asText()).isEqualTo("a");
    r = h.post("/api/graph", ServerHarness.map("source", BAD));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("workflow_invalid");
    assertThat(r.json().path("error").path("problems")).hasSize(4);
  }

  private ServerHarness.Response send(String method, String encodedName, String source) {
    java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + h.server.port() + "/api/workflows/" + encodedName);
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + ServerHarness.TOKEN);
    if (source != null) {
      b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(
          ServerHarness.json(ServerHarness.map("source", source))));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    // A fresh client: Jetty closes the connection after refusing a malformed URI, which a pooled one would reuse.
    try {
      return new ServerHarness.Response(java.net.http.HttpClient.newHttpClient().send(b.build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()));
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
