package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * A command line made for one subcommand builds only that subcommand's model, and behaves exactly like the one with
 * every subcommand: same output, same errors, same exit status.
 */
class CommandModelTest {
  private static final List<String> NAMES = Main.COMMANDS.stream()
      .map(c -> c.getAnnotation(Command.class).name()).toList();

  @Test
  void aCommandLineForOneSubcommandBuildsOnlyThatOne() {
    for (String name : NAMES) {
      if (name.equals("help")) {
        continue;
      }
      assertThat(Main.commandLine(name, "x").getSubcommands().keySet()).as(name).containsExactly(name);
      assertThat(Main.commandLine("--debug", name).getSubcommands().keySet()).as(name).containsExactly(name);
    }
  }

  @Test
  void everythingElseGetsEverySubcommandInHelpOrder() {
    for (String[] args : List.of(new String[0], new String[] {"--help"}, new String[] {"-h"}, new String[] {"help"},
        new String[] {"help", "run"}, new String[] {"--version"}, new String[] {"rnu"}, new String[] {"RUN"},
        new String[] {"@args.txt"}, new String[] {"--debug"}, new String[] {"--debug=true", "run"},
        new String[] {"-x", "run"}, new String[] {"--", "run"})) {
      assertThat(Main.commandLine(args).getSubcommands().keySet()).as(String.join(" ", args))
          .containsExactlyElementsOf(NAMES);
    }
  }

  static Stream<List<String>> argumentLists() {
    List<List<String>> out = new ArrayList<>();
    for (String name : NAMES) {
      out.add(List.of(name, "--help"));
      out.add(List.of(name, "-h"));
      out.add(List.of("--debug", name, "--help"));
      out.add(List.of(name, "--debug", "--help"));
      out.add(List.of(name, "--no-such-option"));
      out.add(List.of("--debug", name, "--no-such-option"));
      out.add(List.of(name, "--store"));
      out.add(List.of(name, "--help", "--no-such-option"));
      out.add(List.of(name, "-V"));
    }
    // Commands with required arguments, given none or one that cannot be a run id.
    for (String name : List.of("run", "resume", "cancel", "signal", "show", "events", "validate", "graph")) {
      out.add(List.of(name));
    }
    for (String name : List.of("resume", "cancel", "show", "events")) {
      out.add(List.of(name, "bad\nid"));
      out.add(List.of("--debug", name, ""));
    }
    out.add(List.of("run", "no-such-file.yaml", "--quiet"));
    out.add(List.of("validate", "no-such-file.yaml"));
    out.add(List.of("graph", "no-such-file.yaml", "--format", "nonsense"));
    out.add(List.of("help", "run"));
    out.add(List.of("run", "help"));
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("argumentLists")
  void oneSubcommandsModelBehavesLikeTheWholeOne(List<String> args) {
    String[] a = args.toArray(String[]::new);
    assertThat(execute(Main.commandLine(a), a)).isEqualTo(execute(Main.commandLine(), a));
  }

  private static List<Object> execute(CommandLine cl, String[] args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int status = cl.execute(args);
    // Stack traces (--debug) name the lines they passed through, which differ between the two; the rest must not.
    return List.of(status, out.toString(), err.toString().replaceAll("(?m)^\\s+at .*$", "at"));
  }
}
