package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.schema.WorkflowSchema;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** /api/node-kinds and /api/templates: what the builder is made from, written from the loader's own tables. */
class CatalogApiTest {
  @TempDir static Path tmp;
  static ServerHarness h;

  @BeforeAll
  static void start() {
    h = new ServerHarness(tmp.resolve("home"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/api/node-kinds", "/api/templates", "/api/templates/self-refine",
      "/api/templates/nope"})
  void catalogRoutesNeedTheToken(String path) {
    ServerHarness.Response r = h.send(HttpRequest.newBuilder(h.uri(path)).build());
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.code()).isEqualTo("unauthorized");
    assertThat(r.body()).doesNotContain("Self-Refine").doesNotContain("maxIterations");
    r = h.send(HttpRequest.newBuilder(h.uri(path)).header("Authorization", "Bearer wrong").build());
    assertThat(r.status()).isEqualTo(401);
  }

  @Test
  void nodeKindsListEveryKindTheLoaderKnowsWithItsFields() {
    ServerHarness.Response r = h.get("/api/node-kinds");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    JsonNode body = r.json();
    Loopflow engine = Loopflow.create();
    List<NodeKindSpec> specs = engine.schema().nodeKinds();
    List<String> kinds = new ArrayList<>();
    body.path("kinds").forEach(k -> kinds.add(k.path("kind").asText()));
    assertThat(kinds).containsExactlyElementsOf(specs.stream().map(NodeKindSpec::kind).toList());
    assertThat(kinds).contains("loop", "exit", "while_loop", "loop_group", "iterator", "aggregator", "router",
        "approval", "transform", "validator", "llm", "agent", "shell", "script", "http", "input", "output");
    for (NodeKindSpec spec : specs) {
      JsonNode k = kind(body, spec.kind());
      assertThat(names(k.path("fields"))).as(spec.kind())
          .containsExactlyElementsOf(spec.fields().stream().map(FieldSpec::name).toList());
      for (FieldSpec f : spec.fields()) {
        sameField(field(k.path("fields"), f.name()), f, spec.kind() + "." + f.name());
      }
      assertThat(k.path("common")).extracting(JsonNode::asText).as(spec.kind()).containsExactlyElementsOf(
          engine.schema().commonNodeFields(spec.kind()).stream().map(FieldSpec::name).toList());
      assertThat(k.path("oneRequired").size()).isEqualTo(spec.oneRequired().size());
      assertThat(k.path("atMostOne").size()).isEqualTo(spec.atMostOne().size());
      assertThat(k.has("description")).isTrue();
      assertThat(k.path("description").isTextual()).as("never null: " + spec.kind()).isTrue();
    }
    List<FieldSpec> common = engine.schema().commonNodeFields();
    assertThat(names(body.path("common"))).containsExactlyElementsOf(common.stream().map(FieldSpec::name).toList());
    for (FieldSpec f : common) {
      sameField(field(body.path("common"), f.name()), f, "common." + f.name());
    }
  }

  /**
   * The web UI's tests read the catalog from a checked-in copy; it must be what the server answers. Regenerate with
   * {@code mvn -B -q -pl loopflow-server -am test -Dtest=CatalogApiTest -Dsurefire.failIfNoSpecifiedTests=false
   * -Dloopflow.catalog.write=true}.
   */
  @Test
  void uiTestCopyOfTheCatalogIsCurrent() throws java.io.IOException {
    JsonNode live = h.get("/api/node-kinds").json();
    Path copy = Path.of("..", "loopflow-ui", "test-fixtures", "node-kinds.json");
    if (Boolean.getBoolean("loopflow.catalog.write")) {
      java.nio.file.Files.writeString(copy, ServerHarness.JSON.writerWithDefaultPrettyPrinter()
          .writeValueAsString(live) + "\n");
    }
    assertThat(ServerHarness.JSON.readTree(java.nio.file.Files.readString(copy)))
        .as("%s is stale; regenerate it with -Dloopflow.catalog.write=true (see this test)", copy).isEqualTo(live);
  }

  @Test
  void loopSettingsHaveTheLoadersRanges() {
    JsonNode loop = kind(h.get("/api/node-kinds").json(), "loop");
    JsonNode max = field(loop.path("fields"), "maxIterations");
    assertThat(max.path("type").asText()).isEqualTo("INTEGER");
    assertThat(max.path("minimum").asLong()).isEqualTo(1);
    assertThat(max.path("maximum").asLong()).isEqualTo(50);
    assertThat(max.path("aliases")).extracting(JsonNode::asText).containsExactly("max_iterations");
    JsonNode exit = field(loop.path("fields"), "exitCondition");
    assertThat(exit.path("type").asText()).isEqualTo("CHOICE");
    assertThat(exit.path("values")).extracting(JsonNode::asText).contains("max_iterations", "evaluator",
        "stable_output");
    JsonNode threshold = field(loop.path("fields"), "stabilityThreshold");
    assertThat(threshold.path("minimum").asDouble()).isEqualTo(0.0);
    assertThat(threshold.path("maximum").asDouble()).isEqualTo(1.0);
    assertThat(field(loop.path("fields"), "feedbackMode").path("values")).extracting(JsonNode::asText)
        .containsExactly("replace", "append");
  }

