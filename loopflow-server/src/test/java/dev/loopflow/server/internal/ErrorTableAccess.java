package dev.loopflow.server.internal;

import dev.loopflow.core.error.ErrorCode;

/** Lets tests in other packages read the error table, which is package-private. */
public final class ErrorTableAccess {
  private ErrorTableAccess() {}

  public static int status(ErrorCode code) {
    return ErrorTable.of(code).status();
  }
}
