package dev.loopflow.store.jdbc;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;

/** The one kind of error a store raises when it cannot do its work: code {@link ErrorCode#STORE_UNAVAILABLE}. */
final class StoreFailures {
  private StoreFailures() {}

  /** {@code message} names the store and what failed; {@code cause} is the driver's, Flyway's or the file system's. */
  static LoopflowException of(String message, Throwable cause) {
    return new LoopflowException(ErrorCode.STORE_UNAVAILABLE, message, null, cause);
  }
}
