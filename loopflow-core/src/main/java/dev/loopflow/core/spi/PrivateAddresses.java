package dev.loopflow.core.spi;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The one rule for which addresses are not on the public internet (loopback, private, link-local where cloud
 * metadata lives, carrier-grade NAT, unspecified, multicast, reserved, and IPv4 addresses embedded in IPv6 ones).
 * Every node or tool that sends a request where a run forbids private addresses asks here, so the http node and
 * an agent's http tool refuse exactly the same addresses.
 */
public final class PrivateAddresses {
  private PrivateAddresses() {}

  /** Why the address is not public ("a loopback address"), or null when it is public. */
  public static String whyNotPublic(InetAddress a) {
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
      return why4(b);
    }
    if ((b[0] & 0xfe) == 0xfc) {
      return "a private (unique local) address";
    }
    byte[] embedded = embeddedIpv4(b);
    if (embedded != null) {
      try {
        String inner = whyNotPublic(InetAddress.getByAddress(embedded));
        return inner == null ? null : inner + " (inside an IPv6 address)";
      } catch (UnknownHostException e) {
        throw new IllegalStateException(e); // four bytes are always an address
      }
    }
    return null;
  }

  private static String why4(byte[] b) {
    int b0 = b[0] & 0xff;
    int b1 = b[1] & 0xff;
    if (b0 == 0) {
      return "an unspecified (0.0.0.0/8) address";
    }
    if (b0 == 100 && (b1 & 0xc0) == 64) {
      return "a carrier-grade NAT (100.64.0.0/10) address";
    }
    if (b0 == 192 && b1 == 0 && (b[2] & 0xff) == 0) {
      return "a reserved (192.0.0.0/24) address";
    }
    if (b0 == 198 && (b1 == 18 || b1 == 19)) {
      return "a reserved (198.18.0.0/15) address";
    }
    if (b0 >= 240) {
      return "a reserved (240.0.0.0/4) address";
    }
    return null;
  }

  /** The IPv4 address inside an IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
  private static byte[] embeddedIpv4(byte[] b) {
    boolean compatible = true;
    for (int i = 0; i < 12; i++) {
      compatible &= b[i] == 0;
    }
    boolean nat64 = (b[0] & 0xff) == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
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
