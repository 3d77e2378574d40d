package dev.loopflow.llm.internal.tools;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Which addresses are not on the public internet, by the rule the core's http node applies under the run option
 * {@code http.deny_private}: loopback, private (RFC 1918, IPv6 unique local), link-local (where cloud metadata
 * services live), carrier-grade NAT, unspecified, multicast and reserved ranges, also inside IPv6 addresses that
 * embed an IPv4 one (::a.b.c.d, 64:ff9b::/96, 2002::/16).
 */
final class PublicAddresses {
  private PublicAddresses() {}

  /** Why {@code a} is not public ("a loopback address"), or null when it is. */
  static String why(InetAddress a) {
    if (a.isLoopbackAddress()) {
      return "a loopback address";
    }
    if (a.isAnyLocalAddress()) {
      return "the unspecified address";
    }
    if (a.isLinkLocalAddress()) {
      return "a link-local address";
    }
    if (a.isSiteLocalAddress()) {
      return "a private address";
    }
    if (a.isMulticastAddress()) {
      return "a multicast address";
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int b0 = b[0] & 0xff;
      int b1 = b[1] & 0xff;
      if (b0 == 0 || b0 >= 240 || b0 == 100 && (b1 & 0xc0) == 64 || b0 == 192 && b1 == 0 && b[2] == 0
          || b0 == 198 && (b1 == 18 || b1 == 19)) {
        return "a reserved or shared address";
      }
      return null;
    }
    if ((b[0] & 0xfe) == 0xfc) {
      return "a private (unique local) address";
    }
    byte[] embedded = embeddedIpv4(b);
    if (embedded == null) {
      return null;
    }
    try {
      String inner = why(InetAddress.getByAddress(embedded));
      return inner == null ? null : inner + " (inside an IPv6 address)";
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // four bytes are always an address
    }
  }

  private static byte[] embeddedIpv4(byte[] b) {
    boolean compatible = true;
    for (int i = 0; i < 12; i++) {
      compatible &= b[i] == 0;
    }
    boolean nat64 = b[0] == 0 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
    for (int i = 4; nat64 && i < 12; i++) {
      nat64 = b[i] == 0;
    }
    if (compatible || nat64) {
      return new byte[] {b[12], b[13], b[14], b[15]};
    }
    if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
      return new byte[] {b[2], b[3], b[4], b[5]};
    }
    return null;
  }
}
