package dev.loopflow.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.sandbox.ProcessSandbox;
import dev.loopflow.core.sandbox.SandboxMode;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.llm.MockScripts;
import dev.loopflow.observability.Observability;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the commands share about files and options: loading a workflow (every problem printed, exit status 2),
 * reading {@code --input-file}, the mock options, and which strings can be run ids.
 */
final class Support {
  private Support() {}

  /**
   * Whether {@code id} can name a run at all: runs started from the Java API may have any non-empty id, but none
   * has a blank one or one with control characters (line breaks, escapes), which only a typo or hostile input gives.
   */
  static boolean isRunId(String id) {
    return !id.isBlank() && id.length() <= 256 && id.chars().noneMatch(Character::isISOControl);
  }

  /** The workflow, or null after printing its problems. */
  static Workflow load(Loopflow engine, Path file, PrintWriter err) {
    String problem = unreadable(file);
    if (problem != null) {
      err.println(Errors.oneLine(file + ": " + problem));
      return null;
    }
    try {
      return engine.load(file);
    } catch (WorkflowInvalidException e) {
      // also a read error after the checks above (the file vanished, an I/O error): a problem of the file
      for (Problem p : e.problems()) {
        err.println(Errors.oneLine(p.format()));
      }
      err.println(Errors.oneLine(file + ": " + e.problems().size() + (e.problems().size() == 1 ? " problem"
          : " problems")));
      return null;
    }
  }

  /** The environment variable that sets {@code --sandbox} for every command that runs workflows. */
  static final String SANDBOX_ENV = "LOOPFLOW_SANDBOX";

  /** The help text of {@code --sandbox}, the same on every command that takes it. */
  static final String SANDBOX_HELP = "auto (default): contain process nodes with bubblewrap where it works, else "
      + "say so once and run them uncontained; required: refuse to start a process node that cannot be contained; "
      + "off: contain nothing (also: " + SANDBOX_ENV + ").";

  /**
   * Applies {@code --sandbox} (else {@code LOOPFLOW_SANDBOX}, else auto) and hides loopflow's home and the store's
   * files from contained processes. In auto mode on a machine where bubblewrap does not work, says on stderr that
   * process nodes run uncontained (each command calls this once: a server or worker says it when it starts, not per
   * run). False (the problem printed) when the mode is not one.
   */
  static boolean sandbox(RunOptions.Builder opts, String flag, Map<String, String> env,
      RunStore store, PrintWriter err) {
    String v = flag != null ? flag : env.get(SANDBOX_ENV);
    SandboxMode mode;
    try {
      mode = v == null || flag == null && v.isBlank() ? SandboxMode.AUTO
          : SandboxMode.of(v);
    } catch (IllegalArgumentException e) {
      err.println(Errors.oneLine("loopflow: " + (flag != null ? "--sandbox" : SANDBOX_ENV) + " must be auto, "
          + "required or off, was '" + v + "'"));
      return false;
    }
    opts.option(RunOptions.SANDBOX_MODE, mode.label());
    List<String> hidden = new ArrayList<>();
    hidden.add(Stores.home().toAbsolutePath().toString());
    if (store != null) {
      store.localFiles().forEach(p -> hidden.add(p.toAbsolutePath().toString()));
    }
    opts.option(RunOptions.SANDBOX_HIDDEN_PATHS, hidden);
    if (mode == SandboxMode.AUTO) {
      ProcessSandbox.Availability a = ProcessSandbox.availability();
      if (!a.available()) {
        err.println(Errors.oneLine("loopflow: process nodes run uncontained: bubblewrap does not work here ("
            + a.reason() + "); install bubblewrap, or pass --sandbox off to run them so without this notice or "
            + "--sandbox required to refuse them"));
        err.flush();
      }
    }
    return true;
  }

  /** The environment variable that turns {@code --http-deny-private} on for every run and resume. */
  static final String HTTP_DENY_PRIVATE_ENV = "LOOPFLOW_HTTP_DENY_PRIVATE";

  /**
   * Applies {@code --http-deny-private}, or {@code LOOPFLOW_HTTP_DENY_PRIVATE} set to 1 or true: http nodes refuse
   * private addresses. False after printing why when the variable holds anything else (0, false and empty: off).
   */
  static boolean httpPolicy(RunOptions.Builder opts, boolean flag,
      Map<String, String> env, PrintWriter err) {
    String v = env.get(HTTP_DENY_PRIVATE_ENV);
    String value = v == null ? "" : v.strip().toLowerCase(Locale.ROOT);
    if (!Set.of("", "0", "1", "false", "true").contains(value)) {
      err.println("loopflow: " + HTTP_DENY_PRIVATE_ENV + " must be 1, true, 0 or false, was '" + v + "'");
      return false;
    }
    if (flag || value.equals("1") || value.equals("true")) {
      opts.option(RunOptions.HTTP_DENY_PRIVATE, true);
    }
    return true;
  }

  /** Inputs are read into memory whole; a bigger file is a mistake, not a workload. */
  static final long MAX_INPUT_FILE_BYTES = 64L << 20;

