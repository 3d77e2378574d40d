package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.expr.Template;
import dev.loopflow.core.expr.Values;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An http node's {@code url}: literal text and {@code {{ }}} values, each value percent-encoded for the position it
 * stands in, so a value is always data and never structure.
 *
 * <p>What must stay true:
 * <ul>
 *   <li>the scheme, user information, host and port are the author's literal text: a value may stand there only as
 *       the whole url ({@code url: "{{ input.endpoint }}"}), which is used as it is; anything else is a load
 *       problem;
 *   <li>a value in the path, a query key or value or the fragment has every character but the unreserved ones
 *       ({@code A-Z a-z 0-9 - . _ ~}) percent-encoded: it cannot add a segment ({@code /}), a parameter
 *       ({@code &}, {@code =}, {@code ;}), a query or fragment ({@code ?}, {@code #}), nor an escape of its own
 *       ({@code %});
 *   <li>a path segment a value is part of may not be {@code .} or {@code ..}, also after percent-decoding it any
 *       number of times: a value never climbs out of the path the author wrote;
 *   <li>control tags ({@code {% %}}) and comments are not accepted in a url with values: where a value stands
 *       could not be known.
 * </ul>
 */
final class UrlTemplate {
  enum Position { PATH, QUERY_KEY, QUERY_VALUE, FRAGMENT }

  /** One piece: literal text, or a value to encode for its position. */
  private record Part(String literal, Template value, Position position) {}

  private final List<Part> parts;
  /** Non-null when the whole url is one value, used as it is. */
  private final Template whole;

  private UrlTemplate(List<Part> parts, Template whole) {
    this.parts = parts;
    this.whole = whole;
  }

  /**
   * Compiles {@code source}; {@code compile} turns an expression's source ({@code {{ ... }}}) into a template.
   * Throws {@link IllegalArgumentException} with the load problem.
   */
  static UrlTemplate of(String source, Function<String, Template> compile) {
    String s = source.strip();
    List<int[]> values = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      int open = indexOfTag(s, i);
      if (open < 0) {
        break;
      }
      if (s.startsWith("{%", open) || s.startsWith("{#", open)) {
        throw new IllegalArgumentException("url may not use control tags or comments ({% %}, {# #}): where a value "
            + "stands in the url decides how it is encoded; compute the value in a transform node and use it with "
            + "{{ }}");
      }
      int close = closing(s, open + 2);
      if (close < 0) {
        throw new IllegalArgumentException("url has a '{{' without its '}}'");
      }
      values.add(new int[] {open, close + 2});
      i = close + 2;
    }
    if (values.isEmpty()) {
      return new UrlTemplate(List.of(new Part(s, null, null)), null);
    }
    if (values.size() == 1 && values.get(0)[0] == 0 && values.get(0)[1] == s.length()) {
      return new UrlTemplate(List.of(), compile.apply(s));
    }
    int authorityEnd = authorityEnd(s);
    if (authorityEnd < 0 || values.get(0)[0] < authorityEnd) {
      throw new IllegalArgumentException("url has a value in its scheme, host or port ('" + s.substring(
          values.get(0)[0], values.get(0)[1]) + "'): write them literally (e.g. https://api.example.com/items/"
          + "{{ input.id }}), or make the whole url one value (url: \"{{ input.endpoint }}\")");
    }
    List<Part> parts = new ArrayList<>();
    Position pos = Position.PATH;
    int at = 0;
    for (int[] v : values) {
      String literal = s.substring(at, v[0]);
      pos = after(pos, literal, at < authorityEnd ? authorityEnd - at : 0);
      parts.add(new Part(literal, null, null));
      parts.add(new Part(null, compile.apply(s.substring(v[0], v[1])), pos));
      at = v[1];
    }
    parts.add(new Part(s.substring(at), null, null));
    return new UrlTemplate(List.copyOf(parts), null);
  }

  /** The first {@code {{}}, {@code {%} or {@code {#} at or after {@code from}; -1 when none. */
  private static int indexOfTag(String s, int from) {
    for (int i = from; i + 1 < s.length(); i++) {
      if (s.charAt(i) == '{' && "{%#".indexOf(s.charAt(i + 1)) >= 0) {
        return i;
      }
    }
    return -1;
  }

  /** The index of the {@code }}} that closes an expression starting at {@code from}, skipping quoted text. */
  private static int closing(String s, int from) {
    char quote = 0;
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '}' && i + 1 < s.length() && s.charAt(i + 1) == '}') {
        return i;
      }
    }
    return -1;
  }

  /**
   * Where the authority of a literal {@code scheme://authority} ends: the index of the first '/', '?' or '#'
   * after it; -1 when the url does not start with a scheme and authority that end before a value.
   */
  private static int authorityEnd(String s) {
    int colon = s.indexOf("://");
    if (colon <= 0 || !s.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
      return -1;
    }
    for (int i = colon + 3; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '{') {
        return -1;
      }
      if (c == '/' || c == '?' || c == '#') {
        return i;
      }
    }
    return -1;
  }

  /** The position after {@code literal} (its first {@code skip} characters are the scheme and authority). */
  private static Position after(Position pos, String literal, int skip) {
    for (int i = skip; i < literal.length(); i++) {
      char c = literal.charAt(i);
      if (pos == Position.FRAGMENT) {
        return pos;
      }
      if (c == '#') {
        pos = Position.FRAGMENT;
      } else if (c == '?' && pos == Position.PATH) {
        pos = Position.QUERY_KEY;
      } else if ((c == '&' || c == ';') && pos != Position.PATH) {
        pos = Position.QUERY_KEY;
      } else if (c == '=' && pos == Position.QUERY_KEY) {
        pos = Position.QUERY_VALUE;
      }
    }
    return pos;
  }

  /**
   * The url with its values evaluated by {@code evaluate} and encoded. Throws {@link IllegalArgumentException}
   * when a value would make a path segment {@code .} or {@code ..}.
   */
  String render(Function<Template, Object> evaluate) {
    if (whole != null) {
      return text(evaluate.apply(whole)).strip();
    }
    StringBuilder out = new StringBuilder();
    // Where each value's encoded text sits in the output, to find the path segments values are part of.
    List<int[]> pathValues = new ArrayList<>();
    for (Part p : parts) {
      if (p.literal() != null) {
        out.append(p.literal());
      } else {
        String encoded = encode(text(evaluate.apply(p.value())));
        if (p.position() == Position.PATH) {
          pathValues.add(new int[] {out.length(), out.length() + encoded.length()});
        }
        out.append(encoded);
      }
    }
    for (int[] v : pathValues) {
      int start = out.lastIndexOf("/", v[0] - 1) + 1;
      int end = v[1];
      while (end < out.length() && "/?#".indexOf(out.charAt(end)) < 0) {
        end++;
      }
      String segment = out.substring(start, end);
      if (dotSegment(segment)) {
        throw new IllegalArgumentException("a value makes the url's path segment '" + segment + "', which would "
            + "climb the path: a value may not make a segment '.' or '..'");
      }
    }
    return out.toString();
  }

  private static boolean dotSegment(String segment) {
    String s = segment;
    for (int round = 0; round < 16; round++) {
      if (s.equals(".") || s.equals("..")) {
        return true;
      }
      String decoded;
      try {
        decoded = URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException malformed) {
        return false;
      }
      if (decoded.equals(s)) {
        return false;
      }
      s = decoded;
    }
    return true; // still changing after that many decodings: refused rather than guessed
  }

  /** A value as text: missing values are empty. */
  private static String text(Object v) {
    return v == null ? "" : Values.text(v);
  }

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** Every byte of the value's UTF-8 percent-encoded but the unreserved characters. */
  static String encode(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
          || c == '_' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }
}
