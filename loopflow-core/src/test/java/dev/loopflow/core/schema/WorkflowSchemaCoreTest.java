package dev.loopflow.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.expr.JsonSchemas;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import dev.loopflow.core.time.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The schema as the core alone generates it: handlers describe exactly the fields they accept, a handler that only
 * names its fields still gets a usable description, kinds of modules that are not installed are not offered, and
 * the patterns the schema uses read exactly what the loader reads. (The full schema, with the LLM module's kinds,
 * is tested against the examples and a corpus in that module.)
 */
class WorkflowSchemaCoreTest {
  private static final Vocabulary VOCABULARY = Loopflow.create().schema().vocabulary();

  /** The schema of the loader's format with the kinds of {@code handlers}, as an engine with them makes it. */
  private static WorkflowSchema schemaOf(Collection<NodeHandler> handlers) {
    Map<String, Set<String>> results = new HashMap<>();
    handlers.forEach(h -> {
      if (h.resultFields() != null) {
        results.put(h.kind(), h.resultFields());
      }
    });
    return new WorkflowSchema(VOCABULARY, handlers.stream().map(NodeHandler::spec).toList(),
        results);
  }

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static List<String> problems(Map<String, Object> schema, String yaml) throws IOException {
    return JsonSchemas.compile(schema).validate(YAML.readValue(yaml, Object.class));
  }

  @Test
  void everyBuiltInHandlerDescribesExactlyTheFieldsItAccepts() {
    Map<String, NodeHandler> handlers = Loopflow.create().handlers();
    assertThat(handlers).isNotEmpty();
    for (NodeHandler h : handlers.values()) {
      assertThat(h.spec().fieldNames()).as(h.kind()).isEqualTo(h.fields());
      assertThat(h.spec().kind()).isEqualTo(h.kind());
      assertThat(h.spec().fields()).as(h.kind()).allSatisfy(f -> assertThat(f.description()).isNotBlank());
    }
  }

  @Test
  void everyFieldTheLoaderReadsIsDescribed() {
    for (NodeKindSpec k : Loopflow.create().schema().nodeKinds()) {
      assertThat(k.fields()).as(k.kind()).allSatisfy(f -> assertThat(f.description()).as(f.name()).isNotBlank());
      assertThat(k.description()).as(k.kind()).isNotBlank();
    }
    assertThat(Loopflow.create().schema().topLevelFields()).allSatisfy(f -> assertThat(f.description()).isNotBlank());
    assertThat(Loopflow.create().schema().commonNodeFields()).allSatisfy(f -> assertThat(f.description()).isNotBlank());
  }

  /** A handler that gives only its fields' names (as FieldSpec.any) and nothing more. */
  private static final class Named implements NodeHandler {
    @Override
    public NodeKindSpec spec() {
      return NodeKindSpec.of("notify", null, List.of(FieldSpec.any("channel", null), FieldSpec.any("text", null)));
    }

    @Override
    public NodeProgram compile(NodeConfig cfg) {
      return ctx -> NodeOutcome.of("sent");
    }
  }

  @Test
  void aHandlerThatOnlyNamesItsFieldsGetsThemDescribedAsAnything() throws IOException {
    Named h = new Named();
    assertThat(h.spec().fields()).extracting(FieldSpec::name, FieldSpec::type)
        .containsExactly(tuple("channel", FieldSpec.Type.ANY),
            tuple("text", FieldSpec.Type.ANY));
    Map<String, Object> schema = schemaOf(List.of(h)).json();

    assertThat(problems(schema, "nodes: [{id: a, type: notify, channel: [1], text: {x: 1}}]")).isEmpty();
    assertThat(problems(schema, "nodes: [{id: a, type: notify, chanel: ops}]")).isNotEmpty();
    assertThat(problems(schema, "nodes: [{id: a, type: shell, command: echo}]")).as("shell is not installed")
        .isNotEmpty();
  }

  @Test
  void kindsOfModulesThatAreNotInstalledAreNotOffered() throws IOException {
    Map<String, Object> schema = Loopflow.create().schema().json();
    String llm = "nodes: [{id: a, prompt: hi, model: 'mock:m'}]";

    assertThat(problems(schema, llm)).isNotEmpty();
    assertThat(catchLoad(llm)).isNotNull();
    assertThat(problems(schema, "nodes: [{id: a, bash: echo hi}]")).isEmpty();
  }

  private static WorkflowInvalidException catchLoad(String yaml) {
    try {
      Loopflow.create().parse(yaml, "t.yaml");
      return null;
    } catch (WorkflowInvalidException e) {
      return e;
    }
  }

  /** The duration pattern of the schema reads what {@code Durations} reads: valid durations and garbage alike. */
  @ParameterizedTest(name = "''{0}''")
  @ValueSource(strings = {"30s", "5m", "1h", "1h30m", "500ms", "2.5s", "10", "0.5", "1d", "1H30M", " 30s ",
      "1 h 30 m", "1h1h", "MS", "1.5ms", "90", "s", "m30", "1hour", "30 seconds", "1,5s", "-5s", "+5s", "5.s", ".5s",
      "1e3", "", " ", "30S", "1m1", "1x", "10ms10s", "٣s", "30s\n", "1h 30m 10s 500ms"})
  void theDurationPatternReadsWhatTheLoaderReads(String text) {
    Duration d = Durations.parse(text);
    boolean loader = d != null;
    boolean schema = Pattern.compile(SchemaWriter.durationPattern()).matcher(text).find();

    assertThat(schema).as("pattern %s on '%s' (loader reads %s)", SchemaWriter.durationPattern(), text, d)
        .isEqualTo(loader);
  }

  @Test
  void theSchemaIsTheSameEveryTime() {
    List<NodeHandler> handlers = List.copyOf(Loopflow.create().handlers().values());
    assertThat(schemaOf(handlers).text()).isEqualTo(schemaOf(List.copyOf(handlers).reversed()).text())
        .endsWith("}\n").doesNotContain("\r");
  }
}
