package dev.loopflow.core.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A store URL made printable keeps nothing of its credentials, however it is spelled. */
class StoreUrlsTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "postgresql://admin:Pw0rd123@db:5432/x | postgresql://admin:***@db:5432/x",
      "postgres://admin:Pw0rd123@db/x | postgres://admin:***@db/x",
      "jdbc:postgresql://admin:Pw0rd123@db/x | jdbc:postgresql://admin:***@db/x",
      "postgresql://db/x?password=Pw0rd123 | postgresql://db/x?password=***",
      "postgresql://db/x?user=u&PASSWORD=Pw0rd123&ssl=true | postgresql://db/x?user=u&PASSWORD=***&ssl=true",
      "postgresql://db/x?sslpassword=Pw0rd123 | postgresql://db/x?sslpassword=***",
      "postgresql://db/x?pass%77ord=Pw0rd123 | postgresql://db/x?pass%77ord=***",
      "jdbc:postgresql:x;password=Pw0rd123 | jdbc:postgresql:x;password=***",
      "postgresql://admin:Pw@0rd123@db/x | postgresql://admin:***@db/x",
      "postgresql://admin:Pw/0rd?123@db/x | postgresql://admin:***@db/x",
      "postgresql://admin@db/x | postgresql://admin@db/x",
      "sqlite:/tmp/x.db?synchronous=full | sqlite:/tmp/x.db?synchronous=full",
      "memory | memory"})
  void printableMasksThePasswordAndKeepsTheRest(String url, String printable) {
    assertThat(StoreUrls.printable(url)).isEqualTo(printable);
  }

  @Test
  void scrubMasksTheSecretWhereADriverQuotesItDecoded() {
    String url = "postgresql://admin:Pw%400rd123@db/x?sslpassword=Ss1Pass";
    String text = "FATAL: password authentication failed for Pw@0rd123 (key Ss1Pass) in " + url;
    String out = StoreUrls.scrub(text, url);
    for (String secret : List.of("Pw@0rd123", "Pw%400rd123", "Ss1Pass")) {
      assertThat(out).doesNotContain(secret);
    }
    assertThat(out).contains("postgresql://admin:***@db/x?sslpassword=***");
  }

  @Test
  void nullsRenderEmpty() {
    assertThat(StoreUrls.printable(null)).isEmpty();
    assertThat(StoreUrls.scrub(null, "x")).isEmpty();
    assertThat(StoreUrls.scrub("text", null)).isEqualTo("text");
  }
}
