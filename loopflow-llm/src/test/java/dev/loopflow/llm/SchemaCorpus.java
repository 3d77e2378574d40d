package dev.loopflow.llm;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Workflow files for {@link WorkflowSchemaTest}: each is valid, or wrong in one way a schema can see (an unknown
 * key, a wrong type, a value out of range or not among the allowed ones, a missing or doubled field). Nothing here
 * depends on what only loading can check (references, cycles, loop pairing).
 */
final class SchemaCorpus {
  private SchemaCorpus() {}

  record Case(String yaml, boolean valid) {}

  static final Map<String, Case> CASES = new LinkedHashMap<>();

  private static void valid(String name, String yaml) {
    put(name, new Case(yaml, true));
  }

  private static void invalid(String name, String yaml) {
    put(name, new Case(yaml, false));
  }

  private static void put(String name, Case c) {
    if (CASES.put(name, c) != null) {
      throw new IllegalStateException("two cases named " + name);
    }
  }

  /** One node in an otherwise minimal workflow. */
  private static String node(String node) {
    return "nodes:\n  - " + node.strip().replace("\n", "\n    ") + "\n";
  }

  static {
    // --- forms of a node
    valid("shell shorthand", node("{id: a, bash: echo hi}"));
    valid("shell command argv", node("{id: a, command: [echo, hi]}"));
    valid("shell typed", node("{id: a, type: shell, command: echo hi, env: {X: '1'}, cwd: ., shell: bash}"));
    valid("values turned into text may be booleans", node("{id: a, command: [echo, true, 3], env: {DEBUG: true, "
        + "N: 2}}"));
    valid("http header values may be numbers", node("{id: a, type: http, url: 'https://example.com', headers: "
        + "{X-Count: 3, X-Flag: false}}"));
    valid("transform template that is not text", node("{id: a, type: transform, template: [1, {b: c}]}"));
    valid("until_command argv", """
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              until_command: [test, true]
              nodes: [{id: b, type: transform, template: x}]
        """);
    valid("type alias bash", node("{id: a, type: bash, bash: echo hi}"));
    valid("fields under input when typed", node("{id: a, type: shell, input: {command: echo hi}}"));
    valid("name instead of id", node("{name: a, bash: echo hi}"));
    valid("script lua", node("{id: a, run: 'return {x = 1}'}"));
    valid("script typed lua", node("{id: a, type: lua, code: 'return {x = 1}', max_instructions: 5000}"));
    valid("transform template", node("{id: a, type: transform, template: '{{ 1 + 1 }}'}"));
    valid("transform constant", node("{id: a, type: transform, value: [1, 2, {b: c}]}"));
    valid("transform expression", node("{id: a, type: transform, expression: '1 + 1'}"));
    valid("validator", node("{id: a, type: validator, schema: {type: object}, value: '{}', fail_on_invalid: true}"));
    valid("http", node("{id: a, type: http, url: 'https://example.com', method: post, body: {q: '{{ 1 }}'}, "
        + "ok_status: [404], follow_redirects: false, max_response_bytes: 1024}"));
    valid("llm shorthand", node("{id: a, prompt: hi, model: 'mock:m', temperature: 0.2, max_tokens: 10}"));
    valid("llm messages", node("{id: a, type: llm, model: 'mock:m', messages: [{role: system, content: s}, "
        + "{content: hi}], output_schema: {type: object}, session: s1}"));
    valid("uses llm.call", node("{id: a, uses: llm.call, with: {prompt: hi, model: 'mock:m'}}"));
    valid("claude.agent", node("{id: a, type: claude.agent, prompt: hi, model: 'mock:m'}"));
    valid("agent with tools", node("{id: a, type: agent, prompt: hi, model: 'mock:m', tools: [http], "
        + "max_turns: 3}"));
    valid("approval shorthand", node("{id: a, approval: 'ok?', timeout: 1h, default: approve}"));
    valid("cancel shorthand", node("{id: a, cancel: 'stop'}"));
    valid("retry count and durations", node("{id: a, bash: echo, retry: 2, timeout: 1h30m}"));
    valid("retry mapping", node("{id: a, bash: echo, retry: {max_attempts: 3, delay: 500ms}, timeout: 2.5}"));
    valid("depends_on one id", """
        nodes:
          - {id: a, bash: echo}
          - {id: b, bash: echo, depends_on: a, when: {not: {equals: {var: a.output, value: x}}}}
        """);
    valid("router with branches", """
        nodes:
          - id: r
            type: router
            routes: {yes: "1 == 1", no: default}
            value: "{{ 1 }}"
          - {id: y, bash: echo y}
          - {id: n, bash: echo n}
        edges:
          - {from: r, to: y, branch: "yes"}
          - {from: r, to: n, branch: "no"}
        """);
    valid("loop and exit with aliases", """
        nodes:
          - {id: l, type: loop, input: x, max_iterations: 3, exit_condition: stable_output, stability_threshold: 0.5,
             feedback_mode: append, on_exhausted: fail, budget: {max_llm_calls: 3}}
          - {id: b, type: transform, template: "{{ loop.input }}"}
          - {id: l_exit, type: exit}
        edges:
          - {from: l, to: b}
          - {from: b, to: l_exit}
        """);
    valid("while_loop", """
        nodes:
          - name: w
            type: while_loop
            maxIterations: 3
            condition: "(state.n or 0) < 2"
            body:
              - {name: inc, run: "return { n = (state.n or 0) + 1 }"}
        """);
    valid("loop_group shorthand", """
        nodes:
          - id: g
            loop_group:
              until: DONE
              max_iterations: 2
              interactive: true
              gate_message: "again?"
              nodes:
                - {id: b, type: transform, template: DONE}
        """);
    valid("loop_group fields split between node and shorthand", """
        nodes:
          - id: g
            fresh_context: true
            loop_group:
              max_iterations: 2
              until_bash: "true"
              nodes:
                - {id: b, type: transform, template: x}
        """);
    valid("iterator and aggregator", """
        nodes:
          - {id: it, type: iterator, items: "{{ [1, 2] }}", concurrency: 2, continue_on_error: true}
          - {id: b, type: transform, template: "{{ loop.item }}"}
          - {id: agg, type: aggregator}
        edges:
          - {from: it, to: b}
          - {from: b, to: agg}
        """);
    valid("loop edge", """
        nodes:
          - {id: a, bash: echo}
          - {id: b, bash: echo}
        edges:
          - {from: __start__, to: a}
          - {from: a, to: b, label: then}
          - {from: b, to: a, type: loop, maxIterations: 2, when: "false", on_exhausted: continue}
          - {from: b, to: __end__}
        """);
    valid("every top-level section", """
        name: all
        description: every section
        version: 3
        flow: {name: f, input: {q: string}}
        input:
          token: {type: string, default: x, writeOnly: true, description: secret}
          n: integer
        defaults: {model: "mock:m", temperature: 0, max_tokens: 100, system: be brief, timeout: 30s}
        budget: {max_usd: 0.5, max_tokens: 1000, max_llm_calls: 3}
        prices: {openai: {my-model: {input: 0.1, output: 0.2}}}
        limits: {max_steps: 100, timeout: 5m, concurrency: 2}
        state: {drafts: append, other: {merge: replace}}
        restart_policy: {enabled: true, max_iterations: 2, cooldown_seconds: 0, restart_triggers: [a]}
        mock: {responses: [hello]}
        nodes:
          - {id: a, prompt: hi}
        output: "{{ a.text }}"
        """);
    valid("pipeline with agents", """
        workflow_pattern:
          iterative:
            pipeline:
              initial_prompt: start
              stages:
                - {agent_id: one, prompt_template: "do"}
                - {agent_id: two, prompt_template: "then {{previous}}", output_schema: {type: object}}
            max_iterations: 3
            restart_policy: {enabled: true, max_validation_retries: 1}
        agents:
          one: {model: "mock:m", system: be brief, max_turns: 2}
        """);

    // --- wrong at the top level
    invalid("unknown top-level key", "nodez: []\n" + node("{id: a, bash: echo}"));
    invalid("no nodes", "name: x\n");
    invalid("empty nodes", "nodes: []\n");
    invalid("pipeline with nodes", """
        workflow_pattern:
          iterative:
            pipeline:
              stages: [{agent_id: one, prompt_template: "do"}]
        nodes:
          - {id: a, bash: echo}
        """);
    invalid("agents without a pipeline", "agents: {a: {model: 'mock:m'}}\n" + node("{id: a, bash: echo}"));
    invalid("stage without prompt_template", """
        workflow_pattern:
          iterative:
            pipeline:
              stages: [{agent_id: one}]
        """);
    invalid("agent settings set an id", """
        workflow_pattern:
          iterative:
            pipeline:
              stages: [{agent_id: one, prompt_template: "do"}]
        agents:
          one: {id: other}
        """);
    invalid("limits unknown key", "limits: {max_stepz: 3}\n" + node("{id: a, bash: echo}"));
    invalid("limits max_steps zero", "limits: {max_steps: 0}\n" + node("{id: a, bash: echo}"));
    invalid("limits concurrency too high", "limits: {concurrency: 1025}\n" + node("{id: a, bash: echo}"));
    invalid("budget negative", "budget: {max_usd: -1}\n" + node("{id: a, bash: echo}"));
    invalid("defaults temperature negative", "defaults: {temperature: -0.5}\n" + node("{id: a, bash: echo}"));
    invalid("state merge unknown", "state: {k: prepend}\n" + node("{id: a, bash: echo}"));
    invalid("input type unknown", "input: {q: text}\n" + node("{id: a, bash: echo}"));
    invalid("restart cooldown too long", "restart_policy: {cooldown_seconds: 5000}\n" + node("{id: a, bash: echo}"));
    invalid("restart policy unknown key", "restart_policy: {enabeld: true}\n" + node("{id: a, bash: echo}"));
    invalid("price without output", "prices: {openai: {m: {input: 1}}}\n" + node("{id: a, bash: echo}"));
    invalid("description is a list", "description: [a]\n" + node("{id: a, bash: echo}"));

    // --- wrong in a node
    invalid("unknown field on a shell node", node("{id: a, bash: echo, modle: x}"));
    invalid("node without id", node("{bash: echo}"));
    invalid("node with id and name", node("{id: a, name: b, bash: echo}"));
    invalid("node id with a dot", node("{id: a.b, bash: echo}"));
    invalid("node id reserved", node("{id: input, bash: echo}"));
    invalid("node without kind", node("{id: a, description: what am I}"));
    invalid("unknown type", node("{id: a, type: shel, command: echo}"));
    invalid("shell command and bash", node("{id: a, command: echo, bash: echo}"));
    invalid("shell without command", node("{id: a, type: shell}"));
    invalid("typed fields under a string input", node("{id: a, type: shell, command: echo, input: x}"));
    invalid("transform template and value", node("{id: a, type: transform, template: x, value: y}"));
    invalid("transform with nothing", node("{id: a, type: transform}"));
    invalid("validator without schema", node("{id: a, type: validator, value: x}"));
    invalid("http method unknown", node("{id: a, type: http, url: 'https://e.com', method: FETCH}"));
    invalid("http ok_status out of range", node("{id: a, type: http, url: 'https://e.com', ok_status: [700]}"));
    invalid("script language unknown", node("{id: a, run: 'x', language: ruby}"));
    invalid("script both run and code", node("{id: a, run: x, code: y}"));
    invalid("llm without prompt", node("{id: a, type: llm, model: 'mock:m'}"));
    invalid("llm provider unknown", node("{id: a, prompt: hi, model: m, provider: acme}"));
    invalid("llm message role unknown", node("{id: a, type: llm, model: 'mock:m', messages: [{role: robot, "
        + "content: hi}]}"));
    invalid("llm max_tokens zero", node("{id: a, prompt: hi, model: 'mock:m', max_tokens: 0}"));
    invalid("agent max_turns too high", node("{id: a, type: agent, prompt: hi, model: 'mock:m', max_turns: 101}"));
    invalid("uses unknown action", node("{id: a, uses: foo.bar, with: {prompt: hi}}"));
    invalid("uses with a string", node("{id: a, uses: llm.call, with: hi}"));
    invalid("router without routes", node("{id: a, type: router}"));
    invalid("approval default unknown", node("{id: a, approval: ok, timeout: 1h, default: maybe}"));
    invalid("approval message twice", node("{id: a, type: approval, approval: ok, message: ok}"));
    invalid("retry too many", node("{id: a, bash: echo, retry: 101}"));
    invalid("retry max_attempts zero", node("{id: a, bash: echo, retry: {max_attempts: 0}}"));
    invalid("retry unknown key", node("{id: a, bash: echo, retry: {tries: 2}}"));
    invalid("timeout not a duration", node("{id: a, bash: echo, timeout: soon}"));
    invalid("timeout negative", node("{id: a, bash: echo, timeout: -5}"));
    invalid("allow_failure not a boolean", node("{id: a, bash: echo, allow_failure: maybe}"));
    invalid("when is a number", node("{id: a, bash: echo, when: 5}"));
    invalid("structured condition with two operators", node("{id: a, bash: echo, when: {not: 'false', "
        + "expr: 'true'}}"));
    invalid("structured condition unknown operator", node("{id: a, bash: echo, when: {unless: 'true'}}"));

    // --- wrong in a loop
    invalid("while max_iterations wrong type", """
        nodes:
          - name: w
            type: while_loop
            max_iterations: five
            condition: "true"
            body: [{name: b, run: "return {}"}]
        """);
    invalid("while max_iterations missing", """
        nodes:
          - name: w
            type: while_loop
            condition: "true"
            body: [{name: b, run: "return {}"}]
        """);
    invalid("while max_iterations twice", """
        nodes:
          - name: w
            type: while_loop
            max_iterations: 2
            maxIterations: 2
            condition: "true"
            body: [{name: b, run: "return {}"}]
        """);
    invalid("while body empty", """
        nodes:
          - {name: w, type: while_loop, max_iterations: 2, condition: "true", body: []}
        """);
    invalid("loop_group max_iterations out of range", """
        nodes:
          - id: g
            loop_group:
              max_iterations: 1001
              nodes: [{id: b, type: transform, template: x}]
        """);
    invalid("loop_group shorthand is not a mapping", node("{id: g, loop_group: 5}"));
    invalid("loop_group until_command and until_bash", """
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              until_command: "true"
              until_bash: "true"
              nodes: [{id: b, type: transform, template: x}]
        """);
    invalid("loop_group unknown field in the shorthand", """
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              untill: DONE
              nodes: [{id: b, type: transform, template: x}]
        """);
    invalid("body node unknown field", """
        nodes:
          - id: g
            loop_group:
              max_iterations: 2
              nodes: [{id: b, type: transform, template: x, colour: red}]
        """);
    invalid("loop maxIterations over 50", """
        nodes:
          - {id: l, type: loop, maxIterations: 51}
          - {id: b, type: transform, template: x}
          - {id: l_exit, type: exit}
        edges: [{from: l, to: b}, {from: b, to: l_exit}]
        """);
    invalid("loop exitCondition unknown", """
        nodes:
          - {id: l, type: loop, exitCondition: sometimes}
          - {id: b, type: transform, template: x}
          - {id: l_exit, type: exit}
        edges: [{from: l, to: b}, {from: b, to: l_exit}]
        """);
    invalid("loop stabilityThreshold over 1", """
        nodes:
          - {id: l, type: loop, stabilityThreshold: 1.5}
          - {id: b, type: transform, template: x}
          - {id: l_exit, type: exit}
        edges: [{from: l, to: b}, {from: b, to: l_exit}]
        """);
    invalid("loop on_exhausted unknown", """
        nodes:
          - {id: l, type: loop, on_exhausted: explode}
          - {id: b, type: transform, template: x}
          - {id: l_exit, type: exit}
        edges: [{from: l, to: b}, {from: b, to: l_exit}]
        """);
    invalid("exit with a field", """
        nodes:
          - {id: l, type: loop}
          - {id: b, type: transform, template: x}
          - {id: l_exit, type: exit, value: x}
        edges: [{from: l, to: b}, {from: b, to: l_exit}]
        """);
    invalid("iterator concurrency zero", """
        nodes:
          - {id: it, type: iterator, items: "{{ [1] }}", concurrency: 0}
          - {id: b, type: transform, template: x}
          - {id: agg, type: aggregator}
        edges: [{from: it, to: b}, {from: b, to: agg}]
        """);
    invalid("iterator without items", """
        nodes:
          - {id: it, type: iterator}
          - {id: b, type: transform, template: x}
          - {id: agg, type: aggregator}
        edges: [{from: it, to: b}, {from: b, to: agg}]
        """);
    invalid("loop on a retry", """
        nodes:
          - {id: l, type: loop, retry: 2}
          - {id: b, type: transform, template: x}
          - {id: l_exit, type: exit}
        edges: [{from: l, to: b}, {from: b, to: l_exit}]
        """);

    // --- wrong in an edge
    invalid("edge type unknown", """
        nodes: [{id: a, bash: echo}, {id: b, bash: echo}]
        edges: [{from: a, to: b, type: lopp}]
        """);
    invalid("edge without to", """
        nodes: [{id: a, bash: echo}, {id: b, bash: echo}]
        edges: [{from: a}]
        """);
    invalid("edge unknown field", """
        nodes: [{id: a, bash: echo}, {id: b, bash: echo}]
        edges: [{from: a, to: b, weight: 3}]
        """);
    invalid("loop edge maxIterations out of range", """
        nodes: [{id: a, bash: echo}, {id: b, bash: echo}]
        edges: [{from: a, to: b}, {from: b, to: a, type: loop, maxIterations: 0}]
        """);
  }
}
