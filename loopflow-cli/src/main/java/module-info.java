/**
 * The {@code loopflow} command line. Exports nothing: its API is the command line. The command package is opened
 * to picocli, which reads and sets the commands' annotated fields reflectively.
 */
module dev.loopflow.cli {
  requires dev.loopflow.core;
  requires dev.loopflow.llm;
  requires dev.loopflow.store.jdbc;
  requires org.xerial.sqlitejdbc; // to point its driver at a verified copy of its native library
  requires dev.loopflow.server;
  requires dev.loopflow.observability;
  requires com.fasterxml.jackson.databind;
  requires info.picocli;
  requires jdk.unsupported;
  requires java.logging; // to quiet the OpenTelemetry SDK's export warnings on stderr

  opens dev.loopflow.cli to info.picocli;
}
