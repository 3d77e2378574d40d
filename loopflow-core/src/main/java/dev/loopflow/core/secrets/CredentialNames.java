package dev.loopflow.core.secrets;

import java.util.Locale;
import java.util.Set;

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
  private static final Set<String> ENDINGS = Set.of("token", "api_key", "access_key", "private_key", "secret_key",
      "authorization", "cookie");
  private static final Set<String> CAPITAL_ENDINGS = Set.of("key", "pass", "auth");

  private CredentialNames() {}

  /** Whether {@code name} names a credential (see the class comment). */
  public static boolean isCredential(String name) {
    if (name == null || name.isEmpty() || name.length() > 200) {
      return false;
    }
    String n = normal(name);
    for (String word : n.split("_")) {
      if (WORDS.contains(word)) {
        return true;
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

  private static boolean endsWithWords(String n, String ending) {
    return n.equals(ending) || n.endsWith("_" + ending);
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
