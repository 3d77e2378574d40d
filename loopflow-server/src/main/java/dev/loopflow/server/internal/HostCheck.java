package dev.loopflow.server.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Which {@code Host} a server bound to loopback answers. A page on another site can make a browser send requests to
 * 127.0.0.1 under a name it controls (DNS rebinding: {@code evil.example} first resolves to the attacker, then to
 * 127.0.0.1); those requests carry the attacker's name as their host. So a loopback server answers only requests
 * addressed to a loopback name: {@code localhost}, {@code 127.0.0.1} or {@code [::1]}, with or without a port, in
 * any case. Anything else (another name, one that merely starts or ends like these, an empty or missing host, user
 * information, a trailing dot) is refused.
 */
public final class HostCheck {
  private HostCheck() {}

  /**
   * Whether every address {@code host} (a name or a literal address to bind to) resolves to is a loopback one; false
   * when it does not resolve.
   */
  public static boolean resolvesToLoopbackOnly(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException | SecurityException e) {
      return false;
    }
  }

  /** Whether {@code host} (a {@code Host} header's value, or null when there is none) names this machine. */
  static boolean isLoopbackHost(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    String name;
    String port;
    if (h.startsWith("[")) {
      int close = h.indexOf(']');
      if (close < 0) {
        return false;
      }
      name = h.substring(0, close + 1);
      String rest = h.substring(close + 1);
      if (rest.isEmpty()) {
        port = null;
      } else if (rest.startsWith(":")) {
        port = rest.substring(1);
      } else {
        return false;
      }
    } else {
      int colon = h.indexOf(':');
      name = colon < 0 ? h : h.substring(0, colon);
      port = colon < 0 ? null : h.substring(colon + 1);
    }
    return isLoopbackName(name) && (port == null || isPort(port));
  }

  /** Whether {@code name} (a host without a port; IPv6 in brackets) is one of the loopback names. */
  static boolean isLoopbackName(String name) {
    if (name == null) {
      return false;
    }
    String n = name.toLowerCase(Locale.ROOT);
    return n.equals("localhost") || n.equals("127.0.0.1") || n.equals("[::1]") || n.equals("::1");
  }

  private static boolean isPort(String p) {
    if (p.isEmpty() || p.length() > 5) {
      return false;
    }
    for (int i = 0; i < p.length(); i++) {
      if (p.charAt(i) < '0' || p.charAt(i) > '9') {
        return false;
      }
    }
    return Integer.parseInt(p) <= 65535;
  }
}
