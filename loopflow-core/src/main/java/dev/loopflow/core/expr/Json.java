package dev.loopflow.core.expr;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/** Shared JSON conversions with deterministic output (sorted keys) for hashing and comparison. */
public final class Json {
  private static final ObjectMapper MAPPER = JsonMapper.builder().build();
  private static final ObjectMapper SORTED = JsonMapper.builder()
      .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
      .build();
  /**
   * Reads one whole JSON text: anything but whitespace after the value is an error. Without this, text that only
   * starts with JSON ({@code 42 is the answer}, {@code {"a": 1} and more}) would read as its first value.
   */
  private static final ObjectReader WHOLE = MAPPER.readerFor(Object.class)
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** Compact JSON of {@code value}; plain values are written directly, with exactly the text the mapper writes. */
  public static String compact(Object value) {
    String plain = PlainJson.text(value);
    return plain != null ? plain : jackson(value);
  }

  /** The mapper's own compact text of {@code value}; what {@link #compact} must always equal. */
  static String jackson(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      return String.valueOf(value);
    }
  }

  /**
   * Appends {@code value} as compact JSON when it is plain (maps with string keys, collections, strings, int and long
   * numbers, finite doubles, booleans, null), exactly as the mapper writes it, and answers true; answers false when
   * it is not (the builder then holds part of it, to be discarded). {@code strings} (or null) rewrites each string
   * value before it is written; {@code other} (or null) may write a value of another type and answer true.
   */
  public static boolean appendPlain(StringBuilder sb, Object value, UnaryOperator<String> strings,
      BiPredicate<StringBuilder, Object> other) {
    return PlainJson.value(sb, value, 0, strings, other);
  }

  /** Appends {@code s} as a JSON string, escaped exactly as the mapper escapes it. */
  public static void quote(StringBuilder sb, String s) {
    PlainJson.quote(sb, s);
  }

  /** Compact JSON with map keys sorted, so equal values always give equal text. */
  public static String canonical(Object value) {
    try {
      return SORTED.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      return String.valueOf(value);
    }
  }

  /**
   * Parses JSON text (one value, nothing after it but whitespace) into plain values; throws IllegalArgumentException
   * with the parser's message.
   */
  public static Object parse(String text) {
    try {
      return WHOLE.readValue(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e.getOriginalMessage(), e);
    }
  }
}
