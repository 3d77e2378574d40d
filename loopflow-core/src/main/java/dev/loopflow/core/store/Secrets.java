package dev.loopflow.core.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of everything that is written down: journals and event logs. Two rules, both applied to
 * every string and map on the way out:
 *
 * <ul>
 *   <li>a map entry whose key names a credential ({@code Authorization}, {@code x-api-key}, {@code password},
 *       {@code api_key}, {@code *_token} but not {@code *_tokens}, ...) has its value replaced;
 *   <li>any occurrence of a secret value (the value of an environment variable whose name says it holds one,
 *       such as {@code OPENAI_API_KEY} or {@code GITHUB_TOKEN}, at least 8 characters long) is replaced inside
 *       any string, so a key echoed by a shell command or quoted in an error message is caught too.
 * </ul>
 *
 * Instances are immutable. Redaction is a pure function of its input: values without secrets come back equal.
 */
public final class Secrets {
  public static final String MASK = "[redacted]";
  private static final Pattern SECRET_ENV = Pattern.compile(
      "(?i).*(API_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|AUTH).*");
  private static final Set<String> SECRET_KEYS = Set.of("authorization", "proxy-authorization", "x-api-key",
      "api-key", "api_key", "apikey", "password", "passwd", "secret", "client_secret", "access_token",
      "refresh_token", "id_token", "token", "cookie", "set-cookie", "x-goog-api-key", "private_key");
  private static final Secrets NONE = new Secrets(List.of());

  private final List<String> values;

  private Secrets(List<String> values) {
    this.values = values;
  }

  /** No secret values; key-based redaction still applies. */
  public static Secrets none() {
    return NONE;
  }

  /** Secret values taken from environment variables whose names say they hold credentials. */
  public static Secrets fromEnvironment(Map<String, String> env) {
    List<String> v = new ArrayList<>();
    env.forEach((k, val) -> {
      if (val != null && val.length() >= 8 && isSecretVariable(k)) {
        v.add(val);
      }
    });
    return of(v);
  }

  public static Secrets of(Collection<String> secretValues) {
    List<String> v = new ArrayList<>();
    for (String s : secretValues) {
      if (s != null && !s.isEmpty() && !v.contains(s)) {
        v.add(s);
      }
    }
    // Longest first, so a secret that contains another is masked whole.
    v.sort(Comparator.comparingInt(String::length).reversed());
    return new Secrets(List.copyOf(v));
  }

  /** Whether an environment variable's name says it holds a credential ({@code OPENAI_API_KEY}, {@code GH_TOKEN}). */
  public static boolean isSecretVariable(String name) {
    return SECRET_ENV.matcher(name).matches();
  }

  /** Whether a map key names a credential. */
  public static boolean isSecretKey(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (SECRET_KEYS.contains(k)) {
      return true;
    }
    return k.endsWith("_api_key") || k.endsWith("-api-key") || k.endsWith("_secret") || k.endsWith("_password")
        || k.endsWith("_token") || k.endsWith("-token");
  }

  public String text(String s) {
    if (s == null || values.isEmpty()) {
      return s;
    }
    String out = s;
    for (String v : values) {
      if (out.contains(v)) {
        out = out.replace(v, MASK);
      }
    }
    return out;
  }

  /** A copy of {@code value} with credentials masked; maps and lists are copied only where something changed. */
  public Object value(Object value) {
    if (value instanceof String s) {
      return text(s);
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> out = null;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String k = String.valueOf(e.getKey());
        Object v = e.getValue();
        Object r = v != null && isSecretKey(k) && !(v instanceof Map) && !(v instanceof List) ? MASK : value(v);
        if (r != v && out == null) {
          out = new LinkedHashMap<>();
          for (Map.Entry<?, ?> before : m.entrySet()) {
            if (before == e) {
              break;
            }
            out.put(String.valueOf(before.getKey()), before.getValue());
          }
        }
        if (out != null) {
          out.put(k, r);
        }
      }
      return out == null ? value : out;
    }
    if (value instanceof List<?> l) {
      List<Object> out = null;
      for (int i = 0; i < l.size(); i++) {
        Object v = l.get(i);
        Object r = value(v);
        if (r != v && out == null) {
          out = new ArrayList<>(l.subList(0, i));
        }
        if (out != null) {
          out.add(r);
        }
      }
      return out == null ? value : out;
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  public <K, V> Map<K, V> map(Map<K, V> m) {
    return m == null ? null : (Map<K, V>) value(m);
  }
}
