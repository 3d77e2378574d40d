package dev.loopflow.store.jdbc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.loopflow.core.store.JournalSlice;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What a journal slice needs of an event row without decoding it: the top-level {@code path}, and for a
 * {@code loop.iteration} its pass and whether its condition was false. Read with a streaming parser that skips every
 * nested value, so choosing among a long run's events costs a scan of their text, not a decode of each.
 */
record EventHeads(String path, int startsPass, int inPass) {
  private static final JsonFactory JSON = new JsonFactory();

  static EventHeads of(String body) {
    String type = null;
    String path = null;
    int iteration = 0;
    boolean conditionFalse = false;
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new EventHeads(null, 0, 0);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "type" -> type = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "path" -> path = value == JsonToken.VALUE_STRING ? p.getText() : null;
          case "iteration" -> iteration = value == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : 0;
          case "condition_result" -> conditionFalse = value == JsonToken.VALUE_FALSE;
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // the same rule as JournalSlice.startsPass/inPass on decoded events
    boolean loopIteration = "loop.iteration".equals(type);
    return new EventHeads(path, loopIteration && !conditionFalse ? iteration : 0, loopIteration ? iteration : 0);
  }

  void seenBy(JournalSlice.Chooser c) {
    c.see(path, startsPass);
  }

  boolean keptBy(JournalSlice.Chooser c) {
    return c.keeps(path, inPass);
  }
}
