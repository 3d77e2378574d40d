package dev.loopflow.core.internal.yaml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.loopflow.core.model.Location;
import dev.loopflow.core.model.Problem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads YAML into {@link YNode}s. Jackson's {@code STRICT_DUPLICATE_DETECTION} would stop at the first
 * duplicate key; we detect duplicates here instead so that all of them are reported with the rest of the
 * file's problems (the first occurrence wins and the later ones are errors).
 */
public final class YamlReader {
  private static final YAMLFactory FACTORY = YAMLFactory.builder().build();

  private YamlReader() {}

  /** The parsed document, or null when the text is not usable YAML (the reason is added to problems). */
  public static YNode read(String text, String file, List<Problem> problems) {
    if (text == null || text.isBlank()) {
      problems.add(new Problem(new Location(file, 1, 1), "", "the file is empty"));
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
      YNode root = readValue(p, file, problems, "");
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

  private static YNode readValue(YAMLParser p, String file, List<Problem> problems, String path) throws IOException {
    JsonToken t = p.currentToken();
    Location at = loc(file, p.currentTokenLocation());
    switch (t) {
      case START_OBJECT -> {
        Map<String, YNode.YMap.Entry> entries = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          Location keyLoc = loc(file, p.currentTokenLocation());
          p.nextToken();
          String childPath = path.isEmpty() ? key : path + "." + key;
          YNode value = readValue(p, file, problems, childPath);
          if (entries.containsKey(key)) {
            Location first = entries.get(key).keyLocation();
            problems.add(new Problem(keyLoc, childPath, "duplicate key '" + key + "' (first defined at line "
                + first.line() + ")"));
          } else {
            entries.put(key, new YNode.YMap.Entry(key, keyLoc, value));
          }
        }
        return new YNode.YMap(at, entries);
      }
      case START_ARRAY -> {
        List<YNode> items = new ArrayList<>();
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          items.add(readValue(p, file, problems, path + "[" + i + "]"));
          i++;
        }
        return new YNode.YSeq(at, items);
      }
      case VALUE_STRING -> {
        String text = p.getText();
        return new YNode.YScalar(at, text, text.indexOf('\n') >= 0);
      }
      case VALUE_NUMBER_INT -> {
        return new YNode.YScalar(at, switch (p.getNumberType()) {
          case INT, LONG -> p.getLongValue();
          default -> p.getBigIntegerValue();
        }, false);
      }
      case VALUE_NUMBER_FLOAT -> {
        return new YNode.YScalar(at, p.getDoubleValue(), false);
      }
      case VALUE_TRUE -> {
        return new YNode.YScalar(at, Boolean.TRUE, false);
      }
      case VALUE_FALSE -> {
        return new YNode.YScalar(at, Boolean.FALSE, false);
      }
      case VALUE_NULL -> {
        return new YNode.YScalar(at, null, false);
      }
      case VALUE_EMBEDDED_OBJECT -> {
        Object o = p.getEmbeddedObject();
        return new YNode.YScalar(at, o == null ? null : o.toString(), false);
      }
      default -> throw new JsonProcessingException("unexpected token " + t, p.currentTokenLocation()) {};
    }
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
