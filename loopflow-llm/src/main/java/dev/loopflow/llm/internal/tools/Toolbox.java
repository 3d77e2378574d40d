package dev.loopflow.llm.internal.tools;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.llm.provider.ToolCall;
import dev.loopflow.llm.provider.ToolSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tools of one agent execution, by name, with the MCP clients it started (closed by {@link #close()}). The one
 * place a model's tool call is checked and run: a name that names no tool, arguments over
 * {@link #MAX_ARGUMENT_CHARS}, arguments that are not a JSON object or do not match the tool's schema never reach a
 * tool; they, and anything a tool throws except cancellation, become the call's error, which the model is told.
 * Results are cut to {@link #MAX_RESULT_CHARS} characters.
 */
public final class Toolbox implements AutoCloseable {
  /** The longest arguments a call may have; a longer call is refused without being parsed. */
  public static final int MAX_ARGUMENT_CHARS = 256 * 1024;
  /** The longest result text the model is sent (and the journal keeps) for one call. */
  public static final int MAX_RESULT_CHARS = 64 * 1024;

  private final Map<String, Tool> tools;
  private final List<AutoCloseable> resources;

  Toolbox(List<Tool> tools, List<AutoCloseable> resources) {
    Map<String, Tool> byName = new LinkedHashMap<>();
    tools.forEach(t -> byName.put(t.spec().name(), t));
    this.tools = byName;
    this.resources = List.copyOf(resources);
  }

  /** The tools the model is offered, in a fixed order (the node's own, then each MCP server's). */
  public List<ToolSpec> specs() {
    return tools.values().stream().map(Tool::spec).toList();
  }

  /**
   * Runs one call. Throws only when the run is cancelled (interruption, or a {@code cancelled} error); everything
   * else is the outcome's error.
   */
  public ToolOutcome run(NodeContext ctx, ToolCall call) throws InterruptedException {
    Tool tool = tools.get(call.name());
    if (tool == null) {
      return ToolOutcome.failed("there is no tool named " + quote(call.name()) + "; the tools are: "
          + String.join(", ", tools.keySet()));
    }
    String raw = call.arguments();
    if (raw.length() > MAX_ARGUMENT_CHARS) {
      return ToolOutcome.failed("the arguments have " + raw.length() + " characters; the limit is "
          + MAX_ARGUMENT_CHARS);
    }
    Map<String, Object> args = arguments(raw);
    if (args == null) {
      return ToolOutcome.failed("the arguments must be a JSON object, but were: " + abbreviate(raw, 200));
    }
    if (tool.schema() != null) {
      List<String> problems = tool.schema().validate(args);
      if (!problems.isEmpty()) {
        return ToolOutcome.failed("the arguments do not match the parameters of '" + call.name() + "': "
            + String.join("; ", problems));
      }
    }
    try {
      return ToolOutcome.ok(capped(tool.call(ctx, args)));
    } catch (ToolError e) {
      return ToolOutcome.failed(e.getMessage());
    } catch (InterruptedException e) {
      throw e;
    } catch (LoopflowException e) {
      // A cancel, and a run that requires a sandbox the tool cannot have, end the node: neither is the model's to
      // negotiate.
      if (e.code() == ErrorCode.CANCELLED || e.code() == ErrorCode.SANDBOX_REQUIRED
          || Thread.currentThread().isInterrupted()) {
        throw e;
      }
      return ToolOutcome.failed(e.code().code() + ": " + e.getMessage());
    } catch (Exception e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException("cancelled while '" + call.name() + "' ran");
      }
      // Not a failure the tool describes itself: its type says more than its message alone.
      return ToolOutcome.failed(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }

  /**
   * The calls of one model reply that are refused before anything runs, by index (null: the call may run): the
   * calls of a workflow tool past its {@code max_runs_per_reply}, in the order the reply made them. The same reply
   * always gives the same answer, so a resumed run refuses the same calls.
   */
  public String[] refusals(List<ToolCall> calls) {
    String[] out = new String[calls.size()];
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < calls.size(); i++) {
      if (tools.get(calls.get(i).name()) instanceof WorkflowTool w) {
        int n = seen.merge(calls.get(i).name(), 1, Integer::sum);
        if (n > w.runsPerReply()) {
          out[i] = "refused: one reply may start at most " + w.runsPerReply() + " runs of '" + calls.get(i).name()
              + "' (max_runs_per_reply); this was call " + n + " of it in this reply, and it was not run";
        }
      }
    }
    return out;
  }

  /** The arguments as a map when they are a JSON object (blank counts as {}), else null. */
  static Map<String, Object> arguments(String raw) {
    if (raw.isBlank()) {
      return new LinkedHashMap<>();
    }
    try {
      if (Json.parse(raw) instanceof Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
      }
    } catch (IllegalArgumentException notJson) {
      // reported by the caller
    }
    return null;
  }

  /**
   * The arguments as the conversation keeps them: the object re-serialized when they are a JSON object, else
   * {@code {}}. Providers re-send earlier tool calls with the history, and Anthropic and Ollama need an object there
   * (Anthropic's client would splice broken text into the request verbatim).
   */
  public static String normalized(String raw) {
    Map<String, Object> args = raw.length() > MAX_ARGUMENT_CHARS ? null : arguments(raw);
    return args == null ? "{}" : Json.compact(args);
  }

  /** The result, cut to {@link #MAX_RESULT_CHARS} characters of text when its text is longer. */
  static Object capped(Object result) {
    String text = result instanceof String s ? s : Json.compact(result);
    if (text.length() <= MAX_RESULT_CHARS) {
      return result;
    }
    return text.substring(0, MAX_RESULT_CHARS) + "\n[cut: " + (text.length() - MAX_RESULT_CHARS)
        + " more characters]";
  }

  /** A name as a model wrote it, for a message: quoted, control characters escaped, at most 80 characters. */
  static String quote(String name) {
    StringBuilder sb = new StringBuilder("'");
    name.codePoints().limit(80).forEach(c -> {
      if (Character.isISOControl(c)) {
        sb.append(String.format("\\u%04x", c));
      } else {
        sb.appendCodePoint(c);
      }
    });
    return sb.append(name.codePointCount(0, name.length()) > 80 ? "...'" : "'").toString();
  }

  /** A duration for a message: {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 2m}, {@code 1m30s}. */
  static String human(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return ms % 1000 == 0 ? ms / 1000 + "s" : String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = ms / 1000;
    return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
  }

  static String abbreviate(String s, int max) {
    return s.length() > max ? s.substring(0, max) + "..." : s;
  }

  /** Closes every MCP client (stopping its server process); one that fails to close does not keep the rest open. */
  @Override
  public void close() {
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        // nothing the node could do about it; the others still get closed
      }
    }
  }
}
