package dev.loopflow.core.internal.nodes;

/**
 * The simple command {@link ShellWords} is reading: its name, what its arguments mean ({@link Mode}) and where in
 * its arguments the reading is. A new one starts at every control operator and wherever a command hands its
 * remaining words to another command (builtin, command, find -exec, env, xargs, ...).
 *
 * <p>It is plain state, written by {@link ShellWords}, {@link ShellArguments} and {@link ShellProgramArguments}
 * while one word is classified; none of them keeps it past the command.
 */
final class ShellCommand {
  /** What the arguments of the command are, decided by its name. */
  enum Mode {
    /** No command name yet. */
    PLAIN,
    /** let, declare -i: every argument is arithmetic. */
    ARITHMETIC,
    /** declare, typeset, local, export, readonly: options, then names and assignments. */
    DECLARE,
    /** read, unset, mapfile, readarray: options, then variable names. */
    NAMES,
    /** test and [: operands and operators. */
    TEST,
    /** printf: -v names a variable it fills. */
    PRINTF,
    /** eval, source, trap, ...: the arguments are shell code. */
    CODE,
    /** A program that takes code (sh -c, python -c, awk, ...): see {@link ShellPrograms.Interpreter}. */
    INTERPRETER,
    /** A program that runs another command (env, sudo, timeout, xargs, ...): see {@link ShellPrograms.Runner}. */
    RUNNER,
    /** for, select: the first argument is the variable it fills. */
    FOR,
    /** find: -exec and friends start a command. */
    FIND,
    /** A program that runs whatever its arguments or input say. */
    ANY_CODE,
    /** Any other command: its arguments are plain text. */
    OTHER
  }

  String name;
  Mode mode = Mode.PLAIN;
  ShellWord current;
  ShellWord previous;
  boolean nextNumeric;
  boolean nextName;
  boolean nextOptionArgument;
  boolean optionArgumentIsName;
  boolean optionArgumentIsCode;
  boolean nextRedirectTarget;
  boolean declaresAssociative;
  ShellPrograms.Interpreter interpreter;
  ShellPrograms.Runner runner;
  boolean nextIsCode;
  boolean optionGaveCode;
  boolean firstOperandIsCode;
  boolean endOfOptions;
  int operands;
  int arguments;
  /** Run by xargs, which adds what it reads to this command's arguments. */
  boolean fedByInput;
}
