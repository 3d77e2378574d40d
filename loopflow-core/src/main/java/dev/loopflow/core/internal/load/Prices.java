package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Names;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.spi.ModelPrices;
import dev.loopflow.core.yaml.YNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The top-level {@code prices} section: provider → model → {@code {input, output}} in USD per million tokens, the
 * shape of the LLM module's price override files. Read before the nodes, so llm nodes can check their model.
 */
final class Prices {
  private static final String EXAMPLE = "prices: {openai: {my-model: {input: 0.15, output: 0.60}}}";
  static final List<FieldSpec> PRICE = List.of(
      FieldSpec.number("input", 0.0, null, "USD per million prompt tokens.").asRequired(),
      FieldSpec.number("output", 0.0, null, "USD per million reply tokens.").asRequired(),
      FieldSpec.number("cache_read", 0.0, null, "USD per million prompt tokens read from the provider's prompt "
          + "cache; unset: the input price."),
      FieldSpec.number("cache_write", 0.0, null, "USD per million prompt tokens written to the provider's prompt "
          + "cache; unset: the input price."));
  private static final Set<String> REQUIRED = Set.of("input", "output");
  private static final Set<String> FIELDS = FieldSpec.names(PRICE);
  static final FieldSpec SECTION = FieldSpec.map("prices", FieldSpec.map("prices", FieldSpec.section("prices", PRICE,
      "The model's price."), "Model name to its price."), "Model prices in USD per million tokens: provider to "
      + "model to {input, output}; they add to and override the bundled table.");

  private Prices() {}

  /** The section as plain data (provider → model → {input, output} as numbers), every problem reported. */
  static Map<String, Object> section(YNode n, ModelPrices known, Problems problems) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (!(n instanceof YNode.YMap providers)) {
      problems.add(n.location(), "prices", "expected a mapping of provider to model prices, e.g. " + EXAMPLE
          + ", found " + n.describe());
      return out;
    }
    for (YNode.YMap.Entry p : providers.entries().values()) {
      String path = "prices." + p.key();
      if (known != null && !known.providers().contains(p.key())) {
        problems.add(p.keyLocation(), path, "unknown provider '" + p.key() + "'" + Names.suggest(p.key(),
            known.providers()) + "; expected one of " + new TreeSet<>(known.providers()));
        continue;
      }
      if (!(p.value() instanceof YNode.YMap models)) {
        problems.add(p.value().location(), path, "expected a mapping of model name to {input, output}, found "
            + p.value().describe());
        continue;
      }
      Map<String, Object> prices = new LinkedHashMap<>();
      for (YNode.YMap.Entry m : models.entries().values()) {
        Map<String, Object> price = price(m, path + "." + m.key(), problems);
        if (price != null) {
          prices.put(m.key(), price);
        }
      }
      out.put(p.key(), prices);
    }
    return out;
  }

  private static Map<String, Object> price(YNode.YMap.Entry m, String path, Problems problems) {
    if (m.key().isBlank()) {
      problems.add(m.keyLocation(), path, "a model name must not be empty");
      return null;
    }
    if (!(m.value() instanceof YNode.YMap fields)) {
      problems.add(m.value().location(), path, "expected {input, output} in USD per million tokens, found "
          + m.value().describe());
      return null;
    }
    boolean ok = true;
    for (YNode.YMap.Entry f : fields.entries().values()) {
      if (!FIELDS.contains(f.key())) {
        problems.add(f.keyLocation(), path + "." + f.key(), "unknown field '" + f.key() + "'"
            + Names.suggest(f.key(), FIELDS) + "; a price has input and output, and may have cache_read and "
            + "cache_write, in USD per million tokens");
        ok = false;
      }
    }
    Map<String, Object> price = new LinkedHashMap<>();
    for (String f : FIELDS) {
      YNode v = fields.get(f);
      if (v == null && REQUIRED.contains(f)) {
        problems.add(m.value().location(), path, "missing required field '" + f + "' (USD per million "
            + (f.equals("input") ? "prompt" : "reply") + " tokens)");
        ok = false;
      } else if (v == null) {
        continue;
      } else if (v instanceof YNode.YScalar s && s.value() instanceof Number num
          && Double.isFinite(num.doubleValue()) && num.doubleValue() >= 0) {
        price.put(f, num);
      } else {
        problems.add(v.location(), path + "." + f, "'" + f + "' must be a number of USD per million tokens, at "
            + "least 0, found " + (v instanceof YNode.YScalar s && s.value() != null ? "'" + s.value() + "'"
                : v.describe()));
        ok = false;
      }
    }
    return ok ? price : null;
  }
}
