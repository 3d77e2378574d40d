package dev.loopflow.core.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One node kind: the fields it takes besides the ones every node has, and which of them go together.
 *
 * @param kind the kind, as written in {@code type:}
 * @param description what a node of this kind does
 * @param fields the kind's own fields; a field marked {@link FieldSpec#asRequired() required} must be given
 * @param oneRequired groups of fields of which at least one must be given (e.g. {@code prompt} or
 *     {@code messages})
 * @param atMostOne groups of fields of which at most one may be given (e.g. {@code command} and {@code bash})
 */
public record NodeKindSpec(String kind, String description, List<FieldSpec> fields, List<List<String>> oneRequired,
    List<List<String>> atMostOne) {
  public NodeKindSpec {
    Objects.requireNonNull(kind, "kind");
    fields = List.copyOf(fields);
    oneRequired = oneRequired.stream().map(List::copyOf).toList();
    atMostOne = atMostOne.stream().map(List::copyOf).toList();
  }

  public static NodeKindSpec of(String kind, String description, List<FieldSpec> fields) {
    return new NodeKindSpec(kind, description, fields, List.of(), List.of());
  }

  /** This kind, needing at least one of {@code names}. */
  public NodeKindSpec oneRequired(String... names) {
    List<List<String>> groups = new ArrayList<>(oneRequired);
    groups.add(List.of(names));
    return new NodeKindSpec(kind, description, fields, groups, atMostOne);
  }

  /** This kind, taking at most one of {@code names}. */
  public NodeKindSpec atMostOne(String... names) {
    List<List<String>> groups = new ArrayList<>(atMostOne);
    groups.add(List.of(names));
    return new NodeKindSpec(kind, description, fields, oneRequired, groups);
  }

  /** Every field name the kind takes (aliases included): what the loader checks a node's keys against. */
  public Set<String> fieldNames() {
    return FieldSpec.names(fields);
  }
}
