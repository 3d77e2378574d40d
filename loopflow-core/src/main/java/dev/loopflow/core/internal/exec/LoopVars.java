package dev.loopflow.core.internal.exec;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The {@code loop} variable of one pass: a read-only map of a handful of names, made for every pass of every loop.
 * It keeps its names and values in two arrays in the order they were given, which is the order it iterates in (as
 * the insertion-ordered map it replaces did), and looks a name up by scanning them. Equality, hashing and printing
 * are those of any map with these entries.
 */
final class LoopVars extends AbstractMap<String, Object> {
  private final String[] names;
  private final Object[] values;

  /** {@code names} must be distinct; the arrays are kept, not copied. */
  LoopVars(String[] names, Object[] values) {
    this.names = names;
    this.values = values;
  }

  @Override
  public Object get(Object key) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(key)) {
        return values[i];
      }
    }
    return null;
  }

  @Override
  public boolean containsKey(Object key) {
    for (String n : names) {
      if (n.equals(key)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public int size() {
    return names.length;
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, Object>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < names.length;
          }

          @Override
          public Entry<String, Object> next() {
            if (next >= names.length) {
              throw new NoSuchElementException();
            }
            int i = next++;
            return new SimpleImmutableEntry<>(names[i], values[i]);
          }
        };
      }

      @Override
      public int size() {
        return names.length;
      }
    };
  }
}
