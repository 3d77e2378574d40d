/**
 * For tests: fake OpenAI, Anthropic and Ollama servers, a throwaway PostgreSQL server and the {@code RunStore}
 * contract suite. Opened because the contract suite's test methods are found and invoked reflectively by JUnit.
 */
open module dev.loopflow.testkit {
  requires transitive dev.loopflow.core;
  requires transitive org.junit.jupiter.api;
  requires transitive org.junit.jupiter.params;
  requires transitive org.assertj.core;
  requires jdk.httpserver;

  exports dev.loopflow.testkit;
}
