package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Names;
import dev.loopflow.core.error.Problem;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Expressions;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.TemplateSyntaxException;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.yaml.YNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** {@link NodeConfig} over a node's YAML fields; every accessor reports located problems instead of throwing. */
final class NodeConfigImpl implements NodeConfig {
  private final String id;
  private final String kind;
  private final Location location;
  private final String pathPrefix;
  private final Map<String, YNode.YMap.Entry> fields;
  private final Problems problems;
  private final List<TemplateRef> refs;
  private final Map<String, Object> defaults;
  /** Fields presented under another name in the file (see {@link #fieldName}). */
  private Map<String, String> shownAs = Map.of();
  private final Map<String, Object> sections;
  /** Problems that hold only if a max_usd budget applies to this node; the loader decides once loops are known. */
  private final List<Problem> costProblems = new ArrayList<>();

  NodeConfigImpl(String id, String kind, Location location, String pathPrefix, Map<String, YNode.YMap.Entry> fields,
      Problems problems, List<TemplateRef> refs, Map<String, Object> defaults, Map<String, Object> sections) {
    this.id = id;
    this.kind = kind;
    this.location = location;
    this.pathPrefix = pathPrefix;
    this.fields = fields;
    this.problems = problems;
    this.refs = refs;
    this.defaults = defaults;
    this.sections = sections;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String kind() {
    return kind;
  }

  @Override
  public Location location() {
    return location;
  }

  @Override
  public Location location(String field) {
    YNode.YMap.Entry e = fields.get(field);
    return e == null ? location : e.value().location();
  }

  @Override
  public Set<String> keys() {
    return fields.keySet();
  }

  @Override
  public boolean has(String field) {
    YNode.YMap.Entry e = fields.get(field);
    return e != null && !(e.value() instanceof YNode.YScalar s && s.value() == null);
  }

  private YNode node(String field) {
    YNode.YMap.Entry e = fields.get(field);
    return e == null ? null : e.value();
  }

  String path(String field) {
    String name = field == null ? null : fieldName(field);
    return name == null ? pathPrefix : pathPrefix.isEmpty() ? name : pathPrefix + "." + name;
  }

  /** Presents {@code field} as {@code name} in problems and messages (e.g. a loop_group's until_bash). */
  NodeConfigImpl showing(String field, String name) {
    shownAs = Map.of(field, name);
    return this;
  }

  @Override
  public String fieldName(String field) {
    return shownAs.getOrDefault(field, field);
  }

  @Override
  public void error(String field, String message) {
    problems.add(field == null ? location : location(field), path(field), message);
  }

  @Override
  public void error(String field, int lineInValue, String message) {
    YNode n = field == null ? null : node(field);
    if (n instanceof YNode.YScalar s && s.value() instanceof String src) {
      problems.add(within(location(field), lineInValue, src), path(field), message);
    } else {
      error(field, message);
    }
  }

  private void typeError(String field, String expected, YNode n) {
    error(field, "expected " + expected + ", found " + n.describe());
  }

  @Override
  public String string(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    if (n instanceof YNode.YScalar s && !(s.value() instanceof Boolean)) {
      return String.valueOf(s.value());
    }
    typeError(field, "a string", n);
    return null;
  }

  @Override
  public String requiredString(String field) {
    if (!has(field)) {
      error(null, "missing required field '" + field + "'");
      return null;
    }
    String s = string(field);
    if (s != null && s.isBlank()) {
      error(field, "'" + field + "' must not be empty");
      return null;
    }
    return s;
  }

  @Override
  public Template template(String field) {
    String s = string(field);
    return s == null ? null : template(field, s);
  }

  @Override
  public Template requiredTemplate(String field) {
    String s = requiredString(field);
    return s == null ? null : template(field, s);
  }

  @Override
  public Template template(String field, String source) {
    Location at = location(field);
    try {
      Template t = Expressions.template(source);
      // A part of a field's text (a shell command's {{ }}, a list item) is located within the whole value.
      YNode whole = node(field);
      String refSource = whole instanceof YNode.YScalar s && s.value() instanceof String full && full.contains(source)
          ? full : source;
      refs.add(new TemplateRef(t.references(), at, path(field), refSource));
      return t;
    } catch (TemplateSyntaxException e) {
      problems.add(within(at, e.line(), source), path(field), "template syntax error: " + e.getMessage());
      return null;
    }
  }

  /** The line of a template's {@code templateLine} in the file; a multi-line value is a block scalar. */
  static Location within(Location at, int templateLine, String source) {
    if (templateLine < 1 || source.indexOf('\n') < 0) {
      return at;
    }
    return new Location(at.file(), at.line() + templateLine, at.column());
  }

  @Override
  public Condition condition(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    return LoaderSupport.compileCondition(n, path(field), problems, refs);
  }

  @Override
  public Integer integer(String field, int min, int max) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    return LoaderSupport.integer(n, field, min, max, path(field), problems);
  }

  /** An integer field read against its description's range. */
  Integer integer(String field, FieldSpec spec) {
    return integer(field, spec.minimumInt(), spec.maximumInt());
  }

  @Override
  public Double number(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    if (n instanceof YNode.YScalar s && s.value() instanceof Number num) {
      return num.doubleValue();
    }
    typeError(field, "a number", n);
    return null;
  }

  @Override
  public Boolean bool(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    if (n instanceof YNode.YScalar s && s.value() instanceof Boolean b) {
      return b;
    }
    typeError(field, "true or false", n);
    return null;
  }

  @Override
  public Duration duration(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    return LoaderSupport.duration(n, field, path(field), problems);
  }

  @Override
  public Object plain(String field) {
    YNode n = node(field);
    return n == null ? null : n.toPlain();
  }

  @Override
  @SuppressWarnings("unchecked")
  public Map<String, Object> map(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    if (n instanceof YNode.YMap m) {
      return (Map<String, Object>) m.toPlain();
    }
    typeError(field, "a mapping", n);
    return null;
  }

  @Override
  @SuppressWarnings("unchecked")
  public List<Object> list(String field) {
    YNode n = node(field);
    if (n == null || n instanceof YNode.YScalar s && s.value() == null) {
      return null;
    }
    if (n instanceof YNode.YSeq seq) {
      return new ArrayList<>((List<Object>) seq.toPlain());
    }
    typeError(field, "a list", n);
    return null;
  }

  YNode raw(String field) {
    return node(field);
  }

  /** The field given under either of two names (camelCase or snake_case); giving both is a problem. */
  String alias(String camel, String snake) {
    if (has(camel) && has(snake)) {
      error(snake, "give '" + camel + "' or '" + snake + "', not both");
    }
    return has(camel) ? camel : has(snake) ? snake : null;
  }

  /** {@code field}'s value, one of {@code allowed}; {@code dflt} when the field is null, absent or invalid. */
  String choice(String field, Set<String> allowed, String dflt) {
    if (field == null) {
      return dflt;
    }
    String v = string(field);
    if (v == null) {
      return dflt;
    }
    if (!allowed.contains(v)) {
      error(field, "unknown " + field + " '" + v + "'; expected one of " + new TreeSet<>(allowed)
          + Names.suggest(v, allowed));
      return dflt;
    }
    return v;
  }

  @Override
  public Map<String, Object> defaults() {
    return defaults;
  }

  @Override
  public Object workflowSection(String name) {
    return sections.get(name);
  }

  @Override
  public void errorUnderCostLimit(String field, String message) {
    costProblems.add(new Problem(field == null ? location : location(field), path(field),
        message));
  }

  List<Problem> costProblems() {
    return costProblems;
  }
}
