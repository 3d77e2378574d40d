package dev.loopflow.core.internal.exec;

import dev.loopflow.core.store.RunStore;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * What every run of one engine shares: its store, services, clock, the executor its nodes run on, and the process
 * environment (where LLM providers find their keys, and the credentials the redactor learns). Made once by the
 * engine; injected like the clock, so a test can give runs an environment of its own.
 */
record EngineParts(RunStore store, Map<Class<?>, Object> services, Clock clock, ExecutorService executor,
    Map<String, String> environment) {
  EngineParts {
    services = Map.copyOf(services);
    environment = Map.copyOf(environment);
  }
}
