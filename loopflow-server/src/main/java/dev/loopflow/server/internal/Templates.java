package dev.loopflow.server.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The workflow templates the builder offers: YAML files shipped in this module next to this class (under
 * {@code templates/}), one per loop form. What must stay true: each loads, runs to completion on the mock provider
 * with no inputs given, and equals the example of the same form in {@code examples/} but for its header comment
 * (TemplatesTest checks all three).
 */
final class Templates {
  private Templates() {}

  /**
   * One template.
   *
   * @param id the name in {@code /api/templates/{id}} and of its file, {@code templates/ID.yaml}
   * @param name what the builder shows
   * @param description one sentence on what it does
   * @param form the loop construct it shows: {@code loop}, {@code loop edge}, {@code while_loop}, {@code loop_group}
   *     or {@code pipeline}
   */
  record Template(String id, String name, String description, String form) {}

  /** Every template, in the order the builder offers them. */
  static final List<Template> ALL = List.of(
      new Template("self-refine", "Self-Refine", "Draft → critique → revise loop: a model improves its own output "
          + "over three passes.", "loop"),
      new Template("agentic-search", "Agentic Search", "A model decides what to search, judges the results, and "
          + "searches again until they answer the question.", "loop"),
      new Template("coder-reviewer", "Coder and reviewer", "A coder and a reviewer; a loop edge sends the work "
          + "back to the coder until the review passes.", "loop edge"),
      new Template("counter", "Counter", "A while_loop whose script body counts to three.", "while_loop"),
      new Template("refine-until-valid", "Refine until valid", "A while_loop that asks a model for JSON and "
          + "validates it, repeating while it is not valid (the validator needs python3).", "while_loop"),
      new Template("implement-test-review", "Implement, test, review", "A loop_group repeating implement → test → "
          + "review as one unit until the review says the tests pass.", "loop_group"),
      new Template("pipeline", "Iterative pipeline", "Two pipeline stages, the second reading the first's output; "
          + "every stage's output is checked and can be restarted.", "pipeline"));

  static Optional<Template> find(String id) {
    return ALL.stream().filter(t -> t.id().equals(id)).findFirst();
  }

  static List<String> ids() {
    return ALL.stream().map(Template::id).toList();
  }

  /** The template's YAML, as shipped. */
  static String source(Template t) {
    String resource = "templates/" + t.id() + ".yaml";
    try (InputStream in = Templates.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("the template file " + resource + " is missing from the server module");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the template file " + resource, e);
    }
  }
}
