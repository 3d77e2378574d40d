package dev.loopflow.core.secrets;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.yaml.YNode;
import dev.loopflow.core.yaml.YamlReader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The credentials written into a workflow's YAML text: every scalar under a credential-named key (an http node's
 * {@code Authorization} header, a shell node's {@code env: {API_TOKEN: ...}}, an {@code api_key:} anywhere), found
 * by parsing the text, with where each one is written so that exactly those characters can be masked.
 *
 * <p>Values that are templates ({@code "Bearer {{ input.token }}"}) are not credentials themselves; they are kept as
 * {@link #templates()}, because what such a template renders to is one, and the journal records rendered templates
 * under their source text.
 *
 * <p>What must stay true: {@link #mask} changes nothing but the masked scalars, so the rest of the text stays
 * byte-identical; a scalar whose extent cannot be worked out is masked to the end of its line and its more-indented
 * continuation lines rather than left in place.
 */
public final class SourceCredentials {
  /** A masked stretch of the text, {@code [start, end)}; {@code quote} is the replacement's quote character. */
  private record Span(int start, int end, char quote) {}

  private final List<Span> spans = new ArrayList<>();
  private final Set<String> literals = new LinkedHashSet<>();
  private final Set<String> templates = new LinkedHashSet<>();
  private final String text;
  private final int[] lineStarts;

  private SourceCredentials(String text) {
    this.text = text;
    this.lineStarts = lineStarts(text);
  }

  /** The credentials in {@code yaml}; none when it is not YAML. */
  public static SourceCredentials scan(String yaml) {
    return of(yaml, YamlReader.read(yaml, "<source>", new ArrayList<>()));
  }

  /**
   * The credentials in {@code yaml}, read from {@code root}, the tree {@link YamlReader} made of that very text (the
   * loader's, so a loaded workflow's text is not parsed twice); none when {@code root} is null.
   */
  public static SourceCredentials of(String yaml, YNode root) {
    SourceCredentials found = new SourceCredentials(yaml);
    if (root != null) {
      found.walk(root, false);
    }
    return found;
  }

  /** True when this was found in {@code yaml}. */
  boolean isOf(String yaml) {
    return text.equals(yaml);
  }

  /** Literal credential values (not templates), as the YAML parser read them. */
  Set<String> literals() {
    return literals;
  }

  /** Template sources written under credential-named keys. */
  Set<String> templates() {
    return templates;
  }

  /** The text with every credential scalar replaced by a quoted mask. */
  String mask() {
    if (spans.isEmpty()) {
      return text;
    }
    List<Span> sorted = new ArrayList<>(spans);
    sorted.sort(Comparator.comparingInt(Span::start));
    StringBuilder sb = new StringBuilder(text.length());
    int last = 0;
    for (Span s : sorted) {
      if (s.start() < last) {
        continue; // inside a stretch already masked
      }
      sb.append(text, last, s.start()).append(s.quote()).append(Redactor.MASK).append(s.quote());
      last = s.end();
    }
    return sb.append(text, last, text.length()).toString();
  }

  private void walk(YNode n, boolean credential) {
    switch (n) {
      case YNode.YMap m -> m.entries().values().forEach(e -> walk(e.value(), CredentialNames.isCredential(e.key())));
      case YNode.YSeq s -> s.items().forEach(item -> walk(item, credential && item instanceof YNode.YScalar));
      case YNode.YScalar s -> {
        if (credential && s.value() != null && !(s.value() instanceof Boolean)) {
          String v = String.valueOf(s.value());
          if (v.contains("{{") || v.contains("{%")) {
            templates.add(v);
          } else {
            literals.add(v);
            spans.add(span(s.location(), v));
          }
        }
      }
    }
  }

  /** Where the scalar read as {@code value} is written, starting at {@code at}. */
  private Span span(Location at, String value) {
    int start = offset(at);
    if (start < 0 || start >= text.length()) {
      return new Span(0, text.length(), '"'); // cannot place it: mask everything rather than leak
    }
    char c = text.charAt(start);
    if (c == '"') {
      for (int i = start + 1; i < text.length(); i++) {
        char d = text.charAt(i);
        if (d == '\\') {
          i++;
        } else if (d == '"') {
          return new Span(start, i + 1, '"');
        }
      }
    } else if (c == '\'') {
      for (int i = start + 1; i < text.length(); i++) {
        if (text.charAt(i) == '\'') {
          if (i + 1 < text.length() && text.charAt(i + 1) == '\'') {
            i++;
          } else {
            return new Span(start, i + 1, '\'');
          }
        }
      }
    } else if (c != '|' && c != '>' && text.startsWith(value, start) && !value.isEmpty()) {
      return new Span(start, start + value.length(), '"');
    }
    return new Span(start, restOfBlock(start), '"');
  }

  /**
   * The end of the line holding {@code start} and of every following line that is blank or indented deeper than
   * that line: a block scalar's body, a plain scalar's continuation, or more than needed, never less.
   */
  private int restOfBlock(int start) {
    int line = lineOf(start);
    int indent = indentation(lineStarts[line]);
    int end = lineEnd(lineStarts[line]);
    for (int l = line + 1; l < lineStarts.length; l++) {
      int from = lineStarts[l];
      int e = lineEnd(from);
      boolean blank = text.substring(from, e).isBlank();
      if (!blank && indentation(from) <= indent) {
        break;
      }
      if (!blank) {
        end = e;
      }
    }
    return end;
  }

  private int indentation(int from) {
    int i = from;
    while (i < text.length() && text.charAt(i) == ' ') {
      i++;
    }
    return i - from;
  }

  private int lineEnd(int from) {
    int i = from;
    while (i < text.length() && !isBreak(i)) {
      i++;
    }
    return i;
  }

  private int lineOf(int offset) {
    int lo = 0;
    int hi = lineStarts.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (lineStarts[mid] <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** The character offset of a 1-based line and column as the YAML parser counts them (columns in code points). */
  private int offset(Location at) {
    int line = at.line() - 1;
    if (line < 0 || line >= lineStarts.length || at.column() < 1) {
      return -1;
    }
    try {
      return text.offsetByCodePoints(lineStarts[line], at.column() - 1);
    } catch (IndexOutOfBoundsException e) {
      return -1;
    }
  }

  /** Line starts, with the YAML parser's line breaks: LF, CR not followed by LF, NEL, LS and PS. */
  private static int[] lineStarts(String text) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < text.length(); i++) {
      if (isBreak(text, i)) {
        starts.add(i + 1);
      }
    }
    return starts.stream().mapToInt(Integer::intValue).toArray();
  }

  private boolean isBreak(int i) {
    return isBreak(text, i) || text.charAt(i) == '\r';
  }

  private static boolean isBreak(String text, int i) {
    char c = text.charAt(i);
    return c == '\n' || c == '\u0085' || c == '\u2028' || c == '\u2029'
        || c == '\r' && (i + 1 >= text.length() || text.charAt(i + 1) != '\n');
  }
}
