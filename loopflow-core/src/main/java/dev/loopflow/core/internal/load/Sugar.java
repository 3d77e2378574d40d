package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.yaml.YNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The loop references a loop_group or while_loop body may use, as template sugar rewritten once at load time:
 * {@code $LOOP_PREV.<id>.output[.field]} becomes {@code {{ loop.prev['<id>'].output.field }}} and
 * {@code $LOOP_USER_INPUT} becomes {@code {{ loop.user_input }}}. Because the rewrite happens on the workflow's text
 * and values are inserted by the template engine once, a value that itself contains {@code $LOOP_PREV.} or
 * {@code {{} stays literal; and in shell commands the rewritten placeholders reach the shell as quoted variables
 * like every other value. A script's code is not a template, so there the sugar is a load error that names the
 * {@code loop} field to read instead.
 */
final class Sugar {
  private Sugar() {}

  private static final Pattern REF = Pattern.compile(
      "\\$LOOP_PREV\\.([A-Za-z_][A-Za-z0-9_-]*)(\\.output((?:\\.[A-Za-z_][A-Za-z0-9_]*)*))?|\\$LOOP_USER_INPUT");
  /**
   * Fields a loop reads in its own passes' scope (the loader rewrites them against the loop's body), and a node's
   * {@code mock} replies, which are data, not templates.
   */
  static final Set<String> LOOP_OWN = Set.of("nodes", "body", "until_command", "until_bash", "gate_message",
      "gate_schema", "mock");

  /**
   * The fields of a node kind that hold code rather than a template: a script's {@code run}/{@code code} is not
   * rendered, so the sugar rewritten there would stay literal text (or break the code) without a word.
   */
  static final Map<String, Set<String>> CODE_FIELDS = Map.of("script", Set.of("run", "code"));

  /**
   * Rewrites the sugar in every string of a body node's fields; ids are the body's node ids. In the fields of
   * {@code kind} that hold code the sugar is a load error naming what to write instead.
   */
  static void rewrite(Map<String, YNode.YMap.Entry> fields, String kind, Set<String> ids, String path,
      Problems problems) {
    Set<String> code = CODE_FIELDS.getOrDefault(kind, Set.of());
    for (Map.Entry<String, YNode.YMap.Entry> e : new ArrayList<>(fields.entrySet())) {
      if (LOOP_OWN.contains(e.getKey())) {
        continue;
      }
      if (code.contains(e.getKey())) {
        rejectInCode(e.getValue().value(), path + "." + e.getKey(), problems);
        continue;
      }
      YNode v = rewrite(e.getValue().value(), ids, path + "." + e.getKey(), problems);
      if (v != e.getValue().value()) {
        fields.put(e.getKey(), new YNode.YMap.Entry(e.getKey(), e.getValue().keyLocation(), v));
      }
    }
  }

  private static void rejectInCode(YNode n, String path, Problems problems) {
    if (n instanceof YNode.YScalar s && s.value() instanceof String str) {
      Matcher m = REF.matcher(str);
      while (m.find()) {
        String instead = m.group().equals("$LOOP_USER_INPUT") ? "loop.user_input"
            : "loop.prev['" + m.group(1) + "']" + (m.group(2) == null ? ".output" : m.group(2));
        problems.add(s.location(), path, m.group() + " is template shorthand, and a script's code is not a "
            + "template (it would stay literal text); in Lua read " + instead + " instead (Python and Node scripts see "
            + "only state and input)");
      }
    }
  }

  /** Outside loop bodies the sugar has nothing to refer to. */
  static void reject(Map<String, YNode.YMap.Entry> fields, String path, Problems problems) {
    for (Map.Entry<String, YNode.YMap.Entry> e : fields.entrySet()) {
      if (!LOOP_OWN.contains(e.getKey())) {
        reject(e.getValue().value(), path + "." + e.getKey(), problems);
      }
    }
  }

  private static void reject(YNode n, String path, Problems problems) {
    switch (n) {
      case YNode.YScalar s when s.value() instanceof String str -> {
        Matcher m = REF.matcher(str);
        if (m.find()) {
          problems.add(s.location(), path, m.group() + " is only available inside a loop_group or while_loop body");
        }
      }
      case YNode.YMap m -> m.entries().forEach((k, e) -> reject(e.value(), path + "." + k, problems));
      case YNode.YSeq q -> {
        for (int i = 0; i < q.items().size(); i++) {
          reject(q.items().get(i), path + "[" + i + "]", problems);
        }
      }
      default -> { }
    }
  }

  static YNode rewrite(YNode n, Set<String> ids, String path, Problems problems) {
    return switch (n) {
      case YNode.YScalar s when s.value() instanceof String str && str.contains("$LOOP_") -> {
        String out = rewrite(str, ids, s, path, problems);
        yield out.equals(str) ? s : new YNode.YScalar(s.location(), out, s.blockStyle());
      }
      case YNode.YMap m -> {
        Map<String, YNode.YMap.Entry> entries = new LinkedHashMap<>();
        boolean changed = false;
        for (var e : m.entries().entrySet()) {
          YNode v = rewrite(e.getValue().value(), ids, path + "." + e.getKey(), problems);
          changed |= v != e.getValue().value();
          entries.put(e.getKey(), new YNode.YMap.Entry(e.getKey(), e.getValue().keyLocation(), v));
        }
        yield changed ? new YNode.YMap(m.location(), entries) : m;
      }
      case YNode.YSeq q -> {
        List<YNode> items = new ArrayList<>();
        boolean changed = false;
        for (int i = 0; i < q.items().size(); i++) {
          YNode v = rewrite(q.items().get(i), ids, path + "[" + i + "]", problems);
          changed |= v != q.items().get(i);
          items.add(v);
        }
        yield changed ? new YNode.YSeq(q.location(), items) : q;
      }
      default -> n;
    };
  }

  private static String rewrite(String s, Set<String> ids, YNode.YScalar at, String path, Problems problems) {
    Matcher m = REF.matcher(s);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String repl;
      if (m.group().equals("$LOOP_USER_INPUT")) {
        repl = "{{ loop.user_input }}";
      } else {
        String id = m.group(1);
        if (!ids.contains(id)) {
          problems.add(at.location(), path, "$LOOP_PREV." + id + " names no node of this loop's body"
              + Names.suggest(id, ids));
          repl = m.group();
        } else if (m.group(2) == null) {
          problems.add(at.location(), path, "$LOOP_PREV." + id + " needs '.output' ($LOOP_PREV." + id
              + ".output or $LOOP_PREV." + id + ".output.<field>)");
          repl = m.group();
        } else {
          repl = "{{ loop.prev['" + id + "'].output" + m.group(3) + " }}";
        }
      }
      m.appendReplacement(sb, Matcher.quoteReplacement(repl));
    }
    m.appendTail(sb);
    return sb.toString();
  }
}
