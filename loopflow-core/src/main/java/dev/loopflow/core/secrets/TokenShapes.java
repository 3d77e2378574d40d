package dev.loopflow.core.secrets;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Credentials recognised by their shape, wherever they come from. The list is deliberately short: each shape is
 * specific enough that ordinary text, identifiers, hashes and UUIDs do not match it.
 *
 * <ul>
 *   <li>provider keys: {@code sk-…} (OpenAI, Anthropic {@code sk-ant-…}; 20+ characters after {@code sk-}),
 *       Stripe {@code sk_live_…}/{@code rk_test_…}, GitHub {@code ghp_/gho_/ghu_/ghs_/ghr_…} and
 *       {@code github_pat_…}, Slack {@code xoxb-/xoxp-/xoxa-/xoxo-/xoxr-/xoxs-…}, AWS access key ids
 *       {@code AKIA…/ASIA…}, Google API keys {@code AIza…};
 *   <li>JSON Web Tokens ({@code eyJ….eyJ….signature});
 *   <li>PEM private key blocks ({@code -----BEGIN … PRIVATE KEY-----} to its end line, or to the end of the text);
 *   <li>in header-like text: the token after {@code Bearer} (16+ characters with a digit), the value after
 *       {@code Authorization:} or {@code Authorization=} (with its scheme word kept);
 *   <li>assignments of credential-named keys in text ({@code api_key=…}, {@code "client_secret": "…"},
 *       {@code PASSWORD: …}; 8+ characters, not starting with {@code $ { [ <}, so references and templates stay);
 *   <li>the password in a URL's user info ({@code scheme://user:PASSWORD@host}) and credential-named URL query
 *       parameters ({@code ?token=}, {@code &key=}, {@code &sig=}, …).
 * </ul>
 *
 * Only the credential itself is replaced; the words around it stay.
 */
final class TokenShapes {
  /** A shape; {@code group} is the part replaced (0: the whole match). */
  private record Shape(Pattern pattern, int group) {}

  private static final String ASSIGNED = "[^\\s\"',;&{}\\[\\]<>$]";

  private static final List<Shape> SHAPES = List.of(
      new Shape(Pattern.compile("(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}"), 0),
      new Shape(Pattern.compile("(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"), 0),
      new Shape(Pattern.compile("(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}"), 0),
      new Shape(Pattern.compile("(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,}"), 0),
      new Shape(Pattern.compile("(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}"), 0),
      new Shape(Pattern.compile("(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"), 0),
      new Shape(Pattern.compile("(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}"), 0),
      new Shape(Pattern.compile("(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]*"), 0),
      new Shape(Pattern.compile("-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\\s\\S]*?-----END (?:[A-Z0-9]+ )*"
          + "PRIVATE KEY-----|[\\s\\S]*)"), 0),
      new Shape(Pattern.compile("(?i)(?<![A-Za-z0-9])(?:proxy-)?authorization[\"']?\\s*[:=]\\s*[\"']?"
          + "(?:(?:basic|bearer|token|bot|digest)\\s+)?([A-Za-z0-9._~+/=-]{8,})"), 1),
      new Shape(Pattern.compile("(?i)(?<![A-Za-z0-9])bearer\\s+((?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{16,}=*)"),
          1),
      new Shape(Pattern.compile("(?i)(?<![A-Za-z0-9])(?:x-)?(?:api[_-]?key|access[_-]?token|auth[_-]?token"
          + "|refresh[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd)[\"']?\\s*[:=]\\s*[\"']?(" + ASSIGNED
          + "[^\\s\"',;&}]{7,})"), 1),
      new Shape(Pattern.compile("(?i)\\b[a-z][a-z0-9+.-]*://[^/\\s:@\"']+:([^/\\s@\"']+)@"), 1),
      new Shape(Pattern.compile("(?i)[?&](?:token|key|apikey|api_key|access_token|auth_token|auth|secret|password"
          + "|sig|signature)=([^&\\s\"'#]+)"), 1));

  /**
   * Lower-case fragments, one of which every shape contains, grouped by their first character; text with none of
   * them is returned at once, which is the common case for the many short strings of a journal. One pass over the
   * text, no allocation: this runs for every string and map key a run writes.
   */
  private static final String[][] TRIGGERS = new String[128][];

  static {
    for (String t : List.of("sk-", "k_live_", "k_test_", "gh", "xox", "akia", "asia", "aiza", "eyj", "private key",
        "authorization", "bearer", "key", "token", "secret", "passw", "://", "sig")) {
      String[] at = TRIGGERS[t.charAt(0)];
      String[] more = at == null ? new String[1] : Arrays.copyOf(at, at.length + 1);
      more[more.length - 1] = t;
      TRIGGERS[t.charAt(0)] = more;
    }
  }

  private TokenShapes() {}

  static String mask(String s) {
    if (s.length() < 8 || !triggered(s)) {
      return s;
    }
    String out = s;
    for (Shape shape : SHAPES) {
      out = replace(out, shape);
    }
    return out;
  }

  private static boolean triggered(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        c = (char) (c + ('a' - 'A'));
      }
      String[] candidates = c < 128 ? TRIGGERS[c] : null;
      if (candidates != null) {
        for (String t : candidates) {
          if (s.regionMatches(true, i, t, 0, t.length())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static String replace(String s, Shape shape) {
    Matcher m = shape.pattern().matcher(s);
    if (!m.find()) {
      return s;
    }
    StringBuilder sb = new StringBuilder(s.length());
    int last = 0;
    do {
      int start = m.start(shape.group());
      int end = m.end(shape.group());
      sb.append(s, last, start).append(Redactor.MASK);
      last = end;
    } while (m.find());
    return sb.append(s, last, s.length()).toString();
  }
}
