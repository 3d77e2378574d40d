package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loopflow.cli.CliTest.Run;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every way a command can be given bad arguments or hit a failing environment ends in one line on stderr (plus
 * picocli's "Try ... --help" hint for a malformed command line), the documented exit status (2 usage, 1 runtime
 * failure), and never a Java stack trace unless {@code --debug} asks for it.
 */
class CliErrorsTest {
  @TempDir
  static Path dir;

  static Path hello;
  static Path store;

  @BeforeAll
  static void files() throws Exception {
    hello = Path.of("../examples/hello-shell.yaml");
    store = dir.resolve("runs.db");
    Files.writeString(dir.resolve("bad.json"), "{\"sentence\": ");
    Files.writeString(dir.resolve("bad-deep.json"), "{\n  \"a\": 1,\n  \"b\": [1, 2,,]\n}\n");
    Files.writeString(dir.resolve("empty.json"), "");
    Files.writeString(dir.resolve("array.json"), "[1, 2]");
    Files.writeString(dir.resolve("trailing.json"), "{\"sentence\": \"x\"} {\"sentence\": \"y\"}");
    Files.writeString(dir.resolve("dup.json"), "{\"sentence\": \"x\", \"sentence\": \"y\"}");
    Files.write(dir.resolve("latin1.json"), new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xE9, '"', '}'});
    Files.writeString(dir.resolve("plain-file"), "not a directory");
    Files.createDirectories(dir.resolve("a-directory"));
    try (var f = new java.io.RandomAccessFile(dir.resolve("huge.json").toFile(), "rw")) {
      f.setLength(Support.MAX_INPUT_FILE_BYTES + 1); // sparse: no disk used
    }
    Files.writeString(dir.resolve("deep.yaml"), "nodes:\n  - id: a\n    type: transform\n    template: \"{{ "
        + "(".repeat(800) + "1" + ")".repeat(800) + " }}\"\n");
    Files.writeString(dir.resolve("weird-problem.yaml"), "nodes:\n  - id: a\n    bash: echo\n    \"x\\ny\\u001b[2J\": 1\n");
  }

  /** A case: the arguments, the exit status, and a fragment the one line must contain. */
  static Arguments bad(int status, String expected, String... args) {
    return Arguments.of(String.join(" ", args).replace("\n", "\\n"), List.of(args), status, expected);
  }

  static Stream<Arguments> corpus() {
    String d = dir.toString();
    String s = "sqlite:" + store;
    String h = hello.toString();
    List<Arguments> c = new ArrayList<>();
    // Workflow files that are not workflow files.
    c.add(bad(2, "is a directory", "run", d, "--store", s));
    c.add(bad(2, "is a directory", "validate", d));
    c.add(bad(2, "is a directory", "graph", d));
    c.add(bad(2, "no such file", "run", d + "/missing.yaml", "--store", s));
    c.add(bad(2, "no such file", "run", d + "/line\nbreak.yaml", "--store", s));
    c.add(bad(2, "not a regular file", "validate", "/dev/null"));
    // --input and --input-file.
    c.add(bad(2, "input file not found: " + d + "/missing.json", "run", h, "--store", s, "--input-file",
        d + "/missing.json"));
    c.add(bad(2, "input file is a directory: " + d, "run", h, "--store", s, "--input-file", d));
    c.add(bad(2, d + "/bad.json:1:14: invalid JSON: ", "run", h, "--store", s, "--input-file", d + "/bad.json"));
    c.add(bad(2, d + "/bad-deep.json:3:14: invalid JSON: ", "run", h, "--store", s, "--input-file",
        d + "/bad-deep.json"));
    c.add(bad(2, d + "/empty.json:1:1: invalid JSON: the file is empty", "run", h, "--store", s, "--input-file",
        d + "/empty.json"));
    c.add(bad(2, d + "/trailing.json:1:", "run", h, "--store", s, "--input-file", d + "/trailing.json"));
    c.add(bad(2, d + "/dup.json:1:", "run", h, "--store", s, "--input-file", d + "/dup.json"));
    c.add(bad(2, d + "/latin1.json:1:", "run", h, "--store", s, "--input-file", d + "/latin1.json"));
    c.add(bad(2, "must hold a JSON object, found an array", "run", h, "--store", s, "--input-file",
        d + "/array.json"));
    c.add(bad(2, "--input expects NAME=VALUE", "run", h, "--store", s, "--input", "sentence"));
    c.add(bad(2, "--input expects NAME=VALUE, got 'a\\nb'", "run", h, "--store", s, "--input", "a\nb"));
    // --events-jsonl.
    c.add(bad(2, "--events-jsonl /nonexistent/dir/x: directory /nonexistent/dir does not exist", "run", h,
        "--store", s, "--events-jsonl", "/nonexistent/dir/x"));
    c.add(bad(2, "--events-jsonl " + d + ": is a directory", "run", h, "--store", s, "--events-jsonl", d));
    c.add(bad(2, "is not a directory", "run", h, "--store", s, "--events-jsonl", d + "/plain-file/events.jsonl"));
    // Stores: a URL that names no store is a usage error; a store that cannot be opened is a runtime failure.
    c.add(bad(2, "--store: unsupported store URL 'bogus://x'", "run", h, "--store", "bogus://x"));
    c.add(bad(2, "--store: sqlite store URL has no file path", "runs", "--store", "sqlite:"));
    c.add(bad(2, "unknown parameter 'mode'", "show", "x", "--store", "sqlite:" + d + "/r.db?mode=1"));
    c.add(bad(1, "cannot open the run store 'sqlite:" + d + "'", "runs", "--store", "sqlite:" + d));
    c.add(bad(1, d + "/plain-file: already exists", "runs", "--store", "sqlite:" + d + "/plain-file/r.db"));
    c.add(bad(1, "cannot open the run store 'postgresql://nobody@127.0.0.1:1/db'", "runs", "--store",
        "postgresql://nobody@127.0.0.1:1/db"));
    // Run ids.
    c.add(bad(2, "no run 'run_0000000000000000'", "show", "run_0000000000000000", "--store", s));
    c.add(bad(2, "no run 'nope'", "events", "nope", "--store", s));
    c.add(bad(2, "no run 'nope'", "cancel", "nope", "--store", s));
    c.add(bad(2, "no run 'nope'", "resume", "nope", "--store", s));
    c.add(bad(2, "'a\\nb' is not a run id", "show", "a\nb", "--store", s));
    c.add(bad(2, "'\\u001b[2J' is not a run id", "events", "\u001b[2J", "--store", s));
    c.add(bad(2, "'' is not a run id", "cancel", "", "--store", s));
    c.add(bad(2, "--run-id must be", "run", h, "--store", s, "--run-id", "../../etc/passwd"));
    // Malformed command lines (picocli's own checks).
    c.add(bad(2, "Unmatched argument", "bogus"));
    c.add(bad(2, "Unknown option: '--bogus'", "run", h, "--bogus"));
    c.add(bad(2, "Missing required parameter", "run"));
    c.add(bad(2, "'x' is not an int", "runs", "--limit", "x"));
    c.add(bad(2, "--status bogus", "runs", "--status", "bogus", "--store", s));
    c.add(bad(2, "--limit must be at least 1, was -3", "runs", "--limit", "-3", "--store", s));
    c.add(bad(2, "input file is not a regular file: /dev/zero", "run", h, "--store", s, "--input-file", "/dev/zero"));
    c.add(bad(2, "is larger than 64 MiB", "run", h, "--store", s, "--input-file", d + "/huge.json"));
    c.add(bad(2, "expected one of", "graph", h, "--format", "png"));
    return c.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void everyBadCaseIsOneLineWithItsExitStatusAndNoStackTrace(String name, List<String> args, int status,
      String expected) {
    Run r = cli(args.toArray(String[]::new));
    assertThat(r.status()).as("exit status; stderr: %s", r.err()).isEqualTo(status);
    assertOneLine(r.err(), expected);
    assertThat(r.out()).as("nothing on stdout").isEmpty();
  }

  /** One line (and at most picocli's hint), containing {@code expected}, with no trace and no class names. */
  static void assertOneLine(String err, String expected) {
    List<String> lines = err.lines().toList();
    assertThat(lines).as(err).isNotEmpty();
    assertThat(lines.size() == 1 || lines.size() == 2 && lines.get(1).startsWith("Try 'loopflow"))
        .as("one line, or one line and the --help hint: %s", err).isTrue();
    assertThat(lines.get(0)).contains(expected);
    assertThat(err).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("java.")
        .doesNotContain("\u001b");
  }

  @Test
  void eventsJsonlInAMissingDirectoryIsOneLine_bugStackTraceForEventsFile() {
    Run r = cli("run", hello.toString(), "--store", "sqlite:" + store, "--events-jsonl", "/nonexistent/dir/x");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).isEqualTo(
        "loopflow: --events-jsonl /nonexistent/dir/x: directory /nonexistent/dir does not exist\n");
  }

  @Test
  void aDirectoryGivenAsTheWorkflowFileIsCalledADirectory_bugDirectoryReportedAsNoSuchFile() {
    Run r = cli("validate", dir.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).isEqualTo(dir + ": is a directory, not a file\n");
  }

  @Test
  void aMissingInputFileIsNamedAsSuch_bugMissingInputFilePrintedOnlyItsPath() {
    Run r = cli("run", hello.toString(), "--store", "sqlite:" + store, "--input-file", dir + "/none.json");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("loopflow: input file not found: " + dir + "/none.json\n");
  }

  @Test
  void invalidJsonInTheInputFileNamesTheFileLineAndColumn_bugBadJsonDidNotNameTheFile() {
    Run r = cli("run", hello.toString(), "--store", "sqlite:" + store, "--input-file", dir + "/bad-deep.json");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("loopflow: " + dir + "/bad-deep.json:3:14: invalid JSON: Unexpected character")
        .endsWith("\n").hasLineCount(1);
  }

  @Test
  void anExpressionNestedTooDeeplyIsALoadErrorAtItsPosition() {
    Run r = cli("validate", dir.resolve("deep.yaml").toString());
    assertThat(r.status()).isEqualTo(2);
    List<String> lines = r.err().lines().toList();
    assertThat(lines).as(r.err()).hasSize(2);
    assertThat(lines.get(0)).startsWith(dir.resolve("deep.yaml") + ":4:15: nodes.a.template: ")
        .contains("nests brackets more than 100 levels deep");
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("java.");
  }

  @CommandLine.Command(name = "deep")
  static final class Deep implements Runnable {
    @Override
    public void run() {
      throw new StackOverflowError();
    }
  }

  @Test
  void aStackOverflowAnywhereElseIsOneLine() {
    CommandLine cl = new CommandLine(new Deep());
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    Errors.install(cl);
    assertThat(cl.execute()).isEqualTo(1);
    assertOneLine(err.toString(), "loopflow: error: stack overflow: the workflow or its input is nested too deeply");
  }

  @CommandLine.Command(name = "greedy")
  static final class Greedy implements Runnable {
    @Override
    public void run() {
      throw new OutOfMemoryError("Java heap space");
    }
  }

  @Test
  void runningOutOfMemoryIsOneLine_bugOutOfMemoryErrorPrintedAStackTrace() {
    CommandLine cl = new CommandLine(new Greedy());
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    Errors.install(cl);
    assertThat(cl.execute()).isEqualTo(1);
    assertOneLine(err.toString(), "loopflow: error: out of memory: the run needed more heap than the JVM has"
        + " (give it more, e.g. JDK_JAVA_OPTIONS=-Xmx2g)");
  }

  @Test
  void everyProblemOfAWorkflowFileIsOneLineEvenWithControlCharacters() {
    Run r = cli("validate", dir.resolve("weird-problem.yaml").toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).doesNotContain("\u001b").hasLineCount(2).contains("x\\ny\\u001b[2J");
  }

  @Test
  void aFailedRunsMessageIsOneLineWithoutTerminalControlCodes() throws Exception {
    Path wf = dir.resolve("fails.yaml");
    Files.writeString(wf, "nodes:\n  - id: boom\n    bash: \"printf 'first\\\\nsecond\\\\033[2J' >&2; exit 3\"\n");
    Run r = cli("run", wf.toString(), "--store", "sqlite:" + store, "--quiet");
    assertThat(r.status()).isEqualTo(1);
    String line = r.err().lines().filter(l -> l.startsWith("loopflow: run failed")).findFirst().orElseThrow();
    assertThat(line).contains("in node 'boom'").contains("first\\nsecond\\u001b[2J");
    assertThat(r.err()).doesNotContain("\u001b");
  }

  @Test
  void debugPrintsTheStackTraceAfterTheLine() {
    for (List<String> args : List.of(
        List.of("--debug", "run", hello.toString(), "--events-jsonl", "/nonexistent/dir/x"),
        List.of("run", hello.toString(), "--events-jsonl", "/nonexistent/dir/x", "--debug"))) {
      List<String> argv = new ArrayList<>(args);
      argv.addAll(List.of("--store", "sqlite:" + store));
      Run r = cli(argv.toArray(String[]::new));
      assertThat(r.status()).isEqualTo(2);
      assertThat(r.err().lines().findFirst().orElseThrow())
          .isEqualTo("loopflow: --events-jsonl /nonexistent/dir/x: directory /nonexistent/dir does not exist");
      // a frame of the CLI; on the module path a frame names its module: "at dev.loopflow.cli@VERSION/..."
      assertThat(r.err()).containsPattern("\tat (dev\\.loopflow\\.cli@[^/]+/)?dev\\.loopflow\\.cli\\.");
    }
  }

  @Test
  void eventsFileThatCannotBeWrittenFailsTheCommandAfterTheRun() {
    assumeTrue(Files.exists(Path.of("/dev/full")), "needs /dev/full");
    Run r = cli("run", hello.toString(), "--store", "sqlite:" + store, "--quiet", "--events-jsonl", "/dev/full");
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err()).startsWith("loopflow: --events-jsonl /dev/full: writing failed (")
        .contains("the file is incomplete").hasLineCount(1).doesNotContain("Exception");
  }

  @Test
  void aLoopflowHomeThatCannotHoldTheStoreIsARuntimeFailure() throws Exception {
    String old = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", dir.resolve("plain-file").resolve("home").toString());
    try {
      Run r = cli("runs");
      assertThat(r.status()).isEqualTo(1);
      assertOneLine(r.err(), "cannot open the run store 'sqlite:" + dir + "/plain-file/home/loopflow.db'");
    } finally {
      System.setProperty("loopflow.home", old);
    }
  }

  @Test
  void anUnexpectedExceptionIsOneLineWithTheDebugHint() {
    StringWriter err = new StringWriter();
    int status = Errors.report(new IllegalStateException("the widget broke"), new PrintWriter(err), false);
    assertThat(status).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("loopflow: error: the widget broke (use --debug for details)\n");

    StringWriter noMessage = new StringWriter();
    Errors.report(new NullPointerException(), new PrintWriter(noMessage), false);
    assertThat(noMessage.toString()).isEqualTo("loopflow: error: unexpected internal error (use --debug for details)\n");

    StringWriter io = new StringWriter();
    Errors.report(new java.io.UncheckedIOException(new java.nio.file.AccessDeniedException("/x/y")),
        new PrintWriter(io), false);
    assertThat(io.toString()).isEqualTo("loopflow: error: /x/y: permission denied (use --debug for details)\n");

    StringWriter multi = new StringWriter();
    Errors.report(new RuntimeException("first\nsecond\u001b[31m"), new PrintWriter(multi), false);
    assertThat(multi.toString()).hasLineCount(1).contains("first\\nsecond\\u001b[31m");

    StringWriter debug = new StringWriter();
    Errors.report(new IllegalStateException("the widget broke"), new PrintWriter(debug), true);
    assertThat(debug.toString()).startsWith("loopflow: error: the widget broke (use --debug for details)\n")
        .contains("java.lang.IllegalStateException: the widget broke").contains("\tat ");
  }

  @Test
  void noCommandPrintsTheUsageWithoutATrace() {
    Run r = cli();
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("Usage: loopflow").doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void validInputFileStillWorks() throws Exception {
    Path ok = dir.resolve("ok.json");
    Files.writeString(ok, "{\"sentence\": \"one two\"}", StandardCharsets.UTF_8);
    Run r = cli("run", hello.toString(), "--store", "sqlite:" + store, "--quiet", "--input-file", ok.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out().strip()).isEqualTo("short sentence (2 words)");
  }
}
