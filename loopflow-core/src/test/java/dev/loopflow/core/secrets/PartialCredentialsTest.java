package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Excerpts that cut through a credential keep none of it: a secret of every shape, cut at every offset, in the
 * forms the engine writes (a shell failure's stderr tail, a refused value's quote, an abbreviated message, a cut
 * result). Regression: such excerpts kept 7 to 10 characters of a credential, since only whole values and a
 * fragment at the very start or end of a text were masked.
 */
class PartialCredentialsTest {
  static Stream<String> opaque() {
    return Stream.of(
        "sk-proj-4fQm9ZxL2pT7vW1nB8cD",
        "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "xoxb-1234-5678-AbCdEfGh",
        "Tr0ub4dor&3-x!y",
        "hunter2hunter2",
        "a1b2c3d4",
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "dGhpcyBpcyBhIHNlY3JldA+/=abc",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature-x",
        "p@ss:w0rd/with?odd#chars");
  }

  /** Every substring of {@code secret} at least {@code min} long that {@code text} contains; empty when none. */
  private static List<String> leaks(String text, String secret, int min) {
    List<String> out = new ArrayList<>();
    for (int len = secret.length(); len >= min; len--) {
      for (int i = 0; i + len <= secret.length(); i++) {
        String piece = secret.substring(i, i + len);
        if (text.contains(piece)) {
          out.add(piece);
        }
      }
      if (!out.isEmpty()) {
        return out;
      }
    }
    return out;
  }

  /** The forms an excerpt cut at {@code cut} of a text holding {@code secret} takes. */
  private static List<String> excerpts(String secret, int cut) {
    String whole = "error: auth failed for token " + secret + " (check the key) and retry";
    int at = whole.indexOf(secret) + cut;
    String head = whole.substring(0, at);
    String tail = whole.substring(at);
    return List.of(
        head + "...",
        "..." + tail,
        "command exited with status 1: ..." + tail,
        "the value '" + head + "…' is refused",
        "failed (in '" + head + "...')",
        head + "\n[cut: 120 more characters]",
        tail,
        head);
  }

  @ParameterizedTest
  @MethodSource("opaque")
  void anExcerptCutAtAnyOffsetKeepsNoPieceOfAnOpaqueSecret(String secret) {
    Redactor r = Redactor.of(List.of(secret));
    for (int cut = 0; cut <= secret.length(); cut++) {
      for (String excerpt : excerpts(secret, cut)) {
        String masked = r.text(excerpt);
        assertThat(leaks(masked, secret, SecretPieces.MIN_PIECE)).as("cut %d: %s -> %s", cut, excerpt, masked)
            .isEmpty();
        boolean marked = excerpt.contains("...") || excerpt.contains("…") || excerpt.contains("[cut");
        if (marked) {
          assertThat(edgeLeak(masked, secret)).as("cut %d: %s -> %s", cut, excerpt, masked).isNull();
        }
      }
    }
  }

  /** A start of the secret of 4+ characters just before a cut mark, or an end of one just after it. */
  private static String edgeLeak(String text, String secret) {
    for (String mark : List.of("...", "…", "\n[cut")) {
      int at = text.indexOf(mark);
      if (at < 0) {
        continue;
      }
      for (int k = SecretPieces.MIN_EDGE; k < secret.length(); k++) {
        if (text.substring(0, at).endsWith(secret.substring(0, k))) {
          return secret.substring(0, k);
        }
        if (text.substring(at + mark.length()).startsWith(secret.substring(secret.length() - k))) {
          return secret.substring(secret.length() - k);
        }
      }
    }
    return null;
  }

  @Test
  void aSecretWithSpacesIsMaskedAtCutMarks() {
    String secret = "correct horse battery staple";
    Redactor r = Redactor.of(List.of(secret));
    for (int cut = SecretPieces.MIN_EDGE; cut <= secret.length() - SecretPieces.MIN_EDGE; cut++) {
      for (String excerpt : excerpts(secret, cut)) {
        if (excerpt.contains("...") || excerpt.contains("…") || excerpt.contains("[cut")) {
          String masked = r.text(excerpt);
          assertThat(edgeLeak(masked, secret)).as("cut %d: %s -> %s", cut, excerpt, masked).isNull();
        }
      }
    }
  }

  @Test
  void pathsAndUrlsHeldByCredentialNamesDoNotMaskOrdinaryText() {
    Redactor r = Redactor.ofEnvironment(java.util.Map.of(
        "GOOGLE_APPLICATION_CREDENTIALS", "/home/user/.config/gcloud/credentials.json",
        "SLACK_WEBHOOK_SECRET", "https://hooks.slack.com/services/T000/B000/XXXXXXXX"));
    String text = "saved /home/user/project/out.txt; see https://example.com/docs for the config";
    assertThat(r.text(text)).isSameAs(text);
  }

  @Test
  void textWithoutAnyPieceComesBackUnchanged() {
    Redactor r = Redactor.of(List.of("sk-proj-4fQm9ZxL2pT7vW1nB8cD"));
    for (String text : List.of("hello world", "a...b", "…", "[cut: 3 more characters]", "sk-pr", "roj-4",
        "nothing to see here...", "...and more")) {
      assertThat(r.text(text)).as(text).isSameAs(text);
    }
  }
}
