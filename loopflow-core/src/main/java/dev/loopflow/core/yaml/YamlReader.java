package dev.loopflow.core.yaml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.Problem;
import java.io.CharArrayReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads YAML into {@link YNode}s. Jackson's {@code STRICT_DUPLICATE_DETECTION} would stop at the first
 * duplicate key; we detect duplicates here instead so that all of them are reported with the rest of the
 * file's problems (the first occurrence wins and the later ones are errors).
 *
 * <p>Anchors, aliases and merge keys. Jackson's YAML parser hands an alias ({@code *name}) over as a
 * string holding the anchor's name, and a merge key ({@code <<}) as an ordinary key; taken at face value
 * that would silently turn {@code default: *greet} into the text "greet". This reader resolves both
 * itself: an alias stands for the very node its anchor labelled (shared, not copied), and {@code <<: *base}
 * or {@code <<: [*a, *b]} adds the merged mappings' keys that the mapping does not set itself (keys set
 * explicitly win wherever they stand; among merged mappings the first wins, as in YAML 1.1). Because an
 * alias can name a node that itself holds aliases, a small file can describe an enormous tree (the
 * "billion laughs"): the number of nodes that aliases add is capped at {@link #MAX_ALIAS_NODES}.
 *
 * <p>Size. SnakeYAML scans a long plain line in time quadratic in its length (an 8 MB line takes tens of
 * seconds), so lines longer than {@link #MAX_LINE_CHARS} and files larger than {@link #MAX_FILE_CHARS}
 * are refused before parsing starts.
 */
public final class YamlReader {
  /** Longest line accepted, in characters (long text belongs in a block scalar: {@code key: |}). */
  public static final int MAX_LINE_CHARS = 100_000;
  /** Largest file accepted, in characters (SnakeYAML's own limit, reported here with a clear message). */
  public static final int MAX_FILE_CHARS = 3 * 1024 * 1024;
  /** How many nodes aliases may add to the document in all. */
  public static final int MAX_ALIAS_NODES = 100_000;

  private static final YAMLFactory FACTORY = new AnchorAwareFactory();

  /*
   * Jackson's parser tells the anchor of a mapping, a list or a key, but not of a scalar value
   * (`bash: &cmd "echo x"`), and knows aliases only as their name. The parser below keeps the event it
   * last decoded so that a scalar's anchor can be read too; everything else is Jackson's.
   */
  private static final class AnchorAwareFactory extends YAMLFactory {
    @Override
    protected YAMLParser _createParser(java.io.Reader r, com.fasterxml.jackson.core.io.IOContext ctxt) {
      return new AnchorAwareParser(ctxt, _parserFeatures, _yamlParserFeatures, _loaderOptions, _objectCodec, r);
    }

    @Override
    protected YAMLParser _createParser(char[] data, int offset, int len, com.fasterxml.jackson.core.io.IOContext ctxt,
        boolean recyclable) {
      return _createParser(new CharArrayReader(data, offset, len), ctxt);
    }
  }

  private static final class AnchorAwareParser extends YAMLParser {
    AnchorAwareParser(com.fasterxml.jackson.core.io.IOContext ctxt, int parserFeatures, int yamlFeatures,
        org.yaml.snakeyaml.LoaderOptions options, com.fasterxml.jackson.core.ObjectCodec codec, java.io.Reader r) {
      super(ctxt, parserFeatures, yamlFeatures, options, codec, r);
    }

    /** The anchor on the current token, scalars included; null when it has none. */
    String anchor() {
      String a = getCurrentAnchor();
      if (a == null && currentToken() != null && currentToken().isScalarValue()
          && _lastEvent instanceof org.yaml.snakeyaml.events.ScalarEvent se) {
        a = se.getAnchor();
      }
      return a;
    }
  }

  private YamlReader() {}

  /** The parsed document, or null when the text is not usable YAML (the reason is added to problems). */
  public static YNode read(String text, String file, List<Problem> problems) {
    if (text == null || text.isBlank()) {
      problems.add(new Problem(new Location(file, 1, 1), "", "the file is empty"));
      return null;
    }
    if (!withinSizeLimits(text, file, problems)) {
      return null;
    }
    if (onlyComments(text)) {
      problems.add(new Problem(new Location(file, 1, 1), "", "the file is empty (it holds only comments)"));
      return null;
    }
    try (YAMLParser p = (YAMLParser) FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        problems.add(new Problem(new Location(file, 1, 1), "", "the file is empty"));
        return null;
      }
      YNode root = new Reader((AnchorAwareParser) p, file, problems).value("");
      JsonToken next = p.nextToken();
      if (next != null) {
        problems.add(new Problem(loc(file, p.currentTokenLocation()), "",
            "the file holds more than one YAML document; a workflow is one document"));
      }
      return root;
    } catch (JsonProcessingException e) {
      if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException m && m.getProblemMark() != null) {
        problems.add(syntaxProblem(file, m));
        return null;
      }
      JsonLocation l = e.getLocation();
      Location where = l == null ? new Location(file, 1, 1) : loc(file, l);
      problems.add(new Problem(where, "", "not valid YAML: " + firstLine(e.getOriginalMessage())));
      return null;
    } catch (IOException e) {
      problems.add(new Problem(new Location(file, 1, 1), "", "cannot read YAML: " + e.getMessage()));
      return null;
    }
  }

  /** One pass over one document: the anchors seen so far and the nodes aliases have added. */
  private static final class Reader {
    private final AnchorAwareParser p;
    private final String file;
    private final List<Problem> problems;
    private final Map<String, YNode> anchors = new HashMap<>();
    private final Map<YNode, Integer> sizes = new IdentityHashMap<>();
    private long aliasNodes;
    private boolean aliasBombReported;

    Reader(AnchorAwareParser p, String file, List<Problem> problems) {
      this.p = p;
      this.file = file;
      this.problems = problems;
    }

    YNode value(String path) throws IOException {
      JsonToken t = p.currentToken();
      Location at = loc(file, p.currentTokenLocation());
      if (p.isCurrentAlias()) {
        return alias(p.getText(), at, path);
      }
      String anchor = p.anchor();
      YNode node = switch (t) {
        case START_OBJECT -> mapping(at, path);
        case START_ARRAY -> {
          List<YNode> items = new ArrayList<>();
          int i = 0;
          while (p.nextToken() != JsonToken.END_ARRAY) {
            items.add(value(path + "[" + i + "]"));
            i++;
          }
          yield new YNode.YSeq(at, items);
        }
        case VALUE_STRING -> {
          String text = p.getText();
          yield new YNode.YScalar(at, text, text.indexOf('\n') >= 0);
        }
        case VALUE_NUMBER_INT -> new YNode.YScalar(at, switch (p.getNumberType()) {
          case INT, LONG -> p.getLongValue();
          default -> p.getBigIntegerValue();
        }, false);
        case VALUE_NUMBER_FLOAT -> new YNode.YScalar(at, p.getDoubleValue(), false);
        case VALUE_TRUE -> new YNode.YScalar(at, Boolean.TRUE, false);
        case VALUE_FALSE -> new YNode.YScalar(at, Boolean.FALSE, false);
        case VALUE_NULL -> new YNode.YScalar(at, null, false);
        case VALUE_EMBEDDED_OBJECT -> {
          Object o = p.getEmbeddedObject();
          yield new YNode.YScalar(at, o == null ? null : o.toString(), false);
        }
        default -> throw new JsonProcessingException("unexpected token " + t, p.currentTokenLocation()) {};
      };
      if (anchor != null) {
        // A later anchor of the same name replaces the earlier one for the aliases after it (YAML's rule).
        anchors.put(anchor, node);
      }
      return node;
    }

    private YNode alias(String name, Location at, String path) {
      YNode target = anchors.get(name);
      if (target == null) {
        problems.add(new Problem(at, path, "alias '*" + name + "' has no anchor '&" + name
            + "' before it (an alias can only refer to an anchor defined earlier in the file, outside itself)"));
        return new YNode.YScalar(at, null, false);
      }
      aliasNodes += size(target);
      if (aliasNodes > MAX_ALIAS_NODES) {
        if (!aliasBombReported) {
          aliasBombReported = true;
          problems.add(new Problem(at, path, "aliases expand this file to more than " + MAX_ALIAS_NODES
              + " nodes; refusing to expand further (write the repeated parts out, or reuse fewer levels of aliases)"));
        }
        return new YNode.YScalar(at, null, false);
      }
      return target;
    }

    private YNode mapping(Location at, String path) throws IOException {
      Map<String, YNode.YMap.Entry> entries = new LinkedHashMap<>();
      // Merged mappings in the order their '<<' keys appear; applied once every explicit key is known.
      List<YNode.YMap> merges = new ArrayList<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        Location keyLoc = loc(file, p.currentTokenLocation());
        p.nextToken();
        String childPath = path.isEmpty() ? key : path + "." + key;
        YNode value = value(childPath);
        if (key.equals("<<")) {
          addMerges(value, childPath, merges);
          continue;
        }
        if (entries.containsKey(key)) {
          Location first = entries.get(key).keyLocation();
          problems.add(new Problem(keyLoc, childPath, "duplicate key '" + key + "' (first defined at line "
              + first.line() + ")"));
        } else {
          entries.put(key, new YNode.YMap.Entry(key, keyLoc, value));
        }
      }
      for (YNode.YMap m : merges) {
        m.entries().forEach(entries::putIfAbsent);
      }
      return new YNode.YMap(at, entries);
    }

    private void addMerges(YNode value, String path, List<YNode.YMap> merges) {
      if (value instanceof YNode.YMap m) {
        merges.add(m);
        return;
      }
      if (value instanceof YNode.YSeq s && s.items().stream().allMatch(i -> i instanceof YNode.YMap)) {
        s.items().forEach(i -> merges.add((YNode.YMap) i));
        return;
      }
      if (value instanceof YNode.YScalar sc && sc.value() == null) {
        return; // an alias that failed to resolve was reported already
      }
      problems.add(new Problem(value.location(), path,
          "'<<' merges a mapping or a list of mappings into this mapping, found " + value.describe()));
    }

    /** The number of nodes in a tree, counting shared subtrees each time they appear (memoised). */
    private int size(YNode n) {
      Integer known = sizes.get(n);
      if (known != null) {
        return known;
      }
      long s = 1;
      if (n instanceof YNode.YMap m) {
        for (YNode.YMap.Entry e : m.entries().values()) {
          s += size(e.value());
        }
      } else if (n instanceof YNode.YSeq q) {
        for (YNode i : q.items()) {
          s += size(i);
        }
      }
      int v = (int) Math.min(Integer.MAX_VALUE, s);
      sizes.put(n, v);
      return v;
    }
  }

  private static boolean withinSizeLimits(String text, String file, List<Problem> problems) {
    if (text.length() > MAX_FILE_CHARS) {
      problems.add(new Problem(new Location(file, 1, 1), "", "the file has " + text.length()
          + " characters; the limit for a workflow file is " + MAX_FILE_CHARS));
      return false;
    }
    int line = 1;
    int start = 0;
    for (int i = 0; i <= text.length(); i++) {
      if (i == text.length() || text.charAt(i) == '\n') {
        if (i - start > MAX_LINE_CHARS) {
          problems.add(new Problem(new Location(file, line, 1), "", "line " + line + " has " + (i - start)
              + " characters; the limit is " + MAX_LINE_CHARS + " (put long text in a block scalar, 'key: |', over several lines)"));
          return false;
        }
        line++;
        start = i + 1;
      }
    }
    return true;
  }

  /** Builds a tree from plain Java data; every node gets the same location. */
  public static YNode fromPlain(Object value, Location at) {
    if (value instanceof Map<?, ?> m) {
      Map<String, YNode.YMap.Entry> entries = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String k = String.valueOf(e.getKey());
        entries.put(k, new YNode.YMap.Entry(k, at, fromPlain(e.getValue(), at)));
      }
      return new YNode.YMap(at, entries);
    }
    if (value instanceof List<?> l) {
      List<YNode> items = new ArrayList<>();
      for (Object o : l) {
        items.add(fromPlain(o, at));
      }
      return new YNode.YSeq(at, items);
    }
    Object v = value instanceof Integer i ? (Object) i.longValue() : value instanceof Float f ? (Object) f.doubleValue()
        : value instanceof Short sh ? (Object) sh.longValue() : value;
    return new YNode.YScalar(at, v, v instanceof String s && s.indexOf('\n') >= 0);
  }

  static Location loc(String file, JsonLocation l) {
    return new Location(file, Math.max(1, l.getLineNr()), Math.max(1, l.getColumnNr()));
  }

  private static boolean onlyComments(String text) {
    for (String line : text.split("\n", -1)) {
      String s = line.strip();
      if (!s.isEmpty() && !s.startsWith("#") && !s.equals("---") && !s.equals("...")) {
        return false;
      }
    }
    return true;
  }

  /*
   * SnakeYAML reports two places: where the problem is (the problem mark) and the construct being read
   * (the context mark, often lines earlier). Jackson's own location is neither reliably, so the problem is
   * reported at the problem mark, with the context in words.
   */
  private static Problem syntaxProblem(String file, org.yaml.snakeyaml.error.MarkedYAMLException m) {
    org.yaml.snakeyaml.error.Mark pm = m.getProblemMark();
    org.yaml.snakeyaml.error.Mark cm = m.getContextMark();
    Location where = new Location(file, pm.getLine() + 1, pm.getColumn() + 1);
    String problem = m.getProblem() == null ? "syntax error" : m.getProblem().strip();
    String context = m.getContext() == null ? null : m.getContext().strip();
    String startedAt = cm == null ? "" : " started at line " + (cm.getLine() + 1) + ", column " + (cm.getColumn() + 1);
    String message;
    if (problem.contains("(TAB)")) {
      message = "a tab character cannot be used for indentation (indent with spaces)";
    } else if (problem.startsWith("expected <block end>") && cm != null) {
      message = "inconsistent indentation: this line does not line up with the block" + startedAt;
    } else {
      message = problem + (context == null ? "" : " (" + context + startedAt + ")");
    }
    return new Problem(where, "", "not valid YAML: " + message);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "syntax error";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }
}