  @Test
  void loopKindsTakeNoRetry() {
    JsonNode body = h.get("/api/node-kinds").json();
    assertThat(kind(body, "loop").path("common")).extracting(JsonNode::asText).doesNotContain("retry")
        .contains("id", "depends_on", "when");
    assertThat(kind(body, "shell").path("common")).extracting(JsonNode::asText).contains("retry");
  }

  @Test
  void resultFieldsAreWhatLoadingChecksTemplatesAgainst() {
    JsonNode body = h.get("/api/node-kinds").json();
    assertThat(kind(body, "shell").path("results")).extracting(JsonNode::asText)
        .contains("status", "output", "error", "stdout", "stderr", "exitCode");
    assertThat(kind(body, "loop").path("results")).extracting(JsonNode::asText)
        .contains("iterations", "count", "exit_reason", "output");
    assertThat(kind(body, "router").path("results")).extracting(JsonNode::asText).contains("selectedBranch");
    Loopflow engine = Loopflow.create();
    for (JsonNode k : body.path("kinds")) {
      var expected = engine.schema().resultFields(k.path("kind").asText());
      if (expected == null) {
        assertThat(k.path("results").isNull()).isTrue();
      } else {
        assertThat(k.path("results")).extracting(JsonNode::asText).containsExactlyElementsOf(expected);
      }
    }
    // A template naming a field outside them is refused when the file loads.
    ServerHarness.Response v = h.post("/api/validate", ServerHarness.map("source", """
        nodes:
          - {id: a, bash: echo hi}
          - {id: b, type: transform, template: "{{ a.stdot }}", depends_on: [a]}
        """));
    assertThat(v.json().path("valid").asBoolean()).isFalse();
    assertThat(v.json().path("problems").get(0).path("message").asText()).contains("stdout");
  }

  @Test
  void namesTheBuilderChecksAgainstAreTheLoaders() {
    JsonNode body = h.get("/api/node-kinds").json();
    Pattern id = Pattern.compile(body.path("idPattern").asText());
    assertThat(id.matcher("draft_2").matches()).isTrue();
    assertThat(id.matcher("2draft").matches()).isFalse();
    assertThat(id.matcher("a b").matches()).isFalse();
    assertThat(id.matcher("a\u202eb").matches()).isFalse();
    assertThat(body.path("reservedIds")).extracting(JsonNode::asText).contains("input", "loop");
    Pattern duration = Pattern.compile(body.path("durationPattern").asText());
    assertThat(duration.matcher("1h30m").matches()).isTrue();
    assertThat(duration.matcher("5 minutes please").matches()).isFalse();
    assertThat(body.path("loopVariables")).extracting(JsonNode::asText).contains("iteration", "max", "input",
        "prev", "item");
    assertThat(body.path("runVariables")).extracting(JsonNode::asText).contains("id", "workflow");
    assertThat(body.path("typeAliases").path("bash").asText()).isEqualTo("shell");
    assertThat(body.path("shorthands").path("prompt").asText()).isEqualTo("llm");
  }

  @Test
  void templatesAreListedAndEachLoadsOnTheServer() {
    ServerHarness.Response r = h.get("/api/templates");
    assertThat(r.status()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    for (JsonNode t : r.json()) {
      assertThat(t.path("id").isTextual()).isTrue();
      assertThat(t.path("name").asText()).isNotBlank();
      assertThat(t.path("description").asText()).isNotBlank();
      assertThat(t.path("form").asText()).isNotBlank();
      assertThat(t.has("source")).as("the list carries no sources").isFalse();
      ids.add(t.path("id").asText());
    }
    assertThat(ids).contains("self-refine", "agentic-search", "coder-reviewer", "counter", "refine-until-valid",
        "implement-test-review", "pipeline");
    Map<String, String> names = new HashMap<>();
    r.json().forEach(t -> names.put(t.path("id").asText(), t.path("name").asText()));
    assertThat(names).containsEntry("self-refine", "Self-Refine").containsEntry("agentic-search",
        "Agentic Search");
    for (String id : ids) {
      ServerHarness.Response one = h.get("/api/templates/" + id);
      assertThat(one.status()).isEqualTo(200);
      assertThat(one.json().path("id").asText()).isEqualTo(id);
      assertThat(one.json().path("name").asText()).isEqualTo(names.get(id));
      String source = one.json().path("source").asText();
      ServerHarness.Response v = h.post("/api/validate", ServerHarness.map("source", source));
      assertThat(v.json().path("valid").asBoolean()).as(id + ": " + v.body()).isTrue();
    }
  }

  /**
   * What the builder does with a template: fetch it and start a run of its source. With no LLM provider configured
   * (each provider's variables set blank here, whatever the machine has), the server answers LLM calls from the
   * template's mock: block, and every template runs to completion.
   */
  @ParameterizedTest
  @ValueSource(strings = {"self-refine", "agentic-search", "coder-reviewer", "counter", "refine-until-valid",
      "implement-test-review", "pipeline"})
  void templateStartedThroughTheApiRunsToCompletionOnTheMockProvider(String id) throws Exception {
    String source = h.get("/api/templates/" + id).json().path("source").asText();
    if (source.contains("python3")) {
      org.junit.jupiter.api.Assumptions.assumeTrue(python3(), id + " needs python3");
    }
    try (ServerHarness noProvider = new ServerHarness(tmp.resolve("np-" + id), b -> {
      for (dev.loopflow.llm.provider.Provider p : dev.loopflow.llm.provider.Provider.values()) {
        b.environment(p.baseUrlVariable(), "");
        p.apiKeyVariable().ifPresent(v -> b.environment(v, ""));
      }
    })) {
      ServerHarness.Response started = noProvider.post("/api/runs", ServerHarness.map("source", source));
      assertThat(started.status()).as(started.toString()).isEqualTo(201);
      JsonNode run = noProvider.awaitStatus(started.json().path("run_id").asText(), "completed");
      assertThat(run.path("output").isMissingNode() || run.path("output").isNull()).as(run.toString()).isFalse();
    }
  }

  private static boolean python3() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (java.io.IOException | InterruptedException e) {
      return false;
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"nope", "self-refine.yaml", "SELF-REFINE", "..%2F..%2Fpom", "%2e%2e", "%E2%80%AE",
      "self-refine%00", "a%20b"})
  void unknownTemplateIsNotFoundNamingTheTemplates(String encoded) {
    ServerHarness.Response r = h.get("/api/templates/" + encoded);
    assertThat(r.status()).as(r.body()).isIn(400, 404);
    assertThat(r.code()).isIn("template_not_found", "not_found", "bad_request");
    assertThat(r.body()).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("nodes:");
    if (r.status() == 404 && "template_not_found".equals(r.code())) {
      assertThat(r.json().path("error").path("message").asText()).contains("self-refine");
    }
  }

