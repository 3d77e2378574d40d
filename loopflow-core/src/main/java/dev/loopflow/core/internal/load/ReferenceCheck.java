package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.expr.Reference;
import dev.loopflow.core.expr.TemplateScope;
import dev.loopflow.core.secrets.CredentialNames;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/*
 * Design notes.
 *
 * A template that reads something that cannot exist renders empty at run time, and the run succeeds with a wrong
 * answer; so every reference is checked when the workflow loads, once every node id, kind and loop edge is known:
 *  - a root must be a node id visible from where the template is written, a scope name (TemplateScope.ROOTS), or
 *    a name the construct binds (a router's route conditions see `value`);
 *  - the first field of a node reference must be a field of that node kind's result, when the kind declares its
 *    fields; `loop` is a field only of a loop edge's source node, and its own fields are checked too;
 *  - `input.X` (and `flow.input.X`) must name a declared input when the workflow declares any; with no `input:`
 *    section any input is allowed;
 *  - `loop.X`, `run.X`, `flow.X` must be fields those variables have; `loop` inside a `{% for %}` block is Jinja's
 *    own loop variable and is checked against its fields instead;
 *  - `env.X` must not be a variable whose name says it holds a credential (those are never in `env`).
 * Beneath a value of unknown shape (a node's output or json, state, an input's value) nothing is checked.
 */
final class ReferenceCheck {
  private final Problems problems;
  private final String text;
  private final Set<String> declaredInputs;
  private final Set<String> loopEdgeSources;
  /** The result fields of a node kind, besides the common ones; null when the kind declares none. */
  private final Function<String, Set<String>> resultFields;
  /** Each scope's visible ids, made once (for hints only: they copy every id). */
  private final Map<Scope, Set<String>> visibleIn = new IdentityHashMap<>();

  ReferenceCheck(Problems problems, String text, Set<String> declaredInputs, Set<String> loopEdgeSources,
      Function<String, Set<String>> resultFields) {
    this.problems = problems;
    this.text = text;
    this.declaredInputs = declaredInputs;
    this.loopEdgeSources = loopEdgeSources;
    this.resultFields = resultFields;
  }

  /** Checks one template's references; {@code scope} is where it was written. */
  void check(TemplateRef ref, Scope scope) {
    // One report per distinct reference: a template that repeats a typo gets one error, at its first use.
    for (Reference r : new LinkedHashSet<>(ref.references())) {
      String root = r.root();
      if (ref.locals().contains(root)) {
        continue;
      }
      if (r.forLoopVariable()) {
        field(ref, r, 0, Reference.FOR_LOOP_FIELDS, "inside {% for %}, 'loop' is the for-loop's own variable, "
            + "which has", " (read the workflow's loop before the block: {% set pass = loop.iteration %})");
      } else if (scope.sees(root)) {
        node(ref, r, scope.kindOf(root), scope.resolvesToTopLevel(root));
      } else if (TemplateScope.ROOTS.contains(root)) {
        scopeName(ref, r);
      } else {
        String hint = switch (root) {
          case "item" -> " (in an iterator's body the current item is loop.item)";
          case "previous" -> " (previous is a pipeline placeholder: it names the stage before in a workflow_pattern stage's prompt_template)";
          default -> hint(root, scope, ref);
        };
        problems.add(locate(ref, r, 0), ref.path(), "unknown reference '" + root + "': no node or variable has "
            + "that name" + hint);
      }
    }
  }

  /** "Did you mean" among the names a template here may read, while the load's budget for hints lasts. */
  private String hint(String root, Scope scope, TemplateRef ref) {
    Set<String> visible = visibleIn.get(scope);
    if (visible == null) {
      if (!problems.maySuggest(scope.ids.size())) {
        return "";
      }
      visible = scope.visible();
      visibleIn.put(scope, visible);
    }
    // The closest of each group's closest is the closest of all (ties go alphabetically either way), and the ids
    // are not copied per reference.
    List<String> best = new ArrayList<>();
    for (String c : new String[] {problems.closest(root, visible), Names.closest(root, TemplateScope.ROOTS),
        Names.closest(root, ref.locals())}) {
      if (c != null) {
        best.add(c);
      }
    }
    return Names.suggest(root, best);
  }

