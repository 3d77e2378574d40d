package dev.loopflow.core.expr;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds the values a template reads ({@link Reference}s: root names and the attribute paths after them) and the
 * filters it uses, by a light tokenizer over the text inside {@code {{ }}} and {@code {% %}}. It does not need to
 * be a full parser: it must never miss a root that starts a dotted path (so a misspelt node id is reported at load
 * time), and it skips attribute names, string literals, keywords, filter and test names, function calls, keyword
 * arguments and names the template itself binds ({@code for x in}, {@code set x =}, macro names and parameters,
 * {@code import ... as x}).
 */
final class RootScanner {
  private static final Set<String> KEYWORDS = Set.of("and", "or", "not", "in", "is", "if", "else", "elif",
      "endif", "for", "endfor", "set", "endset", "true", "false", "none", "True", "False", "None", "null",
      "macro", "endmacro", "call", "endcall", "filter", "endfilter", "raw", "endraw", "with", "endwith",
      "without", "context", "import", "from", "as", "recursive", "do", "break", "continue", "block", "endblock",
      "extends", "include", "cycle", "print", "autoescape", "endautoescape", "ifchanged", "endifchanged",
      "empty", "div", "mod", "eq", "ne", "lt", "gt", "le", "ge");
  /** Names a macro body sees without declaring them. */
  private static final Set<String> MACRO_LOCALS = Set.of("varargs", "kwargs", "caller");

  record Result(Set<String> roots, List<Reference> references, Set<String> filters, String source) {
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

  /** The state of one scan: what was found so far, names bound, and how deep inside {@code {% for %}} we are. */
  private static final class Scan {
    final List<Reference> references = new ArrayList<>();
    final Set<String> filters = new LinkedHashSet<>();
    final Set<String> bound = new HashSet<>();
    int forDepth;
  }

  static Result scan(String source) {
    Scan scan = new Scan();
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
      if (kind == '%' && body.strip().replaceFirst("^-", "").strip().startsWith("raw")) {
        int endraw = source.indexOf("endraw", end);
        i = endraw < 0 ? source.length() : endraw;
        continue;
      }
      scanExpression(body, kind == '%', scan);
      i = end + 2;
    }
    List<Reference> refs = new ArrayList<>();
    Set<String> roots = new LinkedHashSet<>();
    for (Reference r : scan.references) {
      if (!scan.bound.contains(r.root())) {
        refs.add(r);
        roots.add(r.root());
      }
    }
    return new Result(roots, List.copyOf(refs), scan.filters, source);
  }

  private static void scanExpression(String body, boolean tag, Scan scan) {
    List<String> tokens = tokenize(body);
    int start = 0;
    boolean opensFor = false;
    if (tag && !tokens.isEmpty()) {
      String tagName = tokens.get(0);
      start = 1;
      switch (tagName) {
        case "for" -> {
          // for a, b in expr: names before "in" are bound; the iterable is read outside the new block
          int k = 1;
          while (k < tokens.size() && !tokens.get(k).equals("in")) {
            bindIdentifier(tokens.get(k), scan);
            k++;
          }
          start = k;
          opensFor = true;
        }
        case "endfor" -> scan.forDepth = Math.max(0, scan.forDepth - 1);
        case "set" -> {
          // set a = expr, set a, b = expr, or the block form set a
          int k = 1;
          while (k < tokens.size() && !tokens.get(k).equals("=")) {
            if (!tokens.get(k - 1).equals(".")) {
              bindIdentifier(tokens.get(k), scan);
            }
            k++;
          }
          start = k;
        }
        case "macro" -> {
          // macro name(a, b=default): the name and the parameters are bound, defaults are read
          for (int k = 1; k < tokens.size(); k++) {
            String prev = tokens.get(k - 1);
            if (k == 1 || prev.equals("(") || prev.equals(",")) {
              bindIdentifier(tokens.get(k), scan);
            }
          }
          scan.bound.addAll(MACRO_LOCALS);
          start = tokens.size();
          for (int k = 1; k < tokens.size(); k++) {
            if (tokens.get(k).equals("=")) {
              start = k;
              break;
            }
          }
        }
        case "call" -> {
          // call(params) macro(args): the caller's parameters are bound, the arguments are read
          if (tokens.size() > 1 && tokens.get(1).equals("(")) {
            int k = 2;
            while (k < tokens.size() && !tokens.get(k).equals(")")) {
              bindIdentifier(tokens.get(k), scan);
              k++;
            }
            start = k + 1;
          }
        }
        case "import", "from" -> {
          // import 'file' as name; from 'file' import a, b as c: every name is bound
          tokens.forEach(t -> bindIdentifier(t, scan));
          return;
        }
        case "include", "extends" -> {
          return;
        }
        default -> { }
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
        scan.filters.add(t);
        continue;
      }
      if (prev.equals("is") || (prev.equals("not") && k > 1 && tokens.get(k - 2).equals("is"))) {
        continue;
      }
      if (next.equals("(") || next.equals("=")) {
        continue;
      }
      List<String> fields = new ArrayList<>();
      int j = k + 1;
      while (j + 1 < tokens.size()) {
        String after = j + 2 < tokens.size() ? tokens.get(j + 2) : "";
        if (tokens.get(j).equals(".") && isIdentifier(tokens.get(j + 1)) && !after.equals("(")) {
          fields.add(tokens.get(j + 1));
          j += 2;
        } else if (tokens.get(j).equals("[") && isString(tokens.get(j + 1)) && after.equals("]")) {
          fields.add(tokens.get(j + 1).substring(1));
          j += 3;
        } else {
          break;
        }
      }
      scan.references.add(new Reference(t, fields, t.equals("loop") && scan.forDepth > 0));
    }
    if (opensFor) {
      scan.forDepth++;
    }
  }

  private static void bindIdentifier(String t, Scan scan) {
    if (isIdentifier(t) && !KEYWORDS.contains(t)) {
      scan.bound.add(t);
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

  /** A string literal token: its quote character followed by its content. */
  private static boolean isString(String t) {
    return !t.isEmpty() && (t.charAt(0) == '\'' || t.charAt(0) == '"');
  }

  /**
   * Identifiers, single punctuation tokens, "==" style operators as one token; a string literal is one token, its
   * opening quote followed by its content (escapes kept as written). A leading or trailing '-' of whitespace
   * control is dropped.
   */
  private static List<String> tokenize(String body) {
    String s = body.strip();
    if (s.startsWith("-")) {
      s = s.substring(1);
    }
    if (s.endsWith("-")) {
      s = s.substring(0, s.length() - 1);
    }
    List<String> out = new ArrayList<>();
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
        out.add(c + s.substring(i + 1, Math.min(j, s.length())));
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
