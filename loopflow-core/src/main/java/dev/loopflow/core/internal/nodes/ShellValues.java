package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.error.ShellValueRejectedException.Rule;
import dev.loopflow.core.error.ShellValueRejectedException;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a value must look like where the shell evaluates it, and the error when it does not. Bash evaluates
 * arithmetic operands and variable names recursively, and expands an array subscript met on the way, command
 * substitution included: {@code a[$(cmd)]} runs cmd wherever it is evaluated. A plain integer or name contains
 * nothing to expand.
 */
final class ShellValues {
  private static final Pattern INTEGER = Pattern.compile("[ \\t\\r\\n]*([+-]?)([0-9]+)[ \\t\\r\\n]*");
  /**
   * Lower case only: the shell's own variables with a meaning (RANDOM, PS4, IFS, PATH, ...) and the variables
   * programs read as options or commands (LD_PRELOAD, GIT_SSH_COMMAND, ...) are upper case.
   */
  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");
  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final int SHOWN = 40;

  private ShellValues() {}

  /**
   * The value as the decimal integer the shell should see: blanks and a plus sign dropped, leading zeros removed
   * (the shell would read 010 as octal 8). Throws when the value is not a 64-bit decimal integer.
   */
  static String integer(String value, String field, String source) {
    Matcher m = INTEGER.matcher(value);
    if (m.matches()) {
      BigInteger n = new BigInteger(m.group(1) + m.group(2));
      if (n.compareTo(MIN) >= 0 && n.compareTo(MAX) <= 0) {
        return n.toString();
      }
      throw reject(field, source, Rule.INTEGER, "is used in an arithmetic context and must be an integer that fits "
          + "in 64 bits", value);
    }
    throw reject(field, source, Rule.INTEGER, "is used in an arithmetic context and must be an integer", value);
  }

  /** The value, when it can be a variable name (or an array index): letters, digits and _, or an integer. */
  static String name(String value, String field, String source) {
    if (NAME.matcher(value).matches() || INTEGER.matcher(value).matches()) {
      return value;
    }
    throw reject(field, source, Rule.NAME, "is used as a variable name and must be a name (lower-case letters, "
        + "digits and _, not starting with a digit) or an integer", value);
  }

  /**
   * The value, when it cannot be taken for an option: it is passed where a program that runs code still reads
   * options ({@code ssh -oProxyCommand=...}, {@code python3 -cCODE}, {@code sed --expression=...}).
   */
  static String operand(String value, String field, String source) {
    if (!value.startsWith("-") && !value.startsWith("+")) {
      return value;
    }
    throw reject(field, source, Rule.OPERAND, "is passed where " + "the program reads its options, which may give "
        + "it code, and must not start with '-' or '+'", value);
  }

  /**
   * Checks a value passed to a command that evaluates arithmetic or names through variables: it must not hold an
   * array subscript that could expand, i.e. a '[' followed later by '$' or a backquote.
   */
  static void inert(String value, String field, String source) {
    int open = value.indexOf('[');
    if (open >= 0 && (value.indexOf('$', open) >= 0 || value.indexOf('`', open) >= 0)) {
      throw reject(field, source, Rule.ARITHMETIC_INERT, "contains '[' followed by '$' or '`', which bash would "
          + "expand as an array subscript, and this command evaluates arithmetic or variable names; validate the "
          + "value in an earlier node (e.g. a validator with pattern ^[0-9]+$) or handle it in a script node", value);
    }
  }

  private static ShellValueRejectedException reject(String field, String source, Rule rule, String what,
      String value) {
    return new ShellValueRejectedException(field, source, rule,
        field + ": the value of " + source + " " + what + ", found '" + cut(value) + "'");
  }

  /** At most 40 characters of the value, control characters escaped, so the message stays on one line. */
  static String cut(String value) {
    StringBuilder b = new StringBuilder();
    int n = value.codePointCount(0, value.length());
    int shown = 0;
    for (int i = 0; i < value.length() && shown < SHOWN; shown++) {
      int cp = value.codePointAt(i);
      i += Character.charCount(cp);
      switch (cp) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (cp < 0x20 || cp == 0x7f) {
            b.append(String.format("\\x%02x", cp));
          } else {
            b.appendCodePoint(cp);
          }
        }
      }
    }
    return n > SHOWN ? b + "…" : b.toString();
  }
}
