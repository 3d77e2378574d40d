package dev.loopflow.cli;

import picocli.CommandLine.Option;

/** The options that run and resume share, with the same meaning and help text for both. */
final class ExecutionOptions {
  @Option(names = "--json", description = "Print exactly one JSON result object on stdout.")
  boolean json;

  @Option(names = "--quiet", description = "No progress on stderr.")
  boolean quiet;

  @Option(names = "--http-deny-private", description = "http nodes refuse loopback, private, link-local and other "
      + "non-public addresses, checked after DNS resolution and on every redirect (also: "
      + Support.HTTP_DENY_PRIVATE_ENV + "=1).")
  boolean httpDenyPrivate;
}
