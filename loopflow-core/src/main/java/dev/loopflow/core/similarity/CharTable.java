package dev.loopflow.core.similarity;

/**
 * Numbers the pattern's distinct chars 1..size (0 = not in the pattern). Latin-1 is a direct table; other
 * chars use linear probing at load factor at most one half, sized from the pattern so it never grows.
 */
final class CharTable {
  private final int[] latin = new int[256];
  private final char[] keys;
  private final int[] values;
  private final int shift;
  private final int slotMask;
  private int size;

  CharTable(CharSequence p, int ps, int m) {
    int wide = 0;
    for (int i = 0; i < m; i++) {
      if (p.charAt(ps + i) >= 256) {
        wide++;
      }
    }
    if (wide == 0) {
      keys = null;
      values = null;
      shift = 0;
      slotMask = 0;
    } else {
      int capacity = Integer.highestOneBit(Math.max(8, wide * 2 - 1)) << 1;
      keys = new char[capacity];
      values = new int[capacity];
      shift = 32 - Integer.numberOfTrailingZeros(capacity);
      slotMask = capacity - 1;
    }
    for (int i = 0; i < m; i++) {
      add(p.charAt(ps + i));
    }
  }

  int size() {
    return size;
  }

  private void add(char c) {
    if (c < 256) {
      if (latin[c] == 0) {
        latin[c] = ++size;
      }
      return;
    }
    int slot = (c * 0x9E3779B1) >>> shift;
    while (values[slot] != 0) {
      if (keys[slot] == c) {
        return;
      }
      slot = (slot + 1) & slotMask;
    }
    keys[slot] = c;
    values[slot] = ++size;
  }

  int indexOf(char c) {
    if (c < 256) {
      return latin[c];
    }
    if (keys == null) {
      return 0;
    }
    int slot = (c * 0x9E3779B1) >>> shift;
    int v;
    while ((v = values[slot]) != 0) {
      if (keys[slot] == c) {
        return v;
      }
      slot = (slot + 1) & slotMask;
    }
    return 0;
  }
}
