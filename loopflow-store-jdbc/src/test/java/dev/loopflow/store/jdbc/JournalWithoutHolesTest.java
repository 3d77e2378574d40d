package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's events are always a prefix of what was appended: whatever a transaction commits, no event becomes
 * visible before an older one. A live event stream replays what a viewer missed from the journal and takes the
 * events after a hole for the next ones, so a hole loses events for that viewer for good.
 */
class JournalWithoutHolesTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  @TempDir
  Path dir;

  private static RunRecord run(String id) {
    return RunRecord.builder().runId(id).workflow("w").file("w.yaml").source("name: w\nnodes: []\n")
        .sourceHash("sha256:x").inputs(Map.of()).status(RunStatus.RUNNING).startedAt(T0).workingDirectory("/")
        .build();
  }

  private static NodeExecution execution(String id, String node) {
    return new NodeExecution(id, NodePosition.top(node), "script", NodeStatus.COMPLETED, 1, T0, T0, Map.of(),
        Map.of("output", node), null, null, null, Map.of("count", 1), null);
  }

  private static Event started(String id, long seq) {
    return new Event.NodeStarted(id, seq, T0, NodePosition.top("n" + seq), "script", 1);
  }

  @Test
  @Timeout(60)
  void bufferedEventsNeverCommitAheadOfAnOlderLoggedCompletion_bugLiveViewersLostEventsAfterAHole()
      throws Exception {
    // The default SQLite mode: completions go to the completion log and are inserted by the writer afterwards.
    try (JdbcRunStore store = (JdbcRunStore) JdbcStores.open("sqlite:" + dir.resolve("runs.db"))) {
      store.createRun(run("r1"));
      long seq = 0;
      store.appendEvent(started("r1", ++seq));
      store.recordNodeExecution(execution("r1", "first"));
      store.flush();

      CountDownLatch release = new CountDownLatch(1);
      Thread holder = GroupCommitTest.holdWriter(store, release);
      // While the writer is held: logged completions fill the next transaction but one place, a waited write takes
      // that place and reads the events as its transaction sees them, more completions queue behind it, and a last
      // event stays buffered, newer than all of them.
      int inFirstBatch = GroupCommit.MAX_BATCH - 1;
      for (int i = 0; i < inFirstBatch; i++) {
        store.appendEvent(started("r1", ++seq));
        store.recordNodeExecution(execution("r1", "a" + i));
      }
      long seenUpTo = seq;
      List<Long> seen = new CopyOnWriteArrayList<>();
      Thread reader = Thread.ofPlatform().start(() -> store.write(c -> {
        try (PreparedStatement ps = c.prepareStatement("SELECT seq FROM lf_events WHERE run_id = 'r1' ORDER BY seq");
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            seen.add(rs.getLong(1));
          }
        }
      }));
      GroupCommitTest.awaitQueued(store, inFirstBatch + 1);
      for (int i = 0; i < 40; i++) {
        store.appendEvent(started("r1", ++seq));
        store.recordNodeExecution(execution("r1", "b" + i));
      }
      store.appendEvent(started("r1", ++seq));
      release.countDown();
      holder.join();
      reader.join();

      assertThat(seen).as("the events the first transaction after the hold holds")
          .containsExactlyElementsOf(LongStream.rangeClosed(1, seenUpTo).boxed().toList());
      store.flush();
      assertThat(store.events("r1")).extracting(Event::seq)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, seq).boxed().toList());
    }
  }
}
