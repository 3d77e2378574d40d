package dev.loopflow.cli;

import picocli.CommandLine.Option;

/**
 * The {@code --store} option of the commands that look at or change runs already journaled (show, events, runs,
 * cancel). Where it is not given, {@link Stores} falls back to LOOPFLOW_STORE, then the default SQLite file.
 */
final class StoreOption {
  @Option(names = "--store", paramLabel = "URL", description = "Run store.")
  String url;
}