  @Test
  void hugeTemplateIdIsRefusedInOneLine() {
    String id = URLEncoder.encode("x".repeat(5000) + "\n<script>", StandardCharsets.UTF_8);
    ServerHarness.Response r = h.get("/api/templates/" + id);
    assertThat(r.status()).isIn(400, 404, 414, 431);
    if (r.body().startsWith("{")) {
      assertThat(r.json().path("error").path("message").asText()).doesNotContain("\n");
    }
  }

  @Test
  void catalogRoutesTakeOnlyGet() {
    ServerHarness.Response r = h.post("/api/node-kinds", Map.of());
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.code()).isEqualTo("method_not_allowed");
    r = h.put("/api/templates/self-refine", Map.of("source", "x"));
    assertThat(r.status()).isEqualTo(405);
  }

  private static void sameField(JsonNode j, FieldSpec f, String where) {
    assertThat(j.path("type").asText()).as(where).isEqualTo(f.type().name());
    assertThat(j.path("required").asBoolean()).as(where).isEqualTo(f.required());
    assertThat(j.path("aliases")).extracting(JsonNode::asText).as(where).containsExactlyElementsOf(f.aliases());
    assertThat(j.path("values")).extracting(JsonNode::asText).as(where).containsExactlyElementsOf(f.values());
    if (f.minimum() == null) {
      assertThat(j.path("minimum").isNull()).as(where).isTrue();
    } else {
      assertThat(j.path("minimum").asDouble()).as(where).isEqualTo(f.minimum().doubleValue());
    }
    if (f.maximum() == null) {
      assertThat(j.path("maximum").isNull()).as(where).isTrue();
    } else {
      assertThat(j.path("maximum").asDouble()).as(where).isEqualTo(f.maximum().doubleValue());
    }
    assertThat(j.path("description").isTextual()).as(where).isTrue();
    assertThat(names(j.path("fields"))).as(where)
        .containsExactlyElementsOf(f.fields().stream().map(FieldSpec::name).toList());
    for (FieldSpec sub : f.fields()) {
      sameField(field(j.path("fields"), sub.name()), sub, where + "." + sub.name());
    }
    if (f.items() == null) {
      assertThat(j.path("items").isNull()).as(where).isTrue();
    } else {
      sameField(j.path("items"), f.items(), where + "[]");
    }
    assertThat(j.path("alternatives").size()).as(where).isEqualTo(f.alternatives().size());
    for (int i = 0; i < f.alternatives().size(); i++) {
      sameField(j.path("alternatives").get(i), f.alternatives().get(i), where + "|" + i);
    }
  }

  private static JsonNode kind(JsonNode body, String kind) {
    for (JsonNode k : body.path("kinds")) {
      if (k.path("kind").asText().equals(kind)) {
        return k;
      }
    }
    throw new AssertionError("no kind " + kind);
  }

  private static JsonNode field(JsonNode fields, String name) {
    for (JsonNode f : fields) {
      if (f.path("name").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no field " + name + " in " + fields);
  }

  private static List<String> names(JsonNode fields) {
    List<String> out = new ArrayList<>();
    fields.forEach(f -> out.add(f.path("name").asText()));
    return out;
  }
}
