/**
 * The loopflow HTTP server: the JSON API over a run store, live run events as server-sent events, and the web UI
 * bundle when one is on the class path. {@code dev.loopflow.server} is the API ({@link
 * dev.loopflow.server.LoopflowServer}); {@code dev.loopflow.server.internal} (routes, the event feed, workflow
 * files) is not exported.
 *
 * <p>Javalin and the Jetty modules it requires are named modules; Javalin is written in Kotlin and brings the Kotlin
 * standard library as a module too.
 */
module dev.loopflow.server {
  requires transitive dev.loopflow.core;
  requires dev.loopflow.llm;
  requires transitive dev.loopflow.observability;
  requires io.javalin;
  requires org.eclipse.jetty.server;
  requires org.eclipse.jetty.util;

  exports dev.loopflow.server;
  exports dev.loopflow.server.spi;
}
