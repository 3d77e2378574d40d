package dev.loopflow.core.restart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.model.Workflow;
import dev.loopflow.core.run.RestartRequest;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.run.RunResult;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.secrets.Redactor;
import dev.loopflow.core.spi.SharedMemory;
import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.RunStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A credential of the run's environment that a model echoes into every place a pipeline writes: its stage output, a
 * restart reason and parameter (from the node and from outside), a shared-memory value in each namespace. None of
 * what the run writes down or hands out holds it: result, events, journal rows, command payloads and responses, and
 * shared memory, which outlives the run (AGENT and GLOBAL are readable by other runs).
 */
class PipelineSecretsTest {
  private final RunStore store = RunStore.inMemory();
  private final List<Event> events = Collections.synchronizedList(new ArrayList<>());

  /** A credential only its shape gives away (the requesting process of a request from outside knows no more). */
  private static final String SHAPED = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

  /** Credentials as they appear: a value of the run's environment, and one only its shape gives away. */
  static Stream<String> secrets() {
    return Stream.of("q7Zp2LmX9vR4tW8nK3cY", SHAPED);
  }

  @ParameterizedTest
  @MethodSource("secrets")
  void aCredentialAModelEchoesIsMaskedInEverythingThePipelineWrites_bugCommandsAndSharedMemoryKeptIt(String secret) {
    Map<String, HostileAgent.Reply> replies = Map.of(
        "a", c -> "a saw " + secret,
        "b", c -> {
          SharedMemory mem = c.ctx().sharedMemory();
          mem.put(SharedMemory.Namespace.WORKFLOW, null, "note", "workflow " + secret, Map.of("why", secret));
          mem.put(SharedMemory.Namespace.GLOBAL, null, "note", "global " + secret, Map.of());
          mem.put(SharedMemory.Namespace.AGENT, "b", "note", "agent " + secret, Map.of());
          if (c.n() == 0) {
            c.ctx().requestRestart("a", "because " + secret, Map.of("token", secret, "p", "x" + secret));
          }
          return "{\"restart\": null, \"echo\": \"" + secret + "\"}";
        },
        "c", c -> {
          if (c.n() == 0) {
            Loopflow.builder().discover(false).store(store).build().requestRestart(c.ctx().runId(),
                new RestartRequest(null, "a", "outside " + SHAPED, Map.of("k", SHAPED), 0, 0));
          }
          return "c";
        });
    HostileAgent agent = new HostileAgent(replies);
    Loopflow lf = Loopflow.builder().discover(false).handler(agent).store(store).build();
    Workflow wf = lf.parse("""
        name: secrets
        workflow_pattern:
          iterative:
            pipeline:
              stages:
                - {agent_id: a, prompt_template: "a {{ loop.restart.reason }}"}
                - {agent_id: b, prompt_template: "b {{previous}}"}
                - {agent_id: c, prompt_template: "c {{previous}}"}
            max_iterations: 5
            restart_policy: {enabled: true, max_validation_retries: 0, keep_shared_memory: true}
        """, "secrets.yaml");
    RunResult r = lf.run(wf, RunOptions.builder().listener(events::add)
        .environment(Map.of("MY_API_KEY", "q7Zp2LmX9vR4tW8nK3cY", "PATH", System.getenv("PATH"))).build());

    assertThat(r.status()).as(String.valueOf(r.error())).isEqualTo(RunStatus.COMPLETED);
    assertThat(agent.calls("a")).isEqualTo(3);

    assertThat(Json.compact(r.toJson())).as("result").doesNotContain(secret);
    events.forEach(e -> assertThat(Events.toJson(e).toString()).as("event").doesNotContain(secret));
    store.events(r.runId()).forEach(e -> assertThat(Events.toJson(e).toString()).as("journaled event")
        .doesNotContain(secret));
    store.nodeExecutions(r.runId()).forEach(e -> assertThat(e.toString()).as("execution").doesNotContain(secret));
    assertThat(agent.promptsOf("a").get(1)).isEqualTo("a because " + Redactor.MASK);
    store.commands(r.runId()).forEach(c -> {
      assertThat(Json.compact(c.payload())).as("command payload").doesNotContain(secret).doesNotContain(SHAPED)
          .contains(Redactor.MASK);
      assertThat(Json.compact(c.response())).as("command response").doesNotContain(secret);
    });
    List<MemoryEntry> memory = new ArrayList<>(store.listMemory(r.runId(), "WORKFLOW", ""));
    memory.addAll(store.listMemory("", "GLOBAL", ""));
    memory.addAll(store.listMemory("agent/secrets/b", "AGENT", ""));
    assertThat(memory).hasSize(6); // note x3, stage-1..3-output
    for (MemoryEntry e : memory) {
      String value = new String(e.compressed() ? gunzip(e.value()) : e.value(), StandardCharsets.UTF_8);
      assertThat(value).as("shared memory " + e.namespace() + " " + e.key()).doesNotContain(secret);
      assertThat(e.metadata().toString()).as("metadata").doesNotContain(secret);
    }
    assertThat(new String(store.getMemory("", "GLOBAL", "note").orElseThrow().value(), StandardCharsets.UTF_8))
        .isEqualTo("global " + Redactor.MASK);
  }

  private static byte[] gunzip(byte[] b) {
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(b))) {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
