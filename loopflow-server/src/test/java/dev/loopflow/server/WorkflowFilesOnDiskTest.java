package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What the workflow routes do with what they find on disk: things that are not files, and files that change. */
class WorkflowFilesOnDiskTest {
  static final String GOOD = "name: good\ndescription: first\nnodes:\n  - {id: a, type: transform, template: x}\n";
  static final String BAD = "name: bad\nnodes:\n  - {id: a, type: transfrm}\n";

  @TempDir Path tmp;
  ServerHarness h;

  @BeforeEach
  void start() throws IOException {
    h = new ServerHarness(tmp);
    Files.createDirectories(h.workflows);
  }

  @AfterEach
  void stop() {
    h.close();
  }

  /** What may sit where a workflow file would be written, and is not a file the server may replace. */
  static Stream<Consumer<Path>> notAFile() {
    return Stream.of(
        p -> io(() -> Files.createDirectory(p)),
        p -> io(() -> Files.writeString(Files.createDirectories(p).resolve("inner.txt"), "keep")),
        p -> io(() -> Files.createDirectories(p.resolve("deeper/still"))),
        p -> io(() -> Files.createSymbolicLink(p, Files.writeString(p.getParent().getParent().resolve(
            "outside.yaml"), "outside"))),
        p -> io(() -> Files.createSymbolicLink(p, Files.createDirectories(p.getParent().getParent().resolve(
            "outside-dir")))),
        p -> io(() -> Files.createSymbolicLink(p, p.getParent().resolve("dangling-target"))));
  }

  @ParameterizedTest
  @MethodSource("notAFile")
  void aPutOntoSomethingThatIsNotAFileIsAClean409WithoutTheServersPath(Consumer<Path> plant) throws IOException {
    Path target = h.workflows.resolve("wf.yaml");
    plant.accept(target);
    String before = describe(target);
    ServerHarness.Response r = h.put("/api/workflows/wf", ServerHarness.map("source", GOOD));
    assertThat(r.status()).as(r.body()).isEqualTo(409);
    assertThat(r.code()).isEqualTo("conflict");
    assertThat(r.body()).doesNotContain(tmp.toString()).doesNotContain(h.workflows.toString())
        .doesNotContain("Exception").doesNotContain("\\n");
    assertThat(describe(target)).isEqualTo(before);
    Path outside = tmp.resolve("outside.yaml");
    if (Files.exists(outside)) {
      assertThat(Files.readString(outside)).isEqualTo("outside");
    }
    try (Stream<Path> left = Files.list(h.workflows)) {
      assertThat(left.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
    }
  }

  @Test
  void theListingSeesEveryChangeToAFile() throws IOException {
    Path f = Files.writeString(h.workflows.resolve("w.yaml"), GOOD);
    assertThat(entry("w").path("valid").asBoolean()).isTrue();
    assertThat(entry("w").path("description").asText()).isEqualTo("first");
    // Same size, new content and time.
    Files.writeString(f, GOOD.replace("first", "again"));
    Files.setLastModifiedTime(f, FileTime.fromMillis(Files.getLastModifiedTime(f).toMillis() + 5_000));
    assertThat(entry("w").path("description").asText()).isEqualTo("again");
    // Replaced by a move (as an editor saves): same size and time, another file.
    Path other = Files.writeString(h.workflows.resolve("w.tmp"), GOOD.replace("first", "moved"));
    Files.setLastModifiedTime(other, Files.getLastModifiedTime(f));
    Files.move(other, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertThat(entry("w").path("description").asText()).isEqualTo("moved");
    // Other size, same time.
    FileTime t = Files.getLastModifiedTime(f);
    Files.writeString(f, BAD);
    Files.setLastModifiedTime(f, t);
    assertThat(entry("w").path("valid").asBoolean()).isFalse();
    // A write through the API, then a removal.
    assertThat(h.put("/api/workflows/w", ServerHarness.map("source", GOOD)).status()).isEqualTo(200);
    assertThat(entry("w").path("valid").asBoolean()).isTrue();
    Files.delete(f);
    assertThat(h.get("/api/workflows").json()).isEmpty();
    Files.writeString(f, BAD);
    assertThat(entry("w").path("valid").asBoolean()).isFalse();
  }

  @Test
  void anUnchangedFileIsNotLoadedAgain() throws IOException {
    Path f = Files.writeString(h.workflows.resolve("w.yaml"), GOOD);
    FileTime t = Files.getLastModifiedTime(f);
    assertThat(entry("w").path("description").asText()).isEqualTo("first");
    // Rewritten in place to the same size and time: the listing keys its cache on those (and the file's identity),
    // so it still shows what it loaded; any real edit changes one of them.
    Files.writeString(f, GOOD.replace("first", "fresh"));
    Files.setLastModifiedTime(f, t);
    assertThat(entry("w").path("description").asText()).isEqualTo("first");
    // The file's own route always reads it.
    assertThat(h.get("/api/workflows/w").json().path("source").asText()).contains("fresh");
  }

  private JsonNode entry(String name) {
    ServerHarness.Response r = h.get("/api/workflows");
    assertThat(r.status()).isEqualTo(200);
    for (JsonNode e : r.json()) {
      if (e.path("name").asText().equals(name)) {
        return e;
      }
    }
    throw new AssertionError("no " + name + " in " + r.body());
  }

  private static String describe(Path p) {
    try {
      if (Files.isSymbolicLink(p)) {
        return "link to " + Files.readSymbolicLink(p);
      }
      if (Files.isDirectory(p)) {
        try (Stream<Path> s = Files.walk(p)) {
          return "dir " + s.map(x -> p.relativize(x).toString()).sorted().toList();
        }
      }
      return Files.exists(p) ? "file " + Files.readString(p) : "nothing";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  interface IoAction {
    void run() throws IOException;
  }

  static void io(IoAction a) {
    try {
      a.run();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
