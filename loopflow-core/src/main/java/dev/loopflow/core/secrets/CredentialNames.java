package dev.loopflow.core.secrets;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which names hold credentials: map keys ({@code Authorization}, {@code x-api-key}, {@code apiKey},
 * {@code client_secret}, {@code refresh_token}), YAML keys and environment variable names ({@code OPENAI_API_KEY},
 * {@code GITHUB_TOKEN}, {@code DB_PASSWORD}).
 *
 * <p>A name is compared in a normal form: camelCase split into words, lower case, {@code -}, {@code .} and spaces
 * turned into {@code _}. It holds a credential when one of its words is {@code password}, {@code passwd},
 * {@code passphrase}, {@code secret}, {@code secrets}, {@code credential}, {@code credentials} or {@code apikey}, or
 * when it ends with {@code token}, {@code api_key}, {@code access_key}, {@code private_key}, {@code secret_key},
 * {@code authorization} or {@code cookie}. Names written in capitals, as environment variables are, also count when
 * they end with {@code _KEY}, {@code _PASS} or {@code _AUTH}.
 *
 * <p>What must stay true: plural counters are not credentials ({@code max_tokens}, {@code input_tokens}), nor are
 * names that merely contain a word ({@code XAUTHORITY}, {@code SSH_AUTH_SOCK}, {@code TOKENIZERS_PARALLELISM},
 * {@code secretary}).
 */
public final class CredentialNames {
  private static final Set<String> WORDS = Set.of("password", "passwd", "passphrase", "secret", "secrets",
      "credential", "credentials", "apikey");
  private static final List<String> ENDINGS = List.of("token", "api_key", "access_key", "private_key", "secret_key",
      "authorization", "cookie");
  private static final List<String> CAPITAL_ENDINGS = List.of("key", "pass", "auth");
  /**
   * Answers by name: the same few keys (event fields, result fields, state keys) are asked about for every value a
   * run writes. Bounded, so that a run producing endless distinct keys cannot grow it without limit.
   */
  private static final int CACHE_LIMIT = 8192;
  private static final ConcurrentHashMap<String, Boolean> CACHE = new ConcurrentHashMap<>();

  private CredentialNames() {}

  /** Whether {@code name} names a credential (see the class comment). */
  public static boolean isCredential(String name) {
    if (name == null || name.isEmpty() || name.length() > 200) {
      return false;
    }
    Boolean known = CACHE.get(name);
    if (known != null) {
      return known;
    }
    boolean answer = decide(name);
    if (CACHE.size() < CACHE_LIMIT) {
      CACHE.put(name, answer);
    }
    return answer;
  }

  private static boolean decide(String name) {
    String n = normal(name);
    int start = 0;
    for (int i = 0; i <= n.length(); i++) {
      if (i == n.length() || n.charAt(i) == '_') {
        if (i > start && WORDS.contains(n.substring(start, i))) {
          return true;
        }
        start = i + 1;
      }
    }
    for (String e : ENDINGS) {
      if (endsWithWords(n, e)) {
        return true;
      }
    }
    if (isCapitals(name)) {
      for (String e : CAPITAL_ENDINGS) {
        if (endsWithWords(n, e)) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code n} is {@code ending}, or ends with {@code _} and {@code ending}. */
  private static boolean endsWithWords(String n, String ending) {
    int at = n.length() - ending.length();
    return n.endsWith(ending) && (at == 0 || at > 0 && n.charAt(at - 1) == '_');
  }

  private static boolean isCapitals(String name) {
    boolean letter = false;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isLowerCase(c)) {
        return false;
      }
      letter |= Character.isUpperCase(c);
    }
    return letter;
  }

  /** camelCase to words, lower case, separators as {@code _}. */
  static String normal(String name) {
    StringBuilder sb = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c) && i > 0 && (Character.isLowerCase(name.charAt(i - 1))
          || Character.isDigit(name.charAt(i - 1)))) {
        sb.append('_');
      }
      sb.append(c == '-' || c == '.' || c == ' ' ? '_' : c);
    }
    return sb.toString().toLowerCase(Locale.ROOT);
  }
}