  private void node(TemplateRef ref, Reference r, String kind, boolean topLevel) {
    if (r.fields().isEmpty()) {
      return;
    }
    Set<String> declared = kind == null ? null : resultFields.apply(kind);
    if (declared == null) {
      return;
    }
    String f = r.fields().get(0);
    boolean edgeSource = topLevel && loopEdgeSources.contains(r.root());
    if (f.equals(TemplateScope.LOOP_EDGE_FIELD) && edgeSource) {
      field(ref, r, 1, TemplateScope.LOOP_EDGE_SUMMARY_FIELDS, "the loop summary of '" + r.root() + "' has", "");
      return;
    }
    Set<String> allowed = new TreeSet<>(TemplateScope.COMMON_RESULT_FIELDS);
    allowed.addAll(declared);
    if (edgeSource) {
      allowed.add(TemplateScope.LOOP_EDGE_FIELD);
    }
    if (allowed.contains(f)) {
      return;
    }
    String why = f.equals(TemplateScope.LOOP_EDGE_FIELD)
        ? "; only the source node of a loop edge (type: loop) has 'loop'" : Names.suggest(f, allowed)
            + "; " + article(kind) + " " + kind + " node's result has " + String.join(", ", allowed);
    problems.add(locate(ref, r, 1), ref.path(), "unknown field '" + f + "' of node '" + r.root() + "'" + why);
  }

  private void scopeName(TemplateRef ref, Reference r) {
    List<String> fs = r.fields();
    switch (r.root()) {
      case "input" -> input(ref, r, 0);
      case "flow" -> {
        if (field(ref, r, 0, TemplateScope.FLOW_FIELDS, "'flow' has", "") && fs.size() > 1
            && fs.get(0).equals("input")) {
          input(ref, r, 1);
        }
      }
      case "run" -> field(ref, r, 0, TemplateScope.RUN_FIELDS, "'run' has", "");
      case "loop" -> {
        // loop.parent is the enclosing loop's loop: the same fields, as deep as the nesting goes.
        int i = 0;
        while (field(ref, r, i, TemplateScope.LOOP_VARIABLE_FIELDS, "'loop' has", "") && fs.size() > i + 1
            && fs.get(i).equals("parent")) {
          i++;
        }
      }
      case "env" -> {
        if (!fs.isEmpty() && CredentialNames.isCredential(fs.get(0))) {
          problems.add(locate(ref, r, 1), ref.path(), "env." + fs.get(0) + ": environment variables whose name says "
              + "they hold a credential are not readable in templates; a shell command can use \"$" + fs.get(0)
              + "\" directly");
        }
      }
      default -> { }
    }
  }

  private void input(TemplateRef ref, Reference r, int index) {
    if (declaredInputs.isEmpty() || r.fields().size() <= index) {
      return;
    }
    String name = r.fields().get(index);
    if (!declaredInputs.contains(name)) {
      problems.add(locate(ref, r, index + 1), ref.path(), "unknown input '" + name + "'"
          + Names.suggest(name, declaredInputs) + "; the workflow declares " + String.join(", ",
              new TreeSet<>(declaredInputs)));
    }
  }

  /** True when the field at {@code index} (if any) is one of {@code allowed}; otherwise reports it. */
  private boolean field(TemplateRef ref, Reference r, int index, Set<String> allowed, String owner, String advice) {
    if (r.fields().size() <= index) {
      return true;
    }
    String f = r.fields().get(index);
    if (allowed.contains(f)) {
      return true;
    }
    problems.add(locate(ref, r, index + 1), ref.path(), "unknown field '" + f + "'" + Names.suggest(f, allowed)
        + "; " + owner + " " + String.join(", ", new TreeSet<>(allowed)) + advice);
    return false;
  }

