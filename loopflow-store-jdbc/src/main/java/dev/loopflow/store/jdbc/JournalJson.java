package dev.loopflow.store.jdbc;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.event.Events;
import dev.loopflow.core.expr.Json;
import dev.loopflow.core.spi.Usage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/*
 * Design notes.
 *
 * Journal documents are written by a streaming generator straight from the values and event records, without the
 * copies the general path makes (an event's map, ValueRefs' escaped copy of every map and list, Jackson's view of
 * them). What is written must stay byte for byte what the general path writes, which is Codec.plainJson of
 * ValueRefs.split of the value: JournalJsonTest compares the two over a generated corpus.
 *
 * The streaming path is taken only when it cannot differ: a document whose ValueRefs size estimate is below
 * THRESHOLD has no large part, so split only escapes strings that start with NUL, and that is all this writer does
 * besides writing. A larger document, or one with a map key that is not a string (split turns keys into strings,
 * which can merge two keys), goes the general way. Values of types this class does not know are handed to the same
 * ObjectMapper the general path uses.
 */
final class JournalJson {
  /** The one mapper journal JSON is written and read with. */
  static final ObjectMapper JSON = JsonMapper.builder().build();
  /** What {@link #estimate} answers for a value that must take the general path whatever its size. */
  private static final long NOT_STREAMED = Long.MAX_VALUE;
  /** The characters of a loop frame's text besides its id and iteration. */
  private static final int LOOP_FRAME_TEXT = "LoopFrame[loopId=, iteration=]".length();

  private JournalJson() {}

  /** Writes one JSON text. */
  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static String text(Body body) {
    return text(body, 128);
  }

  /** {@code capacity}: the length expected, so that the text is not copied as it grows. */
  private static String text(Body body, int capacity) {
    TextWriter out = new TextWriter(capacity);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.text.toString();
  }

  /**
   * A writer into a builder: {@link StringWriter} locks a {@link StringBuffer} for every write, and a document is
   * only ever written by one thread.
   */
  private static final class TextWriter extends Writer {
    final StringBuilder text;

    TextWriter(int capacity) {
      text = new StringBuilder(capacity);
    }

    @Override
    public void write(char[] chars, int off, int len) {
      text.append(chars, off, len);
    }

    @Override
    public void write(String str, int off, int len) {
      text.append(str, off, off + len);
    }

