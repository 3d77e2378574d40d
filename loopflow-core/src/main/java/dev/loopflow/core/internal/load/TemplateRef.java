package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import dev.loopflow.core.expr.Reference;
import java.util.List;
import java.util.Set;

/**
 * A compiled template's references and where it was written, checked once all node ids are known. {@code locals}
 * are names the construct itself provides to this template (a router's route conditions see {@code value}).
 */
record TemplateRef(List<Reference> references, Set<String> locals, Location location, String path, String source) {
  TemplateRef(List<Reference> references, Location location, String path, String source) {
    this(references, Set.of(), location, path, source);
  }

  TemplateRef withLocals(Set<String> names) {
    return new TemplateRef(references, names, location, path, source);
  }
}
