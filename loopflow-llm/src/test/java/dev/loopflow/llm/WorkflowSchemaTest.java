package dev.loopflow.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.schema.WorkflowSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JSON Schema of the workflow format, with every kind this product ships (the core's and the LLM module's):
 * the checked-in copy under docs/schema is the generated one, every example validates against it, and a corpus of
 * files, each valid or wrong in one way, gets the same verdict from the schema as from the loader.
 */
class WorkflowSchemaTest {
  static final Path FILE = Path.of("../docs/schema/loopflow-workflow.schema.json");
  static final Loopflow ENGINE = Loopflow.create();
  static final JsonSchemas.Compiled SCHEMA = JsonSchemas.compile(ENGINE.schema().json());
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static Object yaml(String text) {
    try {
      return YAML.readValue(text, Object.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void theCheckedInSchemaIsTheGeneratedOne() throws IOException {
    String generated = ENGINE.schema().text();
    if (Boolean.getBoolean("loopflow.schema.write")) {
      Files.createDirectories(FILE.getParent());
      Files.writeString(FILE, generated, StandardCharsets.UTF_8);
    }
    assertThat(Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "")
        .as("%s is not the schema the loader's tables describe; regenerate it with%n"
            + "  mvn -B -q -pl loopflow-llm -am test -Dtest=WorkflowSchemaTest -Dsurefire.failIfNoSpecifiedTests=false "
            + "-Dloopflow.schema.write=true%nand commit the file", FILE.normalize())
        .isEqualTo(generated);
  }

  @Test
  void everyInstalledHandlerDescribesExactlyTheFieldsItAccepts() {
    assertThat(ENGINE.handlers()).containsKeys("llm", "agent", "shell");
    ENGINE.handlers().values().forEach(h -> {
      assertThat(h.spec().fieldNames()).as(h.kind()).isEqualTo(h.fields());
      assertThat(h.spec().fields()).as(h.kind()).allSatisfy(f -> assertThat(f.description()).isNotBlank());
    });
    assertThat(dev.loopflow.core.Loopflow.create().workflowSchema()).as("what this module's engine finds").isEqualTo(ENGINE.workflowSchema())
        .isEqualTo(ENGINE.schema().json());
  }

  static List<Path> examples() throws IOException {
    try (Stream<Path> s = Files.list(Path.of("../examples"))) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void everyExampleIsValid(Path example) throws IOException {
    assertThat(SCHEMA.validate(yaml(Files.readString(example)))).as(example.toString()).isEmpty();
  }

  static List<String> corpus() {
    return new ArrayList<>(SchemaCorpus.CASES.keySet());
  }

  /**
   * Each case's verdict is the same from the schema and from the loader, and it is the one the case states: the
   * schema describes the format the loader reads, no more and no less, for what a schema can say.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void schemaAndLoaderAgree(String name) {
    SchemaCorpus.Case c = SchemaCorpus.CASES.get(name);
    List<String> schemaProblems = SCHEMA.validate(yaml(c.yaml()));
    List<String> loaderProblems = loaderProblems(c.yaml());

    assertThat(schemaProblems.isEmpty()).as("schema on %s: %s%n%s", name, schemaProblems, c.yaml())
        .isEqualTo(c.valid());
    assertThat(loaderProblems.isEmpty()).as("loader on %s: %s%n%s", name, loaderProblems, c.yaml())
        .isEqualTo(c.valid());
  }

  /** The differences docs/editors.md lists, each as it says: the schema is the stricter, save where noted. */
  @Test
  void theDocumentedDifferencesAreAsDocumented() {
    String empty = "nodes: [{id: a, bash: echo, timeout: ~}]";
    assertThat(SCHEMA.validate(yaml(empty))).isNotEmpty();
    assertThat(loaderProblems(empty)).isEmpty();

    String decimal = """
        nodes:
          - {name: w, type: while_loop, max_iterations: 3.0, condition: "false", body: [{name: b, run: "return {}"}]}
        """;
    assertThat(SCHEMA.validate(yaml(decimal))).isEmpty();
    assertThat(loaderProblems(decimal)).singleElement().asString().contains("must be a whole number");

    String twice = """
        nodes:
          - id: g
            max_iterations: 2
            loop_group: {max_iterations: 2, nodes: [{id: b, type: transform, template: x}]}
        """;
    assertThat(SCHEMA.validate(yaml(twice))).isEmpty();
    assertThat(loaderProblems(twice)).singleElement().asString().contains("is given both here and on the node");
  }

  static List<String> loaderProblems(String yaml) {
    try {
      ENGINE.parse(yaml, "t.yaml");
      return List.of();
    } catch (WorkflowInvalidException e) {
      return e.problems().stream().map(dev.loopflow.core.error.Problem::format).toList();
    }
  }
}
