package dev.loopflow.core.internal.load;

import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import java.util.List;

/**
 * The field groups of a node kind's {@link NodeKindSpec} that the loader checks before the kind's handler compiles a
 * node, so that no handler checks them again.
 *
 * <p>Fields that exclude each other ({@link NodeKindSpec#atMostOne()}, such as a shell node's {@code command} and
 * {@code bash}): a node that gives more than one field of a group is reported, and its handler is not called, since
 * which of the values it should read is undecided. A field is given when it has a value ({@code field: null} is not
 * given). For a pair the problem is at the second field ({@code give 'command' or 'bash', not both}), as the loader
 * also words a pair of a loop group's fields; for a larger group it is at the node ({@code give one of 'template',
 * 'value' or 'expression'}). Tests and users' tools match these messages: keep their wording.
 *
 * <p>The other groups a spec declares ({@link NodeKindSpec#oneRequired()} and required fields) are not checked here:
 * a handler reports a missing field itself, in words of its kind (an llm node's names both {@code prompt} and
 * {@code messages}), and goes on to report the node's other problems.
 */
final class FieldGroups {
  private FieldGroups() {}

  /** Reports each group of {@code spec} of which {@code cfg} gives more than one field; false if there was one. */
  static boolean checkExclusive(NodeKindSpec spec, NodeConfig cfg) {
    boolean ok = true;
    for (List<String> group : spec.atMostOne()) {
      if (group.stream().filter(cfg::has).count() < 2) {
        continue;
      }
      ok = false;
      if (group.size() == 2) {
        cfg.error(group.get(1), "give '" + group.get(0) + "' or '" + group.get(1) + "', not both");
      } else {
        cfg.error(null, "give one of " + quoted(group));
      }
    }
    return ok;
  }

  /** {@code 'a', 'b' or 'c'}. */
  private static String quoted(List<String> names) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      out.append(i == 0 ? "" : i == names.size() - 1 ? " or " : ", ").append('\'').append(names.get(i)).append('\'');
    }
    return out.toString();
  }
}
