package dev.loopflow.core.internal.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.nodes.TestHttpServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every redirect hop passes the private-address check, not only the first request. The first hop goes to the test
 * server as "localhost", which this test's resolver reports as a public address (a stand-in for a public server
 * that redirects); the hop it redirects to is resolved for real.
 */
class HttpFetchRedirectPolicyTest {
  private static TestHttpServer server;
  private static final HttpClient CLIENT = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .build();
  private static final HttpFetch.Resolver LOCALHOST_LOOKS_PUBLIC = host -> host.equals("localhost")
      ? new InetAddress[] {InetAddress.getByAddress("localhost", new byte[] {93, (byte) 184, (byte) 216, 34})}
      : InetAddress.getAllByName(host);

  @BeforeAll
  static void start() throws Exception {
    server = new TestHttpServer();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpFetch.Response fetch(String target) throws InterruptedException {
    String first = server.url("/redirect/302?to=" + URLEncoder.encode(target, StandardCharsets.UTF_8))
        .replaceFirst("127\\.0\\.0\\.1", "localhost");
    return HttpFetch.fetch(CLIENT, new HttpFetch.Request("GET", URI.create(first), Map.of(), null), 1024, true,
        LOCALHOST_LOOKS_PUBLIC, Duration.ofSeconds(20));
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://127.0.0.1:PORT/json", "http://169.254.169.254/latest/meta-data/",
      "http://[::1]:PORT/json", "http://10.1.2.3/", "http://[fd12::1]/", "http://0.0.0.0:PORT/json",
      "http://[::ffff:169.254.169.254]/"})
  void redirectToAPrivateAddressIsRefused_bugRedirectBypassesAddressPolicy(String template) {
    String target = template.replace("PORT", server.url("").replaceAll(".*:(\\d+)$", "$1"));
    int before = server.requests.size();

    assertThatThrownBy(() -> fetch(target))
        .isInstanceOf(LoopflowException.class)
        .hasMessageStartingWith("redirect from http://localhost:")
        .hasMessageContaining("this run forbids requests to private addresses");
    assertThat(server.requests).hasSize(before + 1); // the first hop only
  }

  @ParameterizedTest
  @ValueSource(strings = {"/json", "http://localhost:PORT/json"})
  void redirectToAPublicAddressIsFollowed(String template) throws Exception {
    String target = template.replace("PORT", server.url("").replaceAll(".*:(\\d+)$", "$1"));

    HttpFetch.Response r = fetch(target);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.uri().getPath()).isEqualTo("/json");
  }
}
