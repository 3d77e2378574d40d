package dev.loopflow.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The bearer-token check of every {@code /api} request: {@code Authorization: Bearer TOKEN} and nothing else (no
 * query-string token, no cookie), so a token never lands in a log of URLs or is sent by a page on another origin.
 * Tokens are compared in constant time: both sides are hashed first, so neither their contents nor their lengths
 * show in how long a refusal takes.
 */
final class Auth {
  private final byte[] expected;

  Auth(String token) {
    this.expected = sha256(token);
  }

  /** Null when {@code authorization} carries the token; else why not, for the 401's message. */
  String refusal(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      return "this API needs the header 'Authorization: Bearer TOKEN' (the token is printed when the server starts)";
    }
    String h = authorization.strip();
    int space = h.indexOf(' ');
    if (space < 0 || !h.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")) {
      return "the Authorization header must use the Bearer scheme";
    }
    String given = h.substring(space + 1).strip();
    // Always hash and compare, also for an empty token: a refusal takes the same time whatever was sent.
    boolean ok = MessageDigest.isEqual(sha256(given), expected);
    return ok && !given.isEmpty() ? null : "the bearer token is not this server's token";
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