    @Override
    public void write(int c) {
      text.append((char) c);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  /** The document to write for {@code value} (not null), with its large parts moved out. */
  static Codec.Encoded document(Object value) {
    long size = estimate(value, ValueRefs.THRESHOLD);
    if (size < ValueRefs.THRESHOLD) {
      StringBuilder sb = new StringBuilder((int) size + 16);
      if (Plain.value(sb, value)) {
        return new Codec.Encoded(sb.toString(), Map.of());
      }
      return new Codec.Encoded(text(g -> escaped(g, value), (int) size + 16), Map.of());
    }
    return split(value);
  }

  /** The direct writer's text of {@code value} (see Plain), or null when it leaves the value to the generator. */
  static String plainText(Object value) {
    return Plain.text(value);
  }

  /** An event's document: the JSON {@link Events#toMap} holds, with large parts moved out. */
  static Codec.Encoded event(Event e) {
    // The fields are taken once (positions' paths and times formatted once, numbers boxed once), then measured,
    // then written.
    Fields f = new Fields();
    fields(e, f);
    long size = 2;
    for (int i = 0; i < f.size; i++) {
      size = add(size, f.keys[i].length() + 4L, estimate(f.values[i], ValueRefs.THRESHOLD));
    }
    if (size >= ValueRefs.THRESHOLD) {
      return split(Events.toMap(e));
    }
    StringBuilder sb = new StringBuilder((int) size + 16);
    if (Plain.fields(sb, f)) {
      return new Codec.Encoded(sb.toString(), Map.of());
    }
    return new Codec.Encoded(text(g -> {
      g.writeStartObject();
      for (int i = 0; i < f.size; i++) {
        g.writeFieldName(f.keys[i]);
        escaped(g, f.values[i]);
      }
      g.writeEndObject();
    }, (int) size + 16), Map.of());
  }

  /** An event's fields in order, as {@link Events#fields} hands them out. */
  private static final class Fields implements Events.FieldSink {
    String[] keys = new String[16];
    Object[] values = new Object[16];
    int size;

    @Override
    public void field(String key, Object value) {
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      keys[size] = key;
      values[size++] = value;
    }
  }

  /**
   * Writes the JSON the generator would write ({@link #escaped}) for the values most documents hold (strings,
   * integers, longs, booleans, finite doubles, null, maps with string keys, collections, loop frames) straight into a
   * builder: no generator, no buffers to take and give back, and text without escapes appended as it is rather than
   * copied through a char buffer. Anything else makes it answer false, and the document is written by the generator
   * instead. The escapes are the generator's defaults: quote, backslash and the characters below U+0020 (backspace,
   * tab, line feed, form feed and carriage return by their short forms, the rest as a Unicode escape with capital
   * hex digits), nothing else.
   */
  private static final class Plain {
    private Plain() {}

    /** The text of {@code value}, or null when the generator must write it. */
    static String text(Object value) {
      StringBuilder sb = new StringBuilder();
      return value(sb, value) ? sb.toString() : null;
    }

    static boolean fields(StringBuilder sb, Fields f) {
      sb.append('{');
      for (int i = 0; i < f.size; i++) {
        if (i > 0) {
          sb.append(',');
        }
        // An event's keys are Java identifiers in snake case (Events.fields says so and EventsJsonTest checks every
        // event): nothing in them to escape, and they are written as they are.
        sb.append('"').append(f.keys[i]).append("\":");
        if (!value(sb, f.values[i])) {
          return false;
        }
      }
      sb.append('}');
      return true;
    }

    static boolean value(StringBuilder sb, Object v) {
      return Json.appendPlain(sb, v, ValueRefs::escape, Plain::loopFrame);
    }

    private static boolean loopFrame(StringBuilder sb, Object v) {
      if (!(v instanceof NodePosition.LoopFrame f)) {
        return false;
      }
      sb.append("{\"loopId\":");
      if (f.loopId() == null) {
        sb.append("null");
      } else {
        string(sb, f.loopId());
      }
      sb.append(",\"iteration\":").append(f.iteration()).append('}');
      return true;
    }

    /** {@code s} quoted, escaped as the generator escapes it. */
    static void string(StringBuilder sb, String s) {
      Json.quote(sb, s);
    }
  }

  private static void fields(Event e, Events.FieldSink sink) {
    try {
      Events.fields(e, sink);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  /** The general path: ValueRefs' split, then each part and the document as JSON. */
  private static Codec.Encoded split(Object value) {
    ValueRefs.Split split = ValueRefs.split(value);
    Map<String, String> parts = new LinkedHashMap<>();
    split.parts().forEach((hash, part) -> parts.put(hash, Codec.plainJson(part)));
    return new Codec.Encoded(Codec.plainJson(split.document()), parts);
  }

  /** A node's or run's LLM usage; the text of no usage (most nodes' rows) is written once. */
  static String usage(Usage u) {
    return u.equals(Usage.NONE) ? NO_USAGE : usageText(u);
  }

  private static final String NO_USAGE = usageText(Usage.NONE);

  private static String usageText(Usage u) {
    return text(g -> {
      g.writeStartObject();
      g.writeNumberField("input_tokens", u.inputTokens());
      g.writeNumberField("output_tokens", u.outputTokens());
      g.writeFieldName("cost_usd");
      if (u.costUsd() == null) {
        g.writeNull();
      } else {
        g.writeNumber(u.costUsd());
      }
      g.writeNumberField("llm_calls", u.llmCalls());
      g.writeNumberField("unpriced_calls", u.unpricedCalls());
      g.writeEndObject();
    });
  }

  /** The loop frames of a position, outermost first, as {@code [{"loop": id, "iteration": n}, ...]}. */
  static String loops(NodePosition p) {
    // Written directly (a row and an event per pass carry it): exactly the generator's text for these fields.
    StringBuilder sb = new StringBuilder(32 * p.loops().size() + 2);
    sb.append('[');
    boolean first = true;
    for (NodePosition.LoopFrame f : p.loops()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append("{\"loop\":");
      if (f.loopId() == null) {
        sb.append("null");
      } else {
        Json.quote(sb, f.loopId());
      }
      sb.append(",\"iteration\":").append(f.iteration()).append('}');
    }
    return sb.append(']').toString();
  }

  /** Writes what ValueRefs' escaped copy of {@code v} would serialize to, without the copy. */
  private static void escaped(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof String s) {
      g.writeString(ValueRefs.escape(s));
    } else if (v instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName((String) e.getKey());
        escaped(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof Collection<?> c) {
      g.writeStartArray();
      for (Object x : c) {
        escaped(g, x);
      }
      g.writeEndArray();
    } else if (v instanceof Integer i) {
      g.writeNumber(i);
    } else if (v instanceof Long l) {
      g.writeNumber(l);
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof Double d) {
      g.writeNumber(d.doubleValue());
    } else if (v instanceof NodePosition.LoopFrame f) {
      // As the mapper writes the record: its components in declaration order, the id as it is (ValueRefs copies
      // only maps and lists, so a frame's id is never escaped).
      g.writeStartObject();
      g.writeFieldName("loopId");
      if (f.loopId() == null) {
        g.writeNull();
      } else {
        g.writeString(f.loopId());
      }
      g.writeNumberField("iteration", f.iteration());
      g.writeEndObject();
    } else {
      g.writeObject(v);
    }
  }

  /**
   * ValueRefs' estimate of {@code v}'s JSON size, exact while it is below {@code limit} and at least {@code limit}
   * once it gets there; {@link #NOT_STREAMED} for a map with a key that is not a string.
   */
  static long estimate(Object v, long limit) {
    if (v == null) {
      return 4;
    }
    if (v instanceof String s) {
      return s.length() + 2L;
    }
    if (v instanceof Map<?, ?> m) {
      long total = 2;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!(e.getKey() instanceof String k)) {
          return NOT_STREAMED;
        }
        total = add(total, k.length() + 4L, estimate(e.getValue(), limit - total));
        if (total >= limit) {
          return total;
        }
      }
      return total;
    }
    if (v instanceof Collection<?> c) {
      long total = 2;
      for (Object x : c) {
        total = add(total, 1, estimate(x, limit - total));
        if (total >= limit) {
          return total;
        }
      }
      return total;
    }
    if (v instanceof Integer i) {
      return digits(i);
    }
    if (v instanceof Long l) {
      return digits(l);
    }
    if (v instanceof Boolean b) {
      return b ? 4 : 5;
    }
    if (v instanceof NodePosition.LoopFrame f) {
      // The length of the record's text, LoopFrame[loopId=ID, iteration=N], without making it.
      return LOOP_FRAME_TEXT + String.valueOf(f.loopId()).length() + digits(f.iteration());
    }
    return String.valueOf(v).length();
  }

  private static long add(long total, long more, long estimate) {
    return total == NOT_STREAMED || estimate == NOT_STREAMED ? NOT_STREAMED : total + more + estimate;
  }

  /** {@code String.valueOf(n).length()} without the string. */
  private static int digits(long n) {
    if (n == Long.MIN_VALUE) {
      return 20;
    }
    int len = n < 0 ? 2 : 1;
    for (long a = Math.abs(n); a >= 10; a /= 10) {
      len++;
    }
    return len;
  }
}
