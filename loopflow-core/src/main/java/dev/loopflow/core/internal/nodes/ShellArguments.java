package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.internal.nodes.ShellLexer.Use;
import dev.loopflow.core.internal.nodes.ShellWord.Ref;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the arguments of the shell's own commands mean: the names that declare, read, unset, mapfile and printf -v
 * take, the assignments to variables the shell treats as more than data ({@link ShellSpecials}), the variables
 * the shell fills from its input, the operands that test compares as integers, and the words eval, source and
 * trap run as code. {@link ShellWords} decides which command a word belongs to and calls here with it.
 *
 * <p>Each method marks the uses of the values in one finished word and tells the reader what the word makes the
 * command do; what must stay true is that a value is marked by the strictest use any command gives it (a name is
 * never left as text, an operand of -eq never as a name), because the checks that follow trust the mark. The
 * state of the command (options seen, the next word's role) is the {@link ShellCommand} passed in.
 */
final class ShellArguments {
  static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  static final Pattern ASSIGNMENT_TARGET = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\[.*])?\\+?");
  /** declare/export "name=..." with the name and '=' inside the quotes. */
  private static final Pattern QUOTED_ASSIGNMENT = Pattern.compile("[\"']([A-Za-z_][A-Za-z0-9_]*)\\+?=");
  private static final Set<String> ARITHMETIC_OPERATORS = Set.of("-eq", "-ne", "-lt", "-le", "-gt", "-ge");

  private final ShellWords.Reader reader;

  ShellArguments(ShellWords.Reader reader) {
    this.reader = reader;
  }

  /**
   * An assignment {@code name=value} (before a command, as a command, or given to declare, export, env, ...),
   * whose value starts after the first {@code refsInName} references of the word.
   */
  void assignment(ShellWord w, String target, int refsInName) {
    String name = target.replaceFirst("\\+$", "").replaceFirst("\\[.*$", "");
    ShellSpecials.Kind kind = ShellSpecials.kind(name);
    if (kind == ShellSpecials.Kind.NONE) {
      return;
    }
    for (Ref r : w.refs.subList(refsInName, w.refs.size())) {
      reader.problem(r.offset, reader.source(r.arg) + " is assigned to " + name + ", and " + ShellSpecials.why(kind)
          + "; give the value a variable of your own (lower case) instead");
    }
    if (w.dynamic && kind == ShellSpecials.Kind.INTEGER) {
      reader.evaluatesIndirectly();
    } else if (w.dynamic && kind == ShellSpecials.Kind.CODE) {
      reader.runsCode("it assigns a computed text to " + name + ", which the shell runs as code");
    }
  }

  /** A variable the shell assigns from its input or a computed text (read, mapfile, printf -v, for). */
  void filledVariable(ShellWord w, String name) {
    if (w.dynamic) {
      reader.runsCode("it fills a variable whose name is computed, which may be one the shell runs as code");
    } else if (name != null && ShellSpecials.kind(name) != ShellSpecials.Kind.NONE) {
      reader.runsCode("it fills " + name + " from its input or a computed text, and "
          + ShellSpecials.why(ShellSpecials.kind(name)));
    }
  }

  /** Values in the word are passed where a program reads options: they must not start like one. */
  static void operand(ShellWord w) {
    for (Ref r : w.refs) {
      if (r.use == Use.TEXT) {
        r.use = Use.OPERAND;
      }
    }
  }

  /** The word starts with '-' or '+' once its quotes are removed, ignoring the values in it. */
  static boolean startsLikeOption(ShellWord w) {
    String literal = w.text.toString().replaceAll("[\"'\\\\]", "");
    return literal.startsWith("-") || literal.startsWith("+");
  }

  /** A word that a command runs as shell code: a value in it could not stay data. */
  void code(ShellWord w, String why) {
    for (Ref r : w.refs) {
      String v = reader.source(r.arg);
      reader.problem(r.offset, v + " is used in shell code: " + why.replace("VALUE", v));
    }
  }

  /** A word the shell takes as a variable name: its values must be names, and a computed name is indirect. */
  void nameWord(ShellWord w, List<Ref> part, boolean dynamic) {
    for (Ref r : part) {
      if (r.use == Use.TEXT) {
        r.use = Use.NAME;
      }
    }
    if (dynamic || w.text.indexOf("[") >= 0) {
      reader.evaluatesIndirectly();
    }
  }

  /** An argument of eval, source, trap and the other builtins that run their arguments as code. */
  void codeWord(ShellCommand cmd, ShellWord w, String t) {
    code(w, cmd.name + " runs its arguments (or the file they name) as shell code, so the value would be parsed "
        + "as code; set a variable first and refer to it inside the code: v=VALUE; " + cmd.name
        + " '... \"$v\" ...'");
    if (w.dynamic) {
      reader.runsCode(cmd.name + " runs a computed text as code");
    } else if (("source".equals(cmd.name) || ".".equals(cmd.name)) && cmd.arguments == 1 && t != null
        && (t.startsWith("/dev/") || t.startsWith("/proc/") || t.equals("-"))) {
      reader.runsCode(cmd.name + " " + t + " runs what it reads from its input as code");
    }
  }

  /** An argument of printf: -v NAME or -vNAME names the variable it fills. */
  void printfWord(ShellCommand cmd, ShellWord w, String t) {
    if (cmd.nextName) {
      cmd.nextName = false;
      nameWord(w, w.refs, w.dynamic);
      filledVariable(w, t);
    } else if ("-v".equals(t) && w.refs.isEmpty()) {
      cmd.nextName = true;
    } else if (cmd.arguments == 1 && w.text.toString().replaceAll("[\"']", "").startsWith("-v")) {
      nameWord(w, w.refs, w.dynamic); // -vNAME
      filledVariable(w, t == null ? null : t.substring(2));
    }
  }

  /** An argument of declare, typeset, local, export or readonly: an option, a name or an assignment. */
  void declareWord(ShellCommand cmd, ShellWord w, String t) {
    if (w.text.toString().replaceAll("[\"']", "").startsWith("-") && !w.refs.isEmpty()) {
      code(w, "a value cannot be an option of " + cmd.name);
      return;
    }
    if (t != null && t.startsWith("-") && t.length() > 1) {
      if (t.indexOf('i') > 0) {
        cmd.mode = ShellCommand.Mode.ARITHMETIC; // every value assigned now is evaluated as arithmetic
        reader.evaluatesIndirectly();
      }
      if (t.indexOf('n') > 0) {
        reader.evaluatesIndirectly(); // a name reference resolves its value as a variable name
      }
      if (t.indexOf('A') > 0) {
        cmd.declaresAssociative = true;
      }
      return;
    }
    if (w.beforeEquals != null) {
      nameWord(w, w.refsBeforeEquals, w.dynamicBeforeEquals);
      if (w.beforeEquals.indexOf('[') >= 0) {
        reader.evaluatesIndirectly();
      }
      if (w.dynamicBeforeEquals) {
        reader.runsCode(cmd.name + " is given a computed variable name, which may be one the shell runs as code");
      } else {
        assignment(w, w.beforeEquals, w.refsBeforeEquals.size());
      }
    } else {
      nameWord(w, w.refs, w.dynamic);
      Matcher quoted = QUOTED_ASSIGNMENT.matcher(w.text);
      if (quoted.lookingAt()) {
        assignment(w, quoted.group(1), 0); // declare "name=$value": the name is still the literal one
      } else if (w.dynamic) {
        reader.runsCode(cmd.name + " is given a computed variable name, which may be one the shell runs as code");
      }
    }
    if (cmd.declaresAssociative) {
      String name = w.beforeEquals != null ? w.beforeEquals : w.text.toString();
      if (IDENTIFIER.matcher(name).matches()) {
        reader.declareAssociative(name);
      }
    }
  }

  /** An argument of read, unset, mapfile or readarray: an option, its argument, or a variable name. */
  void namesWord(ShellCommand cmd, ShellWord w, String t) {
    if (cmd.nextOptionArgument) {
      cmd.nextOptionArgument = false;
      if (cmd.optionArgumentIsName) {
        nameWord(w, w.refs, w.dynamic);
        if (!"unset".equals(cmd.name)) {
          filledVariable(w, t);
        }
      } else if (cmd.optionArgumentIsCode) {
        code(w, cmd.name + " -C runs its callback as shell code, so the value would be parsed as code");
        if (w.dynamic) {
          reader.runsCode(cmd.name + " -C runs a computed callback");
        }
      }
      return;
    }
    if (w.text.toString().replaceAll("[\"']", "").startsWith("-") && !w.refs.isEmpty()) {
      code(w, "a value cannot be an option of " + cmd.name);
      return;
    }
    if (t != null && t.startsWith("-") && t.length() > 1) {
      char last = t.charAt(t.length() - 1);
      String takesArgument = switch (cmd.name) {
        case "read" -> "adinNptu";
        case "mapfile", "readarray" -> "dnOsuCc";
        default -> "";
      };
      if (takesArgument.indexOf(last) >= 0) {
        cmd.nextOptionArgument = true;
        cmd.optionArgumentIsName = "read".equals(cmd.name) && last == 'a';
        cmd.optionArgumentIsCode = !"read".equals(cmd.name) && last == 'C';
      }
      return;
    }
    nameWord(w, w.refs, w.dynamic);
    if (!"unset".equals(cmd.name)) {
      filledVariable(w, t);
    }
  }

  /**
   * A word of test, [ or [[ ]] ({@code evaluates}: [[ ]], which evaluates both sides of -eq as arithmetic where
   * test only compares integers).
   */
  void testWord(ShellCommand cmd, ShellWord w, String t, boolean evaluates) {
    if (t != null && ARITHMETIC_OPERATORS.contains(t)) {
      if (cmd.previous != null) {
        numericOperand(cmd.previous, evaluates);
      }
      cmd.nextNumeric = true;
      cmd.nextName = false;
      cmd.previous = w;
      return;
    }
    if (cmd.nextNumeric) {
      cmd.nextNumeric = false;
      numericOperand(w, evaluates);
    } else if (cmd.nextName) {
      cmd.nextName = false;
      nameWord(w, w.refs, w.dynamic);
    } else if ("-v".equals(t)) {
      cmd.nextName = true;
    }
    cmd.previous = w;
  }

  /** An operand of -eq and friends: test and [ compare integers; [[ ]] evaluates both sides as arithmetic. */
  private void numericOperand(ShellWord w, boolean evaluates) {
    for (Ref r : w.refs) {
      r.use = Use.INTEGER;
    }
    if (evaluates && (w.dynamic || w.text.chars().anyMatch(ch -> Character.isLetter(ch) || ch == '_'))) {
      reader.evaluatesIndirectly();
    }
  }
}
