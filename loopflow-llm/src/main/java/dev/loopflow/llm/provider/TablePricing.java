package dev.loopflow.llm.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.LoopflowException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** {@link Pricing} over an immutable provider → model → price map with lower-cased keys. */
final class TablePricing implements Pricing {

    private static final String RESOURCE = "pricing.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static final TablePricing EMPTY = new TablePricing(Map.of(), "");
    static final TablePricing DEFAULTS = loadBundled();

    private final Map<String, Map<String, ModelPrice>> prices;
    private final String asOf;

    private TablePricing(Map<String, Map<String, ModelPrice>> prices, String asOf) {
        this.prices = prices;
        this.asOf = asOf;
    }

    @Override
    public Pricing withOverrides(Map<String, Map<String, ModelPrice>> overrides) {
        return new TablePricing(merge(overrides), asOf);
    }

    private Map<String, Map<String, ModelPrice>> merge(Map<String, Map<String, ModelPrice>> overrides) {
        Objects.requireNonNull(overrides, "prices must not be null");
        Map<String, Map<String, ModelPrice>> merged = new HashMap<>();
        prices.forEach((provider, models) -> merged.put(provider, new HashMap<>(models)));
        overrides.forEach((provider, models) -> {
            String providerKey = key("provider", provider);
            Objects.requireNonNull(models, "prices of provider " + provider + " must not be null");
            models.forEach((model, price) -> merged.computeIfAbsent(providerKey, p -> new HashMap<>())
                    .put(key("model", model),
                            Objects.requireNonNull(price, "price of " + provider + "/" + model + " must not be null")));
        });
        return freeze(merged);
    }

    @Override
    public Pricing withOverrides(Path file) {
        Objects.requireNonNull(file, "file must not be null");
        boolean json = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        // Read first, then parse: the parser reports a failed read (a directory, an I/O error) as malformed content.
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new LoopflowException(ErrorCode.USAGE, "cannot read pricing file " + file + ": " + e.getMessage(),
                    null, e);
        }
        JsonNode root;
        try {
            root = (json ? JSON : YAML).readTree(content);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("pricing file " + file + " is not valid "
                    + (json ? "JSON" : "YAML") + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading from a byte array does no I/O
        }
        return withOverrides(parse(root, file.toString()));
    }

    @Override
    public Optional<ModelPrice> price(String provider, String model) {
        if (provider == null || model == null) {
            return Optional.empty();
        }
        Map<String, ModelPrice> models = prices.get(provider.toLowerCase(Locale.ROOT));
        if (models == null) {
            return Optional.empty();
        }
        String name = model.toLowerCase(Locale.ROOT).trim();
        ModelPrice exact = models.get(name);
        if (exact != null) {
            return Optional.of(exact);
        }
        String best = null;
        for (String known : models.keySet()) {
            if (name.startsWith(known) && isBoundary(name.charAt(known.length()))
                    && (best == null || known.length() > best.length())) {
                best = known;
            }
        }
        return Optional.ofNullable(best).map(models::get);
    }

    @Override
    public String asOf() {
        return asOf;
    }

    @Override
    public String toString() {
        return "Pricing[asOf=" + asOf + ", providers=" + prices.keySet() + "]";
    }

    /**
     * Name separators used by providers for snapshots and variants. A digit or letter continues a name
     * ({@code gpt-4} must not price {@code gpt-4o}); a dot does too, as in {@code gpt-4.1} versus {@code gpt-4}.
     */
    private static boolean isBoundary(char next) {
        return next == '-' || next == ':' || next == '@' || next == '/' || next == '_';
    }

    private static TablePricing loadBundled() {
        try (InputStream in = TablePricing.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("bundled price table " + RESOURCE + " is missing from the classpath");
            }
            JsonNode root = JSON.readTree(in);
            return new TablePricing(EMPTY.merge(parse(root, RESOURCE)), root.path("as_of").asText(""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bundled price table " + RESOURCE, e);
        }
    }

    private static Map<String, Map<String, ModelPrice>> parse(JsonNode root, String source) {
        JsonNode providers = root == null ? null : root.get("providers");
        if (providers == null || !providers.isObject()) {
            throw new IllegalArgumentException(
                    "pricing file " + source + " must have a 'providers' object mapping provider → model → price");
        }
        Map<String, Map<String, ModelPrice>> result = new HashMap<>();
        for (Map.Entry<String, JsonNode> provider : providers.properties()) {
            Map<String, ModelPrice> models = result.computeIfAbsent(provider.getKey(), k -> new HashMap<>());
            if (provider.getValue().isNull()) {
                continue;
            }
            if (!provider.getValue().isObject()) {
                throw new IllegalArgumentException("pricing file " + source + ": providers." + provider.getKey()
                        + " must map model names to prices but was " + provider.getValue());
            }
            for (Map.Entry<String, JsonNode> model : provider.getValue().properties()) {
                String where = "providers." + provider.getKey() + "." + model.getKey();
                models.put(model.getKey(), new ModelPrice(
                        amount(model.getValue(), "input", source, where),
                        amount(model.getValue(), "output", source, where),
                        model.getValue().has("cache_read") ? amount(model.getValue(), "cache_read", source, where)
                                : null,
                        model.getValue().has("cache_write") ? amount(model.getValue(), "cache_write", source, where)
                                : null));
            }
        }
        return result;
    }

    private static BigDecimal amount(JsonNode price, String field, String source, String where) {
        JsonNode value = price.get(field);
        if (value == null || !(value.isNumber() || value.isTextual())) {
            throw new IllegalArgumentException("pricing file " + source + ": " + where + "." + field
                    + " must be a USD amount per million tokens but was " + value);
        }
        try {
            // From the text, not decimalValue(): a YAML or JSON double would carry binary noise into the price.
            BigDecimal amount = new BigDecimal(value.asText().trim());
            if (amount.signum() < 0) {
                throw new NumberFormatException("negative");
            }
            return amount;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("pricing file " + source + ": " + where + "." + field
                    + " must be a non-negative USD amount but was " + value, e);
        }
    }

    private static String key(String what, String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(what + " name must not be blank but was " + name);
        }
        return name.trim().toLowerCase(Locale.ROOT);
    }

    private static Map<String, Map<String, ModelPrice>> freeze(Map<String, Map<String, ModelPrice>> map) {
        Map<String, Map<String, ModelPrice>> frozen = new HashMap<>();
        map.forEach((provider, models) -> frozen.put(provider, Map.copyOf(models)));
        return Map.copyOf(frozen);
    }
}
