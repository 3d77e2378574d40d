package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.spi.Usage;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal holds what runs did: only its owner may read it. */
class StoreFileModesTest {
  @TempDir Path dir;

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void storeFilesAreCreatedOwnerOnly_bugWorldReadableStoreFiles() throws Exception {
    Path home = dir.resolve("new-home/nested");
    Path file = home.resolve("loopflow.db");
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      store.createRun(RunRecord.builder().runId("run_1").workflow("wf").status(RunStatus.RUNNING)
          .startedAt(Instant.EPOCH).build());
      // While the store is open SQLite keeps its write-ahead log and shared-memory index next to the file.
      assertThat(Path.of(file + "-wal")).exists();
      assertThat(Path.of(file + "-shm")).exists();
      for (Path p : new Path[] {file, Path.of(file + "-wal"), Path.of(file + "-shm")}) {
        assertThat(mode(p)).as(p.toString()).isEqualTo("rw-------");
      }
    }
    assertThat(mode(home)).isEqualTo("rwx------");
    assertThat(mode(home.getParent())).isEqualTo("rwx------");
  }

  @Test
  void anExistingStoreFileKeepsTheModeItsOwnerGaveIt() throws Exception {
    Path file = dir.resolve("shared.db");
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
    try (RunStore store = JdbcStores.open("sqlite:" + file)) {
      assertThat(store.listRuns()).isEmpty();
    }
    assertThat(mode(file)).isEqualTo("rw-r-----");
    assertThat(mode(dir)).as("an existing directory is left alone").isEqualTo("rwxr-x---");
  }
}
