package dev.loopflow.core.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A process's stdout or stderr, read to its end while only its first and last {@code max / 2} bytes are kept: a
 * process that prints gigabytes never blocks on a full pipe and never fills the engine's memory or the store. What
 * was left out is said in the text itself, between the head and the tail, as {@code ...[N bytes left out]...}: the
 * dots are a cut mark the redactor knows, so a credential cut in two at either edge is masked too.
 */
final class CappedOutput {
  private final int headMax;
  private final byte[] head;
  private int headLen;
  private final byte[] tail;
  private int tailStart;
  private int tailLen;
  private long total;

  CappedOutput(int max) {
    if (max < 2) {
      throw new IllegalArgumentException("max must be >= 2 but was " + max);
    }
    this.headMax = max / 2;
    this.head = new byte[headMax];
    this.tail = new byte[max - headMax];
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
      System.arraycopy(buf, 0, head, headLen, k);
      headLen += k;
      off = k;
    }
    for (int i = off; i < n; i++) { // a ring of the last bytes
      int pos = (tailStart + tailLen) % tail.length;
      tail[pos] = buf[i];
      if (tailLen < tail.length) {
        tailLen++;
      } else {
        tailStart = (tailStart + 1) % tail.length;
      }
    }
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
      t[i] = tail[(tailStart + i) % tail.length];
    }
    String h = new String(head, 0, headLen, StandardCharsets.UTF_8);
    String tl = new String(t, StandardCharsets.UTF_8);
    long left = total - headLen - tailLen;
    return left == 0 ? h + tl : h + "...[" + left + " bytes left out]..." + tl;
  }
}
