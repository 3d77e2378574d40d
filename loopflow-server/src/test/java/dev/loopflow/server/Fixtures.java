package dev.loopflow.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Workflows the server tests run, and the gate files that hold a run at a known point until a test releases it. */
final class Fixtures {
  private Fixtures() {}

  /** Completes at once. */
  static final String QUICK = """
      name: quick
      nodes:
        - {id: a, type: transform, template: hello}
        - {id: b, type: transform, template: "{{ a.output }} world"}
      edges: [{from: a, to: b}]
      output: "{{ b.output }}"
      """;

  /** Waits at node {@code wait} until the file named by the input {@code gate} exists. */
  static final String GATED = """
      name: gated
      input:
        gate: {type: string}
      nodes:
        - {id: first, type: transform, template: one}
        - id: wait
          bash: 'while [ ! -f "{{ input.gate }}" ]; do sleep 0.02; done; echo released'
        - {id: last, type: transform, template: "{{ wait.output }} done"}
      edges: [{from: first, to: wait}, {from: wait, to: last}]
      output: "{{ last.output }}"
      """;

  /** Waits at a gate, then runs five loop passes. */
  static final String LOOPING = """
      name: looping
      input:
        gate: {type: string}
      nodes:
        - id: wait
          bash: 'while [ ! -f "{{ input.gate }}" ]; do sleep 0.02; done; echo go'
        - id: passes
          loop_group:
            max_iterations: 5
            nodes:
              - id: step
                bash: 'sleep 0.03; echo pass'
      edges: [{from: wait, to: passes}]
      """;

  /** Pauses for an approval after its first node. */
  static final String APPROVAL = """
      name: approve-me
      nodes:
        - {id: build, type: transform, template: built}
        - id: ask
          approval: "Ship {{ build.output }}?"
        - {id: ship, type: transform, template: "shipped {{ build.output }}"}
      edges: [{from: build, to: ask}, {from: ask, to: ship}]
      output: "{{ ship.output }}"
      """;

  /** Declares typed inputs, one required. */
  static final String TYPED = """
      name: typed
      input:
        topic: {type: string}
        rounds: {type: integer, default: 1}
        strict: {type: boolean, default: false}
      nodes:
        - {id: a, type: transform, template: "{{ input.topic }}:{{ input.rounds + 1 }}:{{ input.strict }}"}
      output: "{{ a.output }}"
      """;

  /** Prints its working directory. */
  static final String PWD = """
      name: where
      nodes:
        - {id: here, bash: pwd}
      output: "{{ here.output }}"
      """;

  /** Streams a model reply (the mock provider) after a gate. */
  static final String STREAMING = """
      name: streaming
      input:
        gate: {type: string}
      nodes:
        - id: wait
          bash: 'while [ ! -f "{{ input.gate }}" ]; do sleep 0.02; done; echo go'
        - id: talk
          type: llm
          model: "mock:demo"
          prompt: "Say something"
          mock: ["a reply streamed in several pieces to whoever watches"]
      edges: [{from: wait, to: talk}]
      """;

  /**
   * A restart policy over plan → implement → wait → verify: {@code wait} holds each iteration at the file
   * {@code GATE-ITERATION}, so requests sent meanwhile are decided after it completes, with {@code implement}
   * upstream. Only {@code implement} may be restarted, only by {@code wait} or {@code verify} (a request from
   * outside names one of them as its requester), once an hour.
   */
  static final String RESTARTABLE = """
      name: restartable
      input:
        gate: {type: string}
      restart_policy:
        enabled: true
        max_iterations: 4
        cooldown_seconds: 3600
        restartable_stages: [implement]
        restart_triggers: [wait, verify]
      nodes:
        - {id: plan, type: transform, template: plan}
        - {id: implement, type: transform, template: "implementation {{ loop.iteration }}"}
        - id: wait
          bash: 'while [ ! -f "{{ input.gate }}-{{ loop.iteration }}" ]; do sleep 0.02; done; echo waited'
        - {id: verify, type: transform, template: verified}
      edges: [{from: plan, to: implement}, {from: implement, to: wait}, {from: wait, to: verify}]
      output: "{{ implement.output }}"
      """;

  /** Creates {@code file}, releasing a run waiting for it. */
  static void release(Path file) {
    try {
      Files.writeString(file, "go");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
