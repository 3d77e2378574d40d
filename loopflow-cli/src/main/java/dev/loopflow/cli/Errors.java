package dev.loopflow.cli;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine;

/**
 * The one place where an exception becomes what the user sees: a single line on stderr and an exit status, and
 * the stack trace only with {@code --debug}. {@link CliError} and usage-type {@link LoopflowException}s are
 * expected problems and print their message; anything else is unexpected and prints
 * {@code loopflow: error: MESSAGE (use --debug for details)} with exit status 1.
 */
final class Errors {
  private Errors() {}

  static void install(CommandLine cl) {
    cl.setExecutionStrategy(pr -> {
      checkRunIds(pr);
      try {
        return new CommandLine.RunLast().execute(pr);
      } catch (StackOverflowError e) {
        // picocli lets Errors through; this one comes from input nested too deeply (a hostile file can do that),
        // so it is reported like any other unexpected failure instead of killing the JVM with a trace.
        throw new CommandLine.ExecutionException(pr.commandSpec().commandLine(), "stack overflow",
            new IllegalStateException("stack overflow: the workflow or its input is nested too deeply", e));
      } catch (OutOfMemoryError e) {
        // Limits stop every known bomb first, but a run can still need more heap than the JVM has; the user gets
        // the same one line as for any failure (the heap is released by then: the run's objects are unreachable).
        throw new CommandLine.ExecutionException(pr.commandSpec().commandLine(), "out of memory",
            new IllegalStateException("out of memory: the run needed more heap than the JVM has (give it more,"
                + " e.g. JDK_JAVA_OPTIONS=-Xmx2g)", e));
      }
    });
    cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> report(ex, cmd.getErr(), debug(parseResult)));
    cl.setExitCodeExceptionMapper(e -> Main.FAILED);
    cl.setParameterExceptionHandler((ex, args) -> {
      CommandLine cmd = ex.getCommandLine();
      PrintWriter err = cmd.getErr();
      err.println("loopflow: " + oneLine(ex.getMessage()));
      err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
      if (debug(cmd.getParseResult()) || Arrays.asList(args).contains("--debug")) {
        ex.printStackTrace(err);
      }
      err.flush();
      return Main.USAGE;
    });
  }

  /** Prints the line for {@code ex} (and its trace when {@code debug}) and returns the exit status. */
  static int report(Throwable ex, PrintWriter err, boolean debug) {
    int status;
    if (ex instanceof CliError c) {
      err.println("loopflow: " + Stores.scrub(oneLine(c.getMessage())));
      status = c.exitStatus();
    } else if (ex instanceof LoopflowException l && usage(l.code())) {
      err.println("loopflow: " + Stores.scrub(oneLine(l.getMessage())));
      status = Main.USAGE;
    } else {
      err.println("loopflow: error: " + Stores.scrub(oneLine(describe(ex))) + " (use --debug for details)");
      status = Main.FAILED;
    }
    if (debug) {
      // A driver's exception deep in the trace may quote the store URL: the trace is masked like the line.
      StringWriter trace = new StringWriter();
      ex.printStackTrace(new PrintWriter(trace));
      err.print(Stores.scrub(trace.toString()));
    }
    err.flush();
    return status;
  }

  /**
   * Errors that mean the request cannot be carried out as given: the same exit status as a bad argument. Commands
   * that report a LoopflowException themselves report only these and let the others (a store that fails) through.
   */
  static boolean usage(ErrorCode code) {
    return code == ErrorCode.USAGE || code == ErrorCode.WORKFLOW_INVALID || code == ErrorCode.RUN_NOT_RESUMABLE
        || code == ErrorCode.WORKFLOW_CHANGED || code == ErrorCode.RUN_BUSY || code == ErrorCode.FORK_REFUSED
        || code == ErrorCode.RUN_HAS_FORKS || code == ErrorCode.ANSWER_INVALID;
  }

  /**
   * A RUN_ID argument that no run can have is a usage error before any store is opened; this also keeps line
   * breaks and terminal escapes in a hostile argument out of the commands' messages.
   */
  private static void checkRunIds(CommandLine.ParseResult pr) {
    for (CommandLine.ParseResult r = pr; r != null; r = r.subcommand()) {
      for (CommandLine.Model.PositionalParamSpec p : r.matchedPositionals()) {
        if (p.paramLabel().equals("RUN_ID") && p.getValue() instanceof String id && !Support.isRunId(id)) {
          throw new CommandLine.ParameterException(r.commandSpec().commandLine(), "'" + id + "' is not a run id "
              + "(a run id is a non-empty line of text)");
        }
      }
    }
  }

  /** Whether {@code --debug} was given on the command or any of its parents. */
  private static boolean debug(CommandLine.ParseResult pr) {
    for (CommandLine.ParseResult r = pr; r != null; r = r.subcommand()) {
      if (r.hasMatchedOption("--debug")) {
        return true;
      }
    }
    return false;
  }

  /**
   * What went wrong, in words: file-system errors name the file and the reason (their own message is often just
   * the path); other exceptions give their message, never their class name.
   */
  static String describe(Throwable ex) {
    if (ex instanceof FileSystemException f) {
      return fileProblem(f);
    }
    Throwable cause = ex.getCause();
    String m = ex.getMessage();
    // A LoopflowException caused by an I/O error (a store file that cannot be created) names what failed; the cause
    // says why, and a file-system error's own message is often only the path.
    boolean wrapper = ex instanceof UncheckedIOException || ex instanceof ExecutionException
        || ex instanceof InvocationTargetException
        || ex instanceof LoopflowException && cause instanceof IOException;
    if (cause != null && cause != ex && (m == null || m.equals(cause.toString()) || wrapper && m.isBlank())) {
      return describe(cause);
    }
    if (cause instanceof FileSystemException f && wrapper) {
      return m + ": " + fileProblem(f);
    }
    if (m == null || m.isBlank()) {
      return ex instanceof IOException ? "input/output error" : "unexpected internal error";
    }
    return m;
  }

  /** {@code PATH: reason} for a file-system error; e.g. {@code /x/y: no such file or directory}. */
  static String fileProblem(FileSystemException f) {
    String file = f.getFile() == null ? "" : f.getFile() + ": ";
    String reason = switch (f) {
      case NoSuchFileException n -> "no such file or directory";
      case AccessDeniedException a -> "permission denied";
      case FileAlreadyExistsException a -> "already exists";
      case NotDirectoryException n -> "not a directory";
      default -> f.getReason() == null ? "input/output error" : f.getReason();
    };
    return file + reason;
  }

  /**
   * The text on one line: line breaks and other control characters (which could also move a terminal's cursor)
   * are shown as escapes, so a hostile file name or message cannot add lines or forge output.
   */
  static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\t') {
        sb.append("\\t");
      } else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
