package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.model.Workflow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inputs a workflow does not declare are a usage error on one line; the help's examples pass declared ones. */
class CliInputsTest {
  @TempDir
  Path dir;

  @Test
  void undeclaredInputIsAUsageErrorOnOneLine_bugUndeclaredInputIgnored() {
    CliTest.Run r = CliTest.cli("run", "../examples/hello-shell.yaml", "--input", "name=Ada", "--quiet");

    assertThat(r.status()).isEqualTo(Main.USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("loopflow: unknown input 'name'; workflow 'hello-shell' declares sentence"
        + System.lineSeparator());
    assertThat(CliTest.cli("run", "../examples/hello-shell.yaml", "--input", "sentense=a b", "--quiet").err())
        .isEqualTo("loopflow: unknown input 'sentense' (did you mean 'sentence'?); workflow 'hello-shell' declares "
            + "sentence" + System.lineSeparator());
  }

  @Test
  void undeclaredInputInAnInputFileIsAUsageErrorToo() throws Exception {
    Path in = dir.resolve("in.json");
    Files.writeString(in, "{\"sentence\": \"a b\", \"extra\": 1}");

    CliTest.Run r = CliTest.cli("run", "../examples/hello-shell.yaml", "--input-file", in.toString(), "--quiet");

    assertThat(r.status()).isEqualTo(Main.USAGE);
    assertThat(r.err()).isEqualTo("loopflow: unknown input 'extra'; workflow 'hello-shell' declares sentence"
        + System.lineSeparator());
  }

  @Test
  void helpExamplesPassOnlyInputsTheirWorkflowsDeclare_bugHelpPassesNameToHelloShell() {
    Pattern example = Pattern.compile("loopflow run (\\S+\\.yaml)((?: --input \\S+)+)");
    List<String> checked = new ArrayList<>();
    for (String help : List.of(CliTest.cli("--help").out(), CliTest.cli("run", "--help").out())) {
      Matcher m = example.matcher(help);
      while (m.find()) {
        Path file = Path.of("..").resolve(m.group(1));
        Workflow wf = Loopflow.create().parse(readString(file), file.toString());
        for (String arg : m.group(2).trim().split(" --input ")) {
          String name = arg.replaceFirst("^--input ", "").split("=", 2)[0];
          assertThat(wf.inputs().isEmpty() || wf.inputs().containsKey(name))
              .as("help example '%s' passes --input %s, which %s does not declare", m.group(), name, file)
              .isTrue();
          checked.add(name);
        }
      }
    }
    assertThat(checked).as("the help shows run examples with inputs").isNotEmpty();
  }

  private static String readString(Path p) {
    try {
      return Files.readString(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
