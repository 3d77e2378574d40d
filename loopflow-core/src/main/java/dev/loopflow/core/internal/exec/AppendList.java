package dev.loopflow.core.internal.exec;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/*
 * Design notes.
 *
 * The value of a state key declared `merge: append`. Each version is an immutable list of a fixed size over one
 * shared, append-only array, so adding an entry costs O(1) amortized and never copies what earlier versions hold:
 * a snapshot handed to a node keeps its size while later passes append. What must stay true:
 *  - only RunState appends, under its lock, and only to the newest version (appendTo copies otherwise, so a stale
 *    version can never overwrite entries another version shows);
 *  - a slot is written before the version that shows it is published, and versions reach readers through
 *    RunState's lock, so a reader never sees an unwritten slot;
 *  - nothing is ever removed or overwritten.
 */
final class AppendList extends AbstractList<Object> implements RandomAccess {
  private static final class Backing {
    volatile Object[] items;
    int count;

    Backing(Object[] items, int count) {
      this.items = items;
      this.count = count;
    }
  }

  private final Backing backing;
  private final int size;

  private AppendList(Backing backing, int size) {
    this.backing = backing;
    this.size = size;
  }

  static AppendList of(List<?> initial) {
    Object[] items = initial.toArray(new Object[Math.max(8, initial.size() * 2)]);
    return new AppendList(new Backing(items, initial.size()), initial.size());
  }

  /** {@code current} with {@code added} at its end; {@code current} itself is left as it was. */
  static AppendList appendTo(List<?> current, List<?> added) {
    AppendList base = current instanceof AppendList a && a.size == a.backing.count ? a : of(current);
    Backing b = base.backing;
    int n = b.count + added.size();
    Object[] items = b.items;
    if (n > items.length) {
      items = Arrays.copyOf(items, Math.max(n, items.length * 2));
    }
    for (Object o : added) {
      items[b.count++] = o;
    }
    b.items = items;
    return new AppendList(b, n);
  }

  @Override
  public Object get(int index) {
    Objects.checkIndex(index, size);
    return backing.items[index];
  }

  @Override
  public int size() {
    return size;
  }
}
