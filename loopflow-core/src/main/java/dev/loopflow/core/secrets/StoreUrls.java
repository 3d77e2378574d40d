package dev.loopflow.core.secrets;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Makes a run store URL (or any connection URL) printable: the password of its user information and the value of
 * every credential-named query parameter ({@code password}, {@code sslpassword}, {@code PassWord}, {@code token},
 * ... in any case, also percent-encoded names) become {@link #MASK}. {@link #scrub} also masks those values where a
 * text quotes them outside the URL (a database driver's own exception message).
 *
 * <p>What must stay true: the result never holds a credential of the URL, however the URL is spelled (with or
 * without {@code jdbc:}, encoded characters, characters a URL parser refuses, several {@code @} or {@code ?});
 * where the URL cannot be split with certainty, more is masked, never less. Pure functions; no URL parser is used,
 * so a malformed URL is masked like a well-formed one.
 */
public final class StoreUrls {
  public static final String MASK = "***";
  /** Shorter credential values are masked only inside the URL: masked everywhere they would hit ordinary text. */
  static final int MIN_SCRUB_LENGTH = 3;

  private StoreUrls() {}

  /** {@code url} with its credentials masked; empty for null. */
  public static String printable(String url) {
    if (url == null) {
      return "";
    }
    return split(url).printable;
  }

  /**
   * {@code text} with every credential of {@code url} masked: the URL as written (and its trimmed form) replaced
   * by {@link #printable}, then each credential value, raw and percent-decoded, wherever it still appears. Empty
   * for null text.
   */
  public static String scrub(String text, String url) {
    if (text == null) {
      return "";
    }
    if (url == null || url.isEmpty()) {
      return text;
    }
    Split s = split(url);
    String out = text;
    for (String form : new String[] {url, url.trim()}) {
      if (!form.isEmpty()) {
        out = out.replace(form, s.printable);
      }
    }
    List<String> secrets = new ArrayList<>(s.secrets);
    secrets.sort(Comparator.comparingInt(String::length).reversed());
    for (String secret : secrets) {
      if (secret.length() >= MIN_SCRUB_LENGTH) {
        out = out.replace(secret, MASK);
      }
    }
    return out;
  }

  /** The credential values of {@code url} (raw and decoded), longest first; for masking in other texts. */
  public static List<String> secrets(String url) {
    if (url == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(split(url).secrets);
    out.sort(Comparator.comparingInt(String::length).reversed());
    return out;
  }

  /** Whether a query parameter of this name holds a credential. */
  static boolean credentialParameter(String name) {
    String n = decode(name).toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
    return n.contains("pass") || n.contains("pwd") || n.contains("secret") || n.contains("token")
        || n.contains("key") || n.contains("credential") || n.contains("auth");
  }

  private record Split(String printable, Set<String> secrets) {}

  private static Split split(String url) {
    Set<String> secrets = new LinkedHashSet<>();
    StringBuilder out = new StringBuilder();
    String rest = url;
    int scheme = rest.indexOf("://");
    if (scheme >= 0) {
      out.append(rest, 0, scheme + 3);
      rest = rest.substring(scheme + 3);
      // User information ends at the last '@': a password may hold '@', '/', '?' or '#' unencoded, and a URL
      // that is not split where a parser would split it is then masked further, never less.
      int at = rest.lastIndexOf('@');
      if (at >= 0) {
        String userInfo = rest.substring(0, at);
        int colon = userInfo.indexOf(':');
        if (colon >= 0) {
          String password = userInfo.substring(colon + 1);
          addSecret(secrets, password);
          out.append(userInfo, 0, colon).append(':').append(MASK);
        } else {
          out.append(userInfo);
        }
        out.append('@');
        rest = rest.substring(at + 1);
      }
    }
    int q = rest.indexOf('?');
    // Parameters in a path position too (jdbc:postgresql:db;password=x) are looked at the same way.
    int semi = rest.indexOf(';');
    int start = q < 0 ? semi : semi < 0 ? q : Math.min(q, semi);
    if (start < 0) {
      out.append(rest);
      return new Split(out.toString(), secrets);
    }
    out.append(rest, 0, start + 1);
    String params = rest.substring(start + 1);
    int i = 0;
    while (i <= params.length()) {
      int end = i;
      while (end < params.length() && params.charAt(end) != '&' && params.charAt(end) != ';') {
        end++;
      }
      String part = params.substring(i, end);
      int eq = part.indexOf('=');
      if (eq >= 0 && credentialParameter(part.substring(0, eq))) {
        String value = part.substring(eq + 1);
        // A fragment after the value still belongs to it as far as masking goes.
        addSecret(secrets, value);
        out.append(part, 0, eq + 1).append(MASK);
      } else {
        out.append(part);
      }
      if (end < params.length()) {
        out.append(params.charAt(end));
      }
      i = end + 1;
    }
    return new Split(out.toString(), secrets);
  }

  private static void addSecret(Set<String> secrets, String value) {
    if (value.isEmpty()) {
      return;
    }
    secrets.add(value);
    String decoded = decode(value);
    if (!decoded.isEmpty()) {
      secrets.add(decoded);
    }
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      return s;
    }
  }
}