  private static String article(String word) {
    return "aeiou".indexOf(Character.toLowerCase(word.charAt(0))) >= 0 ? "an" : "a";
  }

  // ---------------------------------------------------------------------------------------------------------
  // Locations

  /**
   * Where a template reads {@code r} up to its field {@code depth} (0: the root alone): the line of its first use
   * inside {{ }} / {% %} (block scalars start on the line after their indicator) and, when the file text is at
   * hand, the column of that use in the file.
   */
  Location locate(TemplateRef ref, Reference r, int depth) {
    StringBuilder re = new StringBuilder("(?<![\\w.])").append(Pattern.quote(r.root()));
    for (int i = 0; i < depth && i < r.fields().size(); i++) {
      // a.b, a . b, a['b'], a["b"]
      re.append("[\\s.\\[\\]'\"]+").append(Pattern.quote(r.fields().get(i)));
    }
    re.append("(?!\\w)");
    Pattern word = Pattern.compile(re.toString());
    Location found = locate(ref, word);
    if (found != null) {
      return found;
    }
    // Written in a form the pattern does not follow (a.b spread over lines, say): point at the root instead.
    return depth == 0 ? ref.location() : locate(ref, r, 0);
  }

  private Location locate(TemplateRef ref, Pattern word) {
    Location at = ref.location();
    String src = ref.source();
    boolean delimited = src.contains("{{") || src.contains("{%");
    Matcher m = word.matcher(src);
    int idx = -1;
    while (m.find()) {
      if (!delimited || insideTag(src, m.start())) {
        idx = m.start();
        break;
      }
    }
    if (idx < 0) {
      return null;
    }
    int lineInSrc = 0;
    for (int i = 0; i < idx; i++) {
      if (src.charAt(i) == '\n') {
        lineInSrc++;
      }
    }
    boolean block = src.indexOf('\n') >= 0;
    int fileLine = block ? at.line() + lineInSrc + 1 : at.line();
    int srcLineStart = src.lastIndexOf('\n', idx - 1) + 1;
    int before = 0;
    Matcher c = word.matcher(src.substring(srcLineStart, idx));
    while (c.find()) {
      before++;
    }
    String lineText = fileLine(fileLine);
    if (lineText != null) {
      Matcher f = word.matcher(lineText);
      int from = block ? 0 : Math.max(0, at.column() - 1);
      int seen = 0;
      while (from <= lineText.length() && f.find(from)) {
        if (seen++ == before) {
          return new Location(at.file(), fileLine, f.start() + 1);
        }
        from = f.end();
      }
    }
    return new Location(at.file(), fileLine, at.column());
  }

  private static boolean insideTag(String src, int idx) {
    int open = Math.max(src.lastIndexOf("{{", idx), src.lastIndexOf("{%", idx));
    int close = Math.max(src.lastIndexOf("}}", idx), src.lastIndexOf("%}", idx));
    return open >= 0 && open > close;
  }

  /** Where each line of the file starts, found once (splitting the file per problem made loading quadratic). */
  private int[] lineStarts;

  private String fileLine(int line) {
    if (text == null || line < 1) {
      return null;
    }
    if (lineStarts == null) {
      int count = 1;
      for (int i = 0; i < text.length(); i++) {
        if (text.charAt(i) == '\n') {
          count++;
        }
      }
      lineStarts = new int[count];
      for (int i = 0, k = 1; i < text.length(); i++) {
        if (text.charAt(i) == '\n') {
          lineStarts[k++] = i + 1;
        }
      }
    }
    if (line > lineStarts.length) {
      return null;
    }
    int start = lineStarts[line - 1];
    int end = line < lineStarts.length ? lineStarts[line] - 1 : text.length();
    return text.substring(start, end);
  }
}
