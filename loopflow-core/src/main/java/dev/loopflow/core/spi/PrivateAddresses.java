package dev.loopflow.core.spi;

import java.net.InetAddress;

/**
 * The one rule for which addresses are not on the public internet (loopback, private, link-local where cloud
 * metadata lives, carrier-grade NAT, unspecified, multicast, reserved, and IPv4 addresses embedded in IPv6 ones).
 * Every node or tool that sends a request where a run forbids private addresses asks here, so the http node and
 * an agent's http tool refuse exactly the same addresses.
 */
public final class PrivateAddresses {
  private PrivateAddresses() {}

  /** Why {@code address} is not public ("a loopback address"), or null when it is public. */
  public static String whyNotPublic(InetAddress address) {
    return dev.loopflow.core.internal.nodes.PrivateNetwork.why(address);
  }
}
