package dev.loopflow.core.internal.exec;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/** The workflow source hash journaled with every run, so a resume can tell that the file changed. */
public final class Hashes {
  private Hashes() {}

  public static String sha256(String source) {
    if (source == null) {
      return null;
    }
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(source.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
