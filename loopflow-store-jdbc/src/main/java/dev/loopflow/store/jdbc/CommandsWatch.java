package dev.loopflow.store.jdbc;

/**
 * Tells an engine, cheaply, that a command may have been appended to some run by any process since it last looked
 * (see {@link dev.loopflow.core.store.RunStore#commandsVersion()}). A watch may report changes that are not
 * appends; it must never miss one: when it cannot tell, its version changes anyway, so that callers fall back to
 * reading the pending commands.
 */
interface CommandsWatch extends AutoCloseable {
  /** The current token; differs from every earlier one once a command was appended since. */
  long version();

  /** Called by this store after it committed an append, so the appending process sees the change at once. */
  void appended();

  /** The name of the channel PostgreSQL stores notify on, in the transaction that appends a command. */
  String CHANNEL = "loopflow_run_commands";

  @Override
  void close();
}