  private static final ObjectMapper STRICT_JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  /**
   * The inputs in an {@code --input-file}: a JSON object. Text after it and duplicate keys are errors (either would
   * silently drop part of what the file says). Every problem is a usage error naming the file, with
   * {@code PATH:line:col} for invalid JSON.
   */
  static Map<String, Object> inputFile(Path file) {
    if (Files.isDirectory(file)) {
      throw CliError.usage("input file is a directory: " + file);
    }
    if (!Files.exists(file)) {
      throw CliError.usage("input file not found: " + file);
    }
    if (!Files.isRegularFile(file)) {
      throw CliError.usage("input file is not a regular file: " + file);
    }
    Object parsed;
    try {
      if (Files.size(file) > MAX_INPUT_FILE_BYTES) {
        throw CliError.usage("input file " + file + " is larger than " + (MAX_INPUT_FILE_BYTES >> 20) + " MiB");
      }
      byte[] bytes = Files.readAllBytes(file);
      if (bytes.length == 0) {
        throw CliError.usage(file + ":1:1: invalid JSON: the file is empty");
      }
      try (JsonParser p = STRICT_JSON.createParser(bytes)) {
        parsed = STRICT_JSON.readValue(p, Object.class);
        if (p.nextToken() != null) {
          throw CliError.usage(at(file, p.currentTokenLocation()) + "invalid JSON: text after the JSON value");
        }
      }
    } catch (JsonProcessingException e) {
      throw CliError.usage(at(file, e.getLocation()) + "invalid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw CliError.usage("input file " + file + ": " + Errors.describe(e), e);
    }
    if (!(parsed instanceof Map<?, ?> m)) {
      throw CliError.usage(file + ": the input file must hold a JSON object, found "
          + (parsed instanceof List ? "an array" : parsed == null ? "null" : "a single value"));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    m.forEach((k, v) -> out.put(String.valueOf(k), v));
    return out;
  }

  private static String at(Path file, JsonLocation at) {
    return file + ":" + (at == null ? 1 : Math.max(1, at.getLineNr())) + ":"
        + (at == null ? 1 : Math.max(1, at.getColumnNr())) + ": ";
  }

  /**
   * Why {@code file} cannot be read as a file the user named, or null when it can: missing, a directory, not a
   * regular file (a FIFO would block the command; a device is never a workflow), or unreadable.
   */
  static String unreadable(Path file) {
    if (Files.isDirectory(file)) {
      return "is a directory, not a file";
    }
    if (!Files.exists(file)) {
      return "no such file";
    }
    if (!Files.isRegularFile(file)) {
      return "not a regular file";
    }
    if (!Files.isReadable(file)) {
      return "permission denied";
    }
    return null;
  }

  /**
   * The OpenTelemetry SDK reports an export it could not deliver through java.util.logging, with a stack trace, on
   * stderr; the command line stays quiet about it (a run never depends on its collector). Held here so the level
   * is not lost when the logger is collected.
   */
  private static final Logger OTEL_LOG = Logger.getLogger("io.opentelemetry");

  /**
   * Tracing as the {@code OTEL_*} variables configure it (off when none asks for it; the command line keeps no
   * metrics: it has no endpoint). Close it when the run ends: it sends the spans still queued, waiting at most
   * {@link #TRACE_FLUSH}.
   *
   * @throws CliError (usage) when the variables are set but invalid
   */
  static Observability observability() {
    OTEL_LOG.setLevel(Level.OFF);
    try {
      return Observability.fromEnvironment(environment, null);
    } catch (IllegalArgumentException e) {
      throw CliError.usage(e.getMessage(), e);
    }
  }

  /** How long a command waits at its end for queued spans to leave: a collector that is down cannot hold it longer. */
  static final Duration TRACE_FLUSH = Duration.ofSeconds(2);

  /**
   * The environment the commands read provider variables from: the process's, replaced only by tests that must
   * behave as on a machine with no provider configured whatever the developer's shell exports.
   */
  static Map<String, String> environment = System.getenv();

  /**
   * A workflow file that carries a {@code mock:} block runs on the mock provider when no LLM provider is configured
   * at all (none of the providers' key or URL variables is set) and no mock option was given, so every example
   * runs as {@code loopflow run FILE}. The mock is labelled as always (events, progress, results), and
   * {@code notice} (null with {@code --quiet}) gets one line saying so. A configured provider is never replaced:
   * with any provider variable set, the workflow's models are called as written.
   *
   * @return whether the mock was switched on
   */
  static boolean mockWhenNoProvider(RunOptions.Builder opts, Workflow wf, boolean mockGiven,
      Map<String, String> env, PrintWriter notice) {
    if (mockGiven || !MockScripts.mockWhenNoProvider(wf, env)) {
      return false;
    }
    opts.option(RunOptions.LLM_MOCK, true);
    if (notice != null) {
      notice.println("loopflow: no LLM provider is configured (OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_BASE_URL, "
          + "...): the mock provider answers from the workflow's mock: block");
    }
    return true;
  }

  /**
   * Applies {@code --mock-llm} and {@code --mock-script FILE} (which implies the mock). The script is read here and
   * handed to the run as its content, so it is journaled with the run and a resume answers from the same script
   * whatever happens to the file. False after printing why when the script cannot be read.
   */
  static boolean mockOption(RunOptions.Builder opts, boolean mock, Path script,
      PrintWriter err) {
    if (!mock && script == null) {
      return true;
    }
    opts.option(RunOptions.LLM_MOCK, true);
    if (script != null) {
      try {
        opts.option("llm.mock_script", MockScripts.read(script));
      } catch (IllegalArgumentException e) {
        err.println("loopflow: --mock-script " + script + ": " + (Files.isRegularFile(script) ? e.getMessage()
            : "no such file"));
        return false;
      }
    }
    return true;
  }
}
