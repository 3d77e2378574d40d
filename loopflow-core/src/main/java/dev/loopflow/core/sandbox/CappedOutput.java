package dev.loopflow.core.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A process's stdout or stderr, read to its end while only its first and last {@code max / 2} bytes are kept: a
 * process that prints gigabytes never blocks on a full pipe and never fills the engine's memory or the store. What
 * was left out is said in the text itself, between the head and the tail, as {@code ...[N bytes left out]...}: the
 * dots are a cut mark the redactor knows, so a credential cut in two at either edge is masked too.
 */
final class CappedOutput {
  private final int headMax;
  private final int tailMax;
  /** Both buffers grow as bytes arrive (most processes print little; a node must not cost its limit up front). */
  private byte[] head = new byte[0];
  private int headLen;
  private byte[] tail = new byte[0];
  /** Where the oldest tail byte is once the tail is full and wraps; 0 until then. */
  private int tailStart;
  private int tailLen;
  private long total;

  CappedOutput(int max) {
    if (max < 2) {
      throw new IllegalArgumentException("max must be >= 2 but was " + max);
    }
    this.headMax = max / 2;
    this.tailMax = max - headMax;
  }

  void drain(InputStream in) {
    byte[] buf = new byte[8192];
    try (in) {
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        append(buf, n);
      }
    } catch (IOException e) {
      // the stream closes when the process is killed
    }
  }

  private synchronized void append(byte[] buf, int n) {
    total += n;
    int off = 0;
    if (headLen < headMax) {
      int k = Math.min(n, headMax - headLen);
      head = ensure(head, headLen + k, headMax);
      System.arraycopy(buf, 0, head, headLen, k);
      headLen += k;
      off = k;
    }
    for (int i = off; i < n; i++) {
      if (tailLen < tailMax) { // filling: the bytes lie in order from 0
        tail = ensure(tail, tailLen + 1, tailMax);
        tail[tailLen++] = buf[i];
      } else { // full: a ring of the last bytes
        tail[tailStart] = buf[i];
        tailStart = (tailStart + 1) % tailMax;
      }
    }
  }

  /** {@code b}, or a copy at least {@code need} long (doubling, at most {@code max}). */
  private static byte[] ensure(byte[] b, int need, int max) {
    if (need <= b.length) {
      return b;
    }
    return Arrays.copyOf(b, (int) Math.min(max, Math.max(need, Math.max(4096L, 2L * b.length))));
  }

  /** How many bytes the process wrote. */
  synchronized long total() {
    return total;
  }

  /** Whether bytes were left out. */
  synchronized boolean cut() {
    return total > headLen + tailLen;
  }

  synchronized String text() {
    byte[] t = new byte[tailLen];
    for (int i = 0; i < tailLen; i++) {
      t[i] = tail[(tailStart + i) % tailLen];
    }
    String h = new String(head, 0, headLen, StandardCharsets.UTF_8);
    String tl = new String(t, StandardCharsets.UTF_8);
    long left = total - headLen - tailLen;
    return left == 0 ? h + tl : h + "...[" + left + " bytes left out]..." + tl;
  }
}
