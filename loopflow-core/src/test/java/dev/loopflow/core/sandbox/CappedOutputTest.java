package dev.loopflow.core.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What a capped output keeps, at every length around its limits and however the bytes arrive. */
class CappedOutputTest {
  private static String text(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append((char) ('a' + i % 26));
    }
    return sb.toString();
  }

  /** Hands out at most {@code chunk} bytes a read, as a pipe does. */
  private static InputStream chunked(byte[] bytes, int chunk) {
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }

  @Test
  void keepsEverythingUpToTheLimitAndTheHeadAndTailBeyondIt() {
    for (int max : new int[] {2, 3, 10, 101, 8192, 20000}) {
      for (int n : new int[] {0, 1, max / 2, max - 1, max, max + 1, 2 * max, 3 * max + 7, 50_000}) {
        for (int chunk : new int[] {1, 7, 8192}) {
          String in = text(n);
          CappedOutput c = new CappedOutput(max);
          c.drain(chunked(in.getBytes(StandardCharsets.UTF_8), chunk));

          String expected = n <= max ? in
              : in.substring(0, max / 2) + "...[" + (n - max) + " bytes left out]..."
                  + in.substring(n - (max - max / 2));
          assertThat(c.text()).as("max %d, n %d, chunk %d", max, n, chunk).isEqualTo(expected);
          assertThat(c.total()).isEqualTo(n);
          assertThat(c.cut()).isEqualTo(n > max);
        }
      }
    }
  }
}
