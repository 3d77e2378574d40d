package dev.loopflow.core.internal.nodes;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * Variable names whose value is more than data. Bash evaluates what is assigned to its integer-attributed
 * specials as arithmetic (an array subscript met on the way expands, {@code $( )} included); it expands the
 * prompts as code ({@code PS4} under {@code set -x}, {@code PROMPT_COMMAND}) and sources {@code BASH_ENV} and
 * {@code ENV}; and many variables change what later commands run (PATH, IFS, SHELLOPTS, LD_PRELOAD,
 * NODE_OPTIONS, GIT_SSH_COMMAND, PAGER, ...). A value must never be assigned to one of them, and an assignment of
 * something computed to one of the code-valued ones makes the command run code it does not show.
 */
final class ShellSpecials {
  private ShellSpecials() {}

  /** What assigning to a variable does beyond storing text. */
  enum Kind {
    /** An ordinary variable. */
    NONE,
    /** Bash evaluates the assigned text as arithmetic. */
    INTEGER,
    /** The text is run or sourced as code by the shell. */
    CODE,
    /** The text changes how the shell or a program it starts behaves, or which program runs. */
    BEHAVIOUR
  }

  private static final Set<String> INTEGER = Set.of("RANDOM", "SRANDOM", "HISTCMD", "OPTIND", "OPTERR", "LINENO",
      "SECONDS");
  private static final Set<String> CODE = Set.of("PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV",
      "ENV");
  private static final Set<String> BEHAVIOUR = Set.of("IFS", "PATH", "CDPATH", "SHELLOPTS", "BASHOPTS", "FUNCNEST",
      "GLOBIGNORE", "GLOBSORT", "HISTFILE", "HISTCONTROL", "HISTIGNORE", "HOME", "INPUTRC", "SHELL", "CONFIG_SHELL",
      "EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY", "TERMINFO",
      "POSIXLY_CORRECT", "EXECIGNORE", "TMOUT", "MAIL", "MAILPATH", "PROMPT_DIRTRIM", "HOSTFILE", "BASH_COMPAT",
      "COMP_WORDBREAKS", "PWD", "OLDPWD", "TMPDIR", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
      "CLASSPATH", "GEM_HOME", "GEM_PATH", "BUNDLE_GEMFILE", "GOFLAGS", "CARGO_HOME", "RUSTC_WRAPPER", "MAKEFLAGS",
      "SUDO_ASKPASS", "SSH_ASKPASS", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "ZDOTDIR");
  /** Families of variables that programs read as options, commands, code or places to load code from. */
  private static final Pattern BEHAVIOUR_FAMILY = Pattern.compile(
      "(LD_|DYLD_|BASH_|GIT_|PYTHON|PERL|RUBY|NODE_|NPM_CONFIG_|npm_config_|SSH_|LESS|GCONV_|MALLOC_|LUA_"
      + "|PHP_INI|GLIBC_|XDG_).*|.*(_COMMAND|_OPTIONS|_OPTS|_EDITOR|_PAGER|ASKPASS|_SHELL|_RSH|_PRELOAD)");

  static Kind kind(String name) {
    if (INTEGER.contains(name)) {
      return Kind.INTEGER;
    }
    if (CODE.contains(name)) {
      return Kind.CODE;
    }
    if (BEHAVIOUR.contains(name) || BEHAVIOUR_FAMILY.matcher(name).matches()) {
      return Kind.BEHAVIOUR;
    }
    return Kind.NONE;
  }

  /** Why a value must not be assigned to a variable of this kind, for messages. */
  static String why(Kind kind) {
    return switch (kind) {
      case INTEGER -> "bash evaluates what is assigned to it as arithmetic, expanding any array subscript in it";
      case CODE -> "the shell runs or sources its text as code";
      case BEHAVIOUR -> "it changes what the shell or the programs it starts run or how they read their input";
      case NONE -> "";
    };
  }
}
