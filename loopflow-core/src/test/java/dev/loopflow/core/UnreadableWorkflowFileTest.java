package dev.loopflow.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.Location;
import dev.loopflow.core.error.WorkflowInvalidException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A workflow file that cannot be read is a problem of that file (code workflow_invalid), not an I/O exception. */
class UnreadableWorkflowFileTest {
  @TempDir
  static Path dir;

  private final Loopflow engine = Loopflow.builder().discover(false).build();

  static Stream<Arguments> unreadable() throws IOException {
    Path dangling = dir.resolve("dangling.yaml");
    Files.createSymbolicLink(dangling, dir.resolve("gone.yaml"));
    Path loop = dir.resolve("loop.yaml");
    Files.createSymbolicLink(loop, loop);
    Path sub = Files.createDirectories(dir.resolve("sub"));
    return Stream.of(
        Arguments.of("missing file", (Function<Path, Path>) d -> d.resolve("missing.yaml"), "no such file"),
        Arguments.of("missing directory", (Function<Path, Path>) d -> d.resolve("nowhere/x.yaml"), "no such file"),
        Arguments.of("dangling link", (Function<Path, Path>) d -> dangling, "no such file"),
        Arguments.of("link to itself", (Function<Path, Path>) d -> loop, "cannot read the file"),
        Arguments.of("a directory", (Function<Path, Path>) d -> sub, "cannot read the file"),
        Arguments.of("below a plain file", (Function<Path, Path>) d -> d.resolve("plain.txt/x.yaml"),
            "cannot read the file"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unreadable")
  void anUnreadableFileIsOneProblemAtItsStart(String name, Function<Path, Path> path, String says) throws IOException {
    Files.writeString(dir.resolve("plain.txt"), "not a directory");
    Path file = path.apply(dir);

    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> engine.load(file));

    assertThat(e).as(name).isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
    assertThat(e.problems()).singleElement().satisfies(p -> {
      assertThat(p.location()).isEqualTo(new Location(file.toString(), 1, 1));
      assertThat(p.message()).startsWith("cannot read the file: ").contains(says);
    });
    assertThat(e.getCause()).isInstanceOf(IOException.class);
  }

  @Test
  void aFileWithoutReadPermissionIsOneProblem() throws IOException {
    Path file = Files.writeString(dir.resolve("secret.yaml"), "name: x\nnodes: []\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("-w-------"));
    assumeTrue(!Files.isReadable(file), "the file stays readable (tests run as root)");

    WorkflowInvalidException e = catchThrowableOfType(WorkflowInvalidException.class, () -> engine.load(file));

    assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_INVALID);
    assertThat(e.problems()).singleElement().satisfies(p ->
        assertThat(p.message()).isEqualTo("cannot read the file: permission denied"));
  }
}
