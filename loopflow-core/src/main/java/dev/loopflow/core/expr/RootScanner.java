package dev.loopflow.core.expr;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds the root names a template reads and the filters it uses, by a light tokenizer over the text inside
 * {@code {{ }}} and {@code {% %}}. It does not need to be a full parser: it must never miss a root that starts
 * a dotted path (so a misspelt node id is reported at load time), and it skips attribute names, string
 * literals, keywords, filter and test names, function calls, keyword arguments and names the template itself
 * binds ({@code for x in}, {@code set x =}).
 */
final class RootScanner {
  private static final Set<String> KEYWORDS = Set.of("and", "or", "not", "in", "is", "if", "else", "elif",
      "endif", "for", "endfor", "set", "endset", "true", "false", "none", "True", "False", "None", "null",
      "macro", "endmacro", "call", "endcall", "filter", "endfilter", "raw", "endraw", "with", "endwith",
      "without", "context", "import", "from", "as", "recursive", "do", "break", "continue", "block", "endblock",
      "extends", "include", "cycle", "print", "autoescape", "endautoescape", "ifchanged", "endifchanged",
      "empty", "div", "mod", "eq", "ne", "lt", "gt", "le", "ge");

  record Result(Set<String> roots, Set<String> filters, String source) {
    int lineOf(String token) {
      int idx = source.indexOf(token);
      if (idx < 0) {
        return 0;
      }
      int line = 1;
      for (int i = 0; i < idx; i++) {
        if (source.charAt(i) == '\n') {
          line++;
        }
      }
      return line;
    }
  }

  private RootScanner() {}

  static Result scan(String source) {
    Set<String> roots = new LinkedHashSet<>();
    Set<String> filters = new LinkedHashSet<>();
    Set<String> bound = new HashSet<>();
    int i = 0;
    while (i < source.length()) {
      int open = source.indexOf('{', i);
      if (open < 0 || open + 1 >= source.length()) {
        break;
      }
      char kind = source.charAt(open + 1);
      if (kind == '#') {
        int end = source.indexOf("#}", open + 2);
        i = end < 0 ? source.length() : end + 2;
        continue;
      }
      if (kind != '{' && kind != '%') {
        i = open + 1;
        continue;
      }
      String close = kind == '{' ? "}}" : "%}";
      int end = source.indexOf(close, open + 2);
      if (end < 0) {
        end = source.length();
      }
      String body = source.substring(open + 2, end);
      if (kind == '%' && body.strip().startsWith("raw")) {
        int endraw = source.indexOf("endraw", end);
        i = endraw < 0 ? source.length() : endraw;
        continue;
      }
      scanExpression(body, kind == '%', roots, filters, bound);
      i = end + 2;
    }
    roots.removeAll(bound);
    return new Result(roots, filters, source);
  }

  private static void scanExpression(String body, boolean tag, Set<String> roots, Set<String> filters,
      Set<String> bound) {
    List<String> tokens = tokenize(body);
    int start = 0;
    if (tag && !tokens.isEmpty()) {
      String tagName = tokens.get(0).startsWith("-") ? tokens.get(0).substring(1) : tokens.get(0);
      start = 1;
      if (tagName.equals("for")) {
        // for a, b in expr: names before "in" are bound
        int k = 1;
        while (k < tokens.size() && !tokens.get(k).equals("in")) {
          if (isIdentifier(tokens.get(k))) {
            bound.add(tokens.get(k));
          }
          k++;
        }
        start = k;
      } else if (tagName.equals("set") && tokens.size() > 1) {
        bound.add(tokens.get(1));
        start = 2;
      } else if (tagName.equals("macro") || tagName.equals("call") || tagName.equals("import")
          || tagName.equals("from") || tagName.equals("include") || tagName.equals("extends")) {
        return;
      }
    }
    for (int k = start; k < tokens.size(); k++) {
      String t = tokens.get(k);
      if (!isIdentifier(t) || KEYWORDS.contains(t)) {
        continue;
      }
      String prev = k > 0 ? tokens.get(k - 1) : "";
      String next = k + 1 < tokens.size() ? tokens.get(k + 1) : "";
      if (prev.equals(".")) {
        continue;
      }
      if (prev.equals("|")) {
        filters.add(t);
        continue;
      }
      if (prev.equals("is") || (prev.equals("not") && k > 1 && tokens.get(k - 2).equals("is"))) {
        continue;
      }
      if (next.equals("(") || next.equals("=")) {
        continue;
      }
      roots.add(t);
    }
  }

  private static boolean isIdentifier(String t) {
    if (t.isEmpty() || !(Character.isLetter(t.charAt(0)) || t.charAt(0) == '_')) {
      return false;
    }
    for (int i = 1; i < t.length(); i++) {
      char c = t.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_')) {
        return false;
      }
    }
    return true;
  }

  /** Identifiers, single punctuation tokens, "==" style operators as one token; string literals dropped. */
  private static List<String> tokenize(String s) {
    java.util.ArrayList<String> out = new java.util.ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'' || c == '"') {
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != c) {
          if (s.charAt(j) == '\\') {
            j++;
          }
          j++;
        }
        out.add("\"\"");
        i = j + 1;
      } else if (Character.isLetter(c) || c == '_') {
        int j = i + 1;
        while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      } else if (Character.isDigit(c)) {
        int j = i + 1;
        while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '.')) {
          j++;
        }
        out.add("0");
        i = j;
      } else if (i + 1 < s.length() && "=!<>".indexOf(c) >= 0 && s.charAt(i + 1) == '=') {
        out.add(s.substring(i, i + 2));
        i += 2;
      } else {
        out.add(String.valueOf(c));
        i++;
      }
    }
    return out;
  }
}
