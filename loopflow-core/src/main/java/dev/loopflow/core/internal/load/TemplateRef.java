package dev.loopflow.core.internal.load;

import dev.loopflow.core.model.Location;
import java.util.Set;

/** A compiled template's root names and where it was written, checked once all node ids are known. */
record TemplateRef(Set<String> roots, Location location, String path, String source) {}
