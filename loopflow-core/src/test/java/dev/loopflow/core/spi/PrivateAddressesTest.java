package dev.loopflow.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PrivateAddressesTest {
  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "127.255.255.254", "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255",
      "172.16.0.1", "172.31.255.255", "192.168.0.1", "169.254.169.254", "169.254.0.1", "100.64.0.1",
      "100.127.255.255", "192.0.0.170", "198.18.0.1", "198.19.255.255", "224.0.0.1", "239.255.255.250",
      "240.0.0.1", "255.255.255.255", "::", "::1", "fe80::1", "fc00::1", "fd12:3456::1", "fec0::1", "ff02::1",
      "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "::169.254.169.254", "64:ff9b::7f00:1",
      "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:0101::1"})
  void nonPublicAddressesAreNamed(String address) throws Exception {
    assertThat(PrivateAddresses.whyNotPublic(InetAddress.getByName(address))).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.1", "100.63.255.255",
      "100.128.0.1", "169.253.255.255", "192.0.1.1", "198.17.255.255", "198.20.0.1", "223.255.255.255",
      "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"})
  void publicAddressesPass(String address) throws Exception {
    assertThat(PrivateAddresses.whyNotPublic(InetAddress.getByName(address))).isNull();
  }
}
