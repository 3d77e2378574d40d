package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loopflow.cli.CliTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A paused step's form on the command line: show names its fields, show --json carries the schema, resume takes
 * {@code --values JSON} and {@code --value NAME=VALUE} typed by the form, and refuses a wrong answer with exit 2,
 * the run still paused.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FormAnswersCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String FORM = """
      name: release
      nodes:
        - id: ask
          approval: "Release?"
          schema:
            type: object
            required: [version]
            properties:
              version: {type: string, minLength: 1}
              replicas: {type: integer, minimum: 1}
              canary: {type: boolean}
              channel: {enum: [stable, beta]}
        - id: after
          depends_on: [ask]
          type: transform
          template: "{{ ask.values.version }} x{{ ask.values.replicas }} {{ ask.values.canary }} {{ ask.values.channel }}"
      """;

  @TempDir
  Path dir;
  String store;

  @BeforeEach
  void store() {
    store = "sqlite:" + dir.resolve("runs.db");
  }

  private String paused() throws Exception {
    Path wf = dir.resolve("release.yaml");
    Files.writeString(wf, FORM);
    Run run = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(run.status()).as(run.err()).isEqualTo(3);
    return JSON.readTree(run.out()).get("run_id").asText();
  }

  @Test
  void showNamesTheFormAndResumeTypesValuesByIt() throws Exception {
    String id = paused();
    JsonNode shown = JSON.readTree(cli("show", id, "--store", store, "--json").out());
    assertThat(shown.at("/waiting/schema/properties/replicas/type").asText()).isEqualTo("integer");
    assertThat(cli("show", id, "--store", store).out()).contains("form: version (string, required), replicas "
        + "(integer), canary (boolean), channel (one of stable|beta)");

    Run done = cli("resume", id, "--store", store, "--values", "{\"version\": \"1.0\"}", "--value", "replicas=3",
        "--value", "canary=true", "--value", "channel=beta", "--json", "--quiet");

    assertThat(done.status()).as(done.err()).isZero();
    assertThat(JSON.readTree(done.out()).get("output").asText()).isEqualTo("1.0 x3 true beta");
  }

  @Test
  void wrongValuesAreRefusedAndTheRunStaysPaused() throws Exception {
    String id = paused();
    String[][] wrong = {
        {"--approve"},
        {"--values", "{\"version\": 1}"},
        {"--values", "{\"version\": \"1\", \"extra\": true}"},
        {"--value", "version=1", "--value", "replicas=0"},
    };
    for (String[] args : wrong) {
      String[] all = new String[args.length + 4];
      all[0] = "resume";
      all[1] = id;
      all[2] = "--store";
      all[3] = store;
      System.arraycopy(args, 0, all, 4, args.length);
      Run r = cli(all);
      assertThat(r.status()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(2);
      assertThat(r.err()).contains("ask").contains("--value");
    }
    for (String[] args : new String[][] {{"--values", "[1]"}, {"--values", "{nope"}, {"--value", "replicas=many"},
        {"--value", "unknown=1"}, {"--value", "noequals"}}) {
      Run r = cli("resume", id, "--store", store, args[0], args[1]);
      assertThat(r.status()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(r.err()).startsWith("loopflow: ").doesNotContain("Exception");
    }
    assertThat(JSON.readTree(cli("show", id, "--store", store, "--json").out()).get("status").asText())
        .isEqualTo("paused");
  }

  @Test
  void theExampleAsksForItsFormAndTakesAJsonAnswer() throws Exception {
    Run asked = cli("run", "../examples/approval-form.yaml", "--store", store, "--quiet");
    assertThat(asked.status()).as(asked.err()).isEqualTo(3);
    assertThat(asked.err()).contains("--values JSON");
    Run json = cli("run", "../examples/approval-form.yaml", "--store", store, "--quiet", "--json");
    String id = JSON.readTree(json.out()).get("run_id").asText();
    assertThat(cli("show", id, "--store", store).out()).contains("form: version (string, required), channel "
        + "(one of stable|beta, required), replicas (integer)");

    Run answered = cli("run", "../examples/approval-form.yaml", "--store", store, "--quiet", "--answer",
        "{\"version\": \"v2.1.0\", \"channel\": \"stable\"}");
    assertThat(answered.status()).as(answered.err()).isZero();
    assertThat(answered.out()).contains("releasing checkout v2.1.0 to stable with 3 replicas");

    Run wrong = cli("run", "../examples/approval-form.yaml", "--store", store, "--quiet", "--answer",
        "{\"version\": \"2.1\", \"channel\": \"stable\"}");
    assertThat(wrong.status()).as(wrong.err()).isEqualTo(2);
    assertThat(wrong.err()).contains("--answer").contains("/version").contains("does not match");
  }
}
