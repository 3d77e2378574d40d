package dev.loopflow.cli;

import picocli.CommandLine.Option;

/** The options that run and resume share, with the same meaning and help text for both. */
final class ExecutionOptions {
  @Option(names = "--json", description = "Print exactly one JSON result object on stdout.")
  boolean json;

  @Option(names = "--quiet", description = "No progress on stderr.")
  boolean quiet;

  @Option(names = "--no-stream", description = "Do not stream LLM replies. By default llm and agent nodes stream "
      + "their replies while progress is shown or --events-jsonl is written (the running node's row shows the "
      + "latest text; results are the same either way).")
  boolean noStream;

  @Option(names = "--http-deny-private", description = "http nodes refuse loopback, private, link-local and other "
      + "non-public addresses, checked after DNS resolution and on every redirect (also: "
      + Support.HTTP_DENY_PRIVATE_ENV + "=1).")
  boolean httpDenyPrivate;

  @Option(names = "--sandbox", paramLabel = "MODE", description = Support.SANDBOX_HELP)
  String sandbox;
}
