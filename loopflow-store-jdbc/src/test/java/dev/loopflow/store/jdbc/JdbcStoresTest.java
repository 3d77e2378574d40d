package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

class JdbcStoresTest {
  @TempDir Path dir;

  @Test
  void theMigrationTheFastOpenLooksForIsTheNewestOne() throws IOException, URISyntaxException {
    Path migrations = Path.of(JdbcStores.class.getClassLoader().getResource("db/loopflow").toURI());
    int newest;
    try (Stream<Path> files = Files.list(migrations)) {
      newest = files.map(p -> p.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
          .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElseThrow();
    }
    assertThat(JdbcStores.LATEST_MIGRATION).isEqualTo(String.valueOf(newest));
  }

  @Test
  void aStoreIsCurrentOnlyAfterItsSchemaWasMigrated() {
    Path file = dir.resolve("journal.db");
    SQLiteDataSource ds = new SQLiteDataSource();
    ds.setUrl("jdbc:sqlite:" + file);
    assertThat(JdbcStores.current(ds)).isFalse();

    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      assertThat(store.listRuns()).isEmpty();
    }
    assertThat(JdbcStores.current(ds)).isTrue();
    try (RunStore reopened = JdbcStores.open("sqlite:" + file)) {
      assertThat(reopened.listRuns()).isEmpty();
    }
  }
}
