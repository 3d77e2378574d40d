package dev.loopflow.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loopflow.core.error.LoopflowException;
import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.event.Event;
import dev.loopflow.core.run.NodeStatus;
import dev.loopflow.core.run.RunStatus;
import dev.loopflow.core.store.NodeExecution;
import dev.loopflow.core.store.RunRecord;
import dev.loopflow.core.store.RunStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The completion log of a SQLite store: a completion is durable in the log when the call returns, the tables catch
 * up behind it, this process reads what it wrote, and a log left behind by a process that ended is applied, exactly
 * once in effect, by the next store opened on the database, whatever state its tail is in.
 */
class CompletionLogTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  @TempDir
  Path dir;

  private Path db() {
    return dir.resolve("runs.db");
  }

  private JdbcRunStore open() {
    return (JdbcRunStore) JdbcStores.open("sqlite:" + db());
  }

  private static RunRecord run(String id) {
    return RunRecord.builder().runId(id).workflow("w").file("w.yaml").source("name: w\nnodes: []\n")
        .sourceHash("sha256:x").inputs(Map.of()).status(RunStatus.RUNNING).startedAt(T0).workingDirectory("/")
        .build();
  }

  private static NodeExecution pass(String run, int i) {
    return new NodeExecution(run, new NodePosition(List.of(new NodePosition.LoopFrame("loop", i)), "inc"), "script",
        NodeStatus.COMPLETED, 1, T0, T0.plusMillis(i), Map.of(), Map.of("output", Map.of("count", i)), null, null,
        null, Map.of("count", i), null);
  }

  private static Event started(String run, long seq) {
    return new Event.NodeStarted(run, seq, T0.plusNanos(seq), NodePosition.top("n" + seq), "script", 1);
  }

  /** What the tables hold, read with a plain connection (as another process would). */
  private List<String> rows(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db());
        Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private List<String> executionSeqs(String run) throws Exception {
    return rows("SELECT seq || ':' || json_extract(loops_json, '$[0].iteration') FROM lf_node_executions "
        + "WHERE run_id = '" + run + "' ORDER BY seq");
  }

  private List<String> eventSeqs(String run) throws Exception {
    return rows("SELECT seq FROM lf_events WHERE run_id = '" + run + "' ORDER BY seq");
  }

  private static List<String> expectedRows(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> i + ":" + i).toList();
  }

  @Test
  void thisProcessReadsEveryCompletionItWroteAtOnce() {
    try (JdbcRunStore store = open()) {
      store.createRun(run("r"));
      long seq = 0;
      for (int i = 1; i <= 200; i++) {
        store.appendEvent(started("r", ++seq));
        store.recordNodeExecution(pass("r", i));
        assertThat(store.nodeExecutions("r")).hasSize(i);
      }
      assertThat(store.events("r")).hasSize(200);
      assertThat(store.completionLog()).isNotNull();
    }
  }

  /**
   * Node threads are interrupted (a cancelled run, a finished shell process); an interrupt reaching a FileChannel
   * operation closes the channel, which failed every later completion of the store ("its completion log failed").
   */
  @Test
  void completionsJournaledByInterruptedThreadsAreWritten_bugInterruptClosedTheLog() throws Exception {
    createRunOnly("r");
    try (JdbcRunStore store = open()) {
      leaveLog("r", 3);
      Thread t = Thread.ofVirtual().unstarted(() -> {
        // As an engine does: claim the run (which applies the log left behind), then journal its passes.
        Thread.currentThread().interrupt();
        assertThat(store.tryLease("r", "me", T0, T0.plusSeconds(15), null)).isTrue();
        for (int i = 4; i <= 60; i++) {
          Thread.currentThread().interrupt();
          store.appendEvent(started("r", i));
          store.recordNodeExecution(pass("r", i));
          if (i % 10 == 0) {
            store.listRuns(); // recovery from an interrupted thread, too
            store.tryLease("r", "me", T0, T0.plusSeconds(15), null);
          }
        }
      });
      Throwable[] failed = {null};
      t.setUncaughtExceptionHandler((th, e) -> failed[0] = e);
      t.start();
      t.join();
      assertThat(failed[0]).isNull();
      store.recordNodeExecution(pass("r", 61));
      assertThat(store.nodeExecutions("r")).hasSize(61);
    }
    assertThat(executionSeqs("r")).containsExactlyElementsOf(expectedRows(61));
  }

  @Test
  void aClosedStoreHasInsertedEverythingAndDeletedItsLog() throws Exception {
    Path logFile;
    try (JdbcRunStore store = open()) {
      store.createRun(run("r"));
      for (int i = 1; i <= 300; i++) {
        store.appendEvent(started("r", i));
        store.recordNodeExecution(pass("r", i));
      }
      logFile = store.completionLog().file();
      assertThat(logFile).exists();
    }
    assertThat(logFile).doesNotExist();
    assertThat(executionSeqs("r")).containsExactlyElementsOf(expectedRows(300));
    assertThat(eventSeqs("r")).hasSize(300);
  }

  @Test
  void aStoreOpenedWithSynchronousFullCommitsDirectlyWithoutALog() {
    try (JdbcRunStore store = (JdbcRunStore) JdbcStores.open("sqlite:" + db() + "?synchronous=full")) {
      store.createRun(run("r"));
      store.recordNodeExecution(pass("r", 1));
      assertThat(store.completionLog()).isNull();
    }
    assertThat(CompletionLog.directory(db())).doesNotExist();
  }

  /**
   * A log as a process killed before its writer caught up leaves it: written, unlocked, not applied. Built with
   * the store's own record encoding, {@code n} passes of run {@code run}, each with one event before it.
   */
  private Path leaveLog(String run, int n) throws IOException {
    CompletionLog log = CompletionLog.create(CompletionLog.directory(db()));
    CompletionRecord.Writer w = new CompletionRecord.Writer();
    for (int i = 1; i <= n; i++) {
      CompletionRecord r = new CompletionRecord(new String[] {run, "loop[" + i + "].inc", "inc",
          "[{\"loop\":\"loop\",\"iteration\":" + i + "}]", "script", "COMPLETED", "1", T0.toString(),
          T0.toString(), null, "{\"output\":{\"count\":" + i + "}}", null, null, null, "{\"count\":" + i + "}", null},
          i, List.of(new CompletionRecord.EventRow(run, i, "node.started", T0.toString(),
              "{\"type\":\"node.started\",\"run_id\":\"" + run + "\",\"seq\":" + i + ",\"at\":\"" + T0
                  + "\",\"node\":\"inc\",\"path\":\"inc\",\"kind\":\"script\",\"attempt\":1}")));
      r.encode(w);
      log.append(w.bytes(), w.length());
    }
    Path file = log.file();
    log.abandon();
    return file;
  }

  private void createRunOnly(String run) {
    try (RunStore store = JdbcStores.open("sqlite:" + db() + "?synchronous=full")) {
      store.createRun(run(run));
    }
  }

  @Test
  void aLogLeftByAProcessThatEndedIsAppliedWhenTheStoreIsOpenedAndTheRunContinuesAfterIt() throws Exception {
    createRunOnly("r");
    Path left = leaveLog("r", 40);
    assertThat(executionSeqs("r")).isEmpty();

    try (JdbcRunStore store = open()) {
      assertThat(left).doesNotExist();
      assertThat(store.nodeExecutions("r")).hasSize(40);
      assertThat(store.events("r")).extracting(Event::seq).hasSize(40).last().isEqualTo(40L);
      // A resumed run numbers its next pass after those.
      store.recordNodeExecution(pass("r", 41));
    }
    assertThat(executionSeqs("r")).containsExactlyElementsOf(expectedRows(41));
  }

  @Test
  void applyingALogWhoseRecordsAreInTheTablesAlreadyChangesNothing() throws Exception {
    createRunOnly("r");
    leaveLog("r", 25);
    try (JdbcRunStore store = open()) {
      assertThat(store.nodeExecutions("r")).hasSize(25);
    }
    leaveLog("r", 25); // the same records again, as a log truncated late would hold them
    leaveLog("r", 10);
    try (JdbcRunStore store = open()) {
      assertThat(store.nodeExecutions("r")).hasSize(25);
    }
    assertThat(executionSeqs("r")).containsExactlyElementsOf(expectedRows(25));
    assertThat(eventSeqs("r")).hasSize(25);
  }

  @Test
  void aRunListAndALeaseClaimApplyALogLeftBehindWhileTheStoreIsOpen() throws Exception {
    createRunOnly("a");
    createRunOnly("b");
    try (JdbcRunStore store = open()) {
      leaveLog("a", 5);
      store.listRuns();
      assertThat(executionSeqs("a")).hasSize(5);

      leaveLog("b", 7);
      assertThat(store.tryLease("b", "me", T0, T0.plusSeconds(15), null)).isTrue();
      assertThat(executionSeqs("b")).hasSize(7);
      store.recordNodeExecution(pass("b", 8));
      assertThat(store.nodeExecutions("b")).hasSize(8);
    }
    assertThat(executionSeqs("b")).containsExactlyElementsOf(expectedRows(8));
  }

  @Test
  void theLogOfAStoreStillOpenIsNeverAppliedByAnotherStore() throws Exception {
    createRunOnly("r");
    try (JdbcRunStore writer = open(); JdbcRunStore other = open()) {
      Path own = writer.completionLog().file();
      other.listRuns();
      other.tryLease("r", "x", T0, T0.plusSeconds(1), null);
      assertThat(own).exists();
      writer.recordNodeExecution(pass("r", 1));
      assertThat(writer.nodeExecutions("r")).hasSize(1);
    }
  }

  /** Every way the last record of a log can be cut, as a power cut mid-write can leave it. */
  static Stream<Integer> cuts() {
    return IntStream.range(1, 200).boxed();
  }

  @ParameterizedTest(name = "cut {0} bytes into the last record")
  @MethodSource("cuts")
  void aLogCutShortIsAppliedUpToItsLastWholeRecord(int cut) throws Exception {
    createRunOnly("r");
    Path left = leaveLog("r", 5);
    long whole;
    try (var ch = java.nio.channels.FileChannel.open(left)) {
      List<byte[]> records = CompletionLog.read(ch);
      assertThat(records).hasSize(5);
      whole = ch.size() - (8 + records.get(4).length);
    }
    long size = Files.size(left);
    if (whole + cut >= size) {
      return; // this record is shorter than the cut
    }
    try (var ch = java.nio.channels.FileChannel.open(left, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(whole + cut);
    }
    try (JdbcRunStore store = open()) {
      assertThat(store.nodeExecutions("r")).hasSize(4);
    }
    assertThat(executionSeqs("r")).containsExactlyElementsOf(expectedRows(4));
    assertThat(left).doesNotExist();
  }

  /** Damage in the middle of a log: a byte changed, a length that lies, a payload that does not parse. */
  static Stream<String> damage() {
    return Stream.of("flip-payload", "flip-crc", "length-huge", "length-negative", "length-past-end",
        "garbage-with-good-crc", "zero-length");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("damage")
  void aDamagedRecordEndsTheReplayThereAndNothingAfterItIsApplied(String kind) throws Exception {
    createRunOnly("r");
    Path left = leaveLog("r", 6);
    byte[] bytes = Files.readAllBytes(left);
    // Offsets of record 3 (0-based 2).
    int pos = 0;
    for (int i = 0; i < 2; i++) {
      pos += 8 + java.nio.ByteBuffer.wrap(bytes, pos, 4).getInt();
    }
    int len = java.nio.ByteBuffer.wrap(bytes, pos, 4).getInt();
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
    switch (kind) {
      case "flip-payload" -> bytes[pos + 8 + len / 2] ^= 0x20;
      case "flip-crc" -> bytes[pos + 5] ^= 0x01;
      case "length-huge" -> b.putInt(pos, Integer.MAX_VALUE);
      case "length-negative" -> b.putInt(pos, -8);
      case "length-past-end" -> b.putInt(pos, bytes.length);
      case "garbage-with-good-crc" -> {
        for (int i = 0; i < len; i++) {
          bytes[pos + 8 + i] = (byte) (i * 31 + 7);
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bytes, pos + 8, len);
        b.putInt(pos + 4, (int) crc.getValue());
      }
      case "zero-length" -> {
        b.putInt(pos, 0);
        b.putInt(pos + 4, (int) new java.util.zip.CRC32C().getValue());
      }
      default -> throw new IllegalArgumentException(kind);
    }
    Files.write(left, bytes);
    try (JdbcRunStore store = open()) {
      assertThat(store.nodeExecutions("r")).hasSize(2);
    }
    assertThat(executionSeqs("r")).containsExactlyElementsOf(expectedRows(2));
  }

  @Test
  void entriesInTheLogDirectoryThatAreNotLogsAreLeftAlone() throws Exception {
    createRunOnly("r");
    Path logDir = CompletionLog.directory(db());
    Files.createDirectories(logDir);
    Path target = dir.resolve("precious.txt");
    Files.writeString(target, "not a log");
    Files.createSymbolicLink(logDir.resolve("link.log"), target);
    Files.createDirectories(logDir.resolve("folder.log"));
    Files.writeString(logDir.resolve("notes.txt"), "x");
    try (JdbcRunStore store = open()) {
      assertThat(store.nodeExecutions("r")).isEmpty();
    }
    assertThat(Files.readString(target)).isEqualTo("not a log");
    assertThat(logDir.resolve("link.log")).isSymbolicLink();
    assertThat(logDir.resolve("folder.log")).isDirectory();
    assertThat(logDir.resolve("notes.txt")).exists();
  }

  /**
   * A recovery that lists the directory while another store is creating its log must not take that new log for one
   * left behind: before the fix, the log existed unlocked for a moment, a recovery locked it, found it empty and
   * deleted it, and the store being opened failed ("cannot open the completion log", seen with four processes
   * opening one new database at once) or wrote to a deleted file.
   */
  @Test
  void aLogBeingCreatedIsNeverRecoveredByAConcurrentRecovery_bugRecoveryDeletedANewLogBeforeItWasLocked()
      throws Exception {
    Path logDir = CompletionLog.directory(db());
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    List<Throwable> recoveryFailures = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread recovery = new Thread(() -> {
      while (!done.get()) {
        try {
          for (CompletionLog.Left left : CompletionLog.findLeft(logDir)) {
            left.discard();
          }
        } catch (IOException | RuntimeException e) {
          recoveryFailures.add(e);
        }
      }
    });
    recovery.start();
    try {
      for (int i = 0; i < 3_000; i++) {
        CompletionLog log = CompletionLog.create(logDir);
        try {
          assertThat(log.file()).as("log %d", i).isRegularFile();
          byte[] frame = new byte[CompletionLog.HEADER + 1];
          log.append(frame, frame.length);
          assertThat(log.file()).as("log %d after an append", i).isRegularFile();
        } finally {
          log.close();
        }
      }
    } finally {
      done.set(true);
      recovery.join();
    }
    assertThat(recoveryFailures).isEmpty();
  }

  @Test
  void anUnfinishedCreationLeftByAKilledProcessIsDeletedOnceStaleAndNothingElseIs() throws Exception {
    Path logDir = CompletionLog.directory(db());
    Files.createDirectories(logDir);
    java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.from(Instant.now().minusSeconds(3600));
    Path stale = Files.createFile(logDir.resolve("0b1e-stale" + CompletionLog.MAKING));
    Files.setLastModifiedTime(stale, old);
    Path fresh = Files.createFile(logDir.resolve("0b1e-fresh" + CompletionLog.MAKING));
    Path notEmpty = logDir.resolve("0b1e-full" + CompletionLog.MAKING);
    Files.writeString(notEmpty, "x");
    Files.setLastModifiedTime(notEmpty, old);
    Path target = dir.resolve("precious.txt");
    Files.writeString(target, "");
    Path link = Files.createSymbolicLink(logDir.resolve("link" + CompletionLog.MAKING), target);
    Path folder = Files.createDirectories(logDir.resolve("folder" + CompletionLog.MAKING));
    Files.setLastModifiedTime(folder, old);
    try (JdbcRunStore store = open()) {
      assertThat(store.completionLog().file()).isRegularFile();
    }
    assertThat(stale).doesNotExist();
    assertThat(fresh).exists();
    assertThat(notEmpty).exists();
    assertThat(link).isSymbolicLink();
    assertThat(target).exists();
    assertThat(folder).isDirectory();
  }

  @Test
  void theLogAndItsDirectoryAreReadableByTheirOwnerOnly() throws Exception {
    try (JdbcRunStore store = open()) {
      assertThat(Files.getPosixFilePermissions(store.completionLog().file()))
          .isEqualTo(dev.loopflow.core.secrets.PrivateFiles.FILE);
      assertThat(Files.getPosixFilePermissions(CompletionLog.directory(db())))
          .isEqualTo(dev.loopflow.core.secrets.PrivateFiles.DIRECTORY);
    }
  }

  @Test
  void aCompletionThatCannotBeInsertedFailsTheStoresNextWriteAndStaysInTheLog() throws Exception {
    Path logFile;
    JdbcRunStore store = open();
    try {
      store.createRun(run("r"));
      logFile = store.completionLog().file();
      // Another process breaks the table the writer inserts into.
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
        st.execute("CREATE TRIGGER refuse BEFORE INSERT ON lf_node_executions BEGIN "
            + "SELECT RAISE(ABORT, 'disk says no'); END");
      }
      store.recordNodeExecution(pass("r", 1)); // durable in the log; inserting it fails behind
      assertThatThrownBy(() -> {
        for (int i = 2; i < 1_000; i++) {
          store.recordNodeExecution(pass("r", i));
          store.updateRun(run("r"));
        }
      }).isInstanceOf(LoopflowException.class).hasMessageContaining("could not be inserted")
          .hasMessageContaining("disk says no");
    } finally {
      try {
        store.close();
      } catch (LoopflowException alsoRefused) {
        // Its buffered events cannot be written either; the log keeps what it holds.
      }
    }
    assertThat(logFile).exists();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.execute("DROP TRIGGER refuse");
    }
    try (JdbcRunStore again = open()) {
      assertThat(again.nodeExecutions("r")).isNotEmpty();
    }
    assertThat(logFile).doesNotExist();
    List<String> seqs = executionSeqs("r");
    assertThat(seqs).containsExactlyElementsOf(expectedRows(seqs.size()));
  }
}
