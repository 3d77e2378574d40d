package dev.loopflow.core.internal.nodes;

import dev.loopflow.core.expr.Template;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.spi.NodeConfig;
import dev.loopflow.core.spi.NodeHandler;
import dev.loopflow.core.spi.NodeOutcome;
import dev.loopflow.core.spi.NodeProgram;
import java.util.List;
import java.util.Set;

/** {@code transform}: renders {@code template} (a single {{ expression }} keeps its type). */
final class TransformHandler implements NodeHandler {
  static final NodeKindSpec SPEC = NodeKindSpec.of("transform", "Renders a template or an expression; a template "
      + "that is exactly one {{ expression }} keeps the value's type.", List.of(
      FieldSpec.oneOf("template", "The template to render (a value that is not text is the output as it is).",
          FieldSpec.template("template", null), FieldSpec.any("template", null)),
      FieldSpec.any("value", "A template string to render, or a constant of any type."),
      FieldSpec.string("expression", "An expression whose value is the output.")))
      .oneRequired("template", "value", "expression").atMostOne("template", "value", "expression");

  @Override
  public NodeKindSpec spec() {
    return SPEC;
  }

  @Override
  public Set<String> resultFields() {
    return Set.of();
  }

  @Override
  public NodeProgram compile(NodeConfig cfg) {
    // The loader has refused a node that gives more than one of them (the spec's atMostOne).
    if (!cfg.has("template") && !cfg.has("value") && !cfg.has("expression")) {
      cfg.error(null, "missing required field 'template'");
      return null;
    }
    Template t;
    if (cfg.has("expression")) {
      String expr = cfg.requiredString("expression");
      t = expr == null ? null : cfg.template("expression", "{{ " + expr + " }}");
    } else {
      String field = cfg.has("template") ? "template" : "value";
      Object raw = cfg.plain(field);
      t = raw instanceof String ? cfg.template(field) : null;
      if (!(raw instanceof String)) {
        Object constant = raw;
        return NodeProgram.inline(ctx -> NodeOutcome.of(constant));
      }
    }
    if (t == null) {
      return null;
    }
    Template ft = t;
    return NodeProgram.inline(ctx -> NodeOutcome.of(ctx.evaluate(ft)));
  }
}
