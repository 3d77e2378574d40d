package dev.loopflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cached copy of SQLite's native library: loaded only when nobody else could have written it and its content is
 * the driver's; anything else is replaced or, when the directory itself cannot be trusted, not used at all.
 */
class SqliteNativeLibraryTest {
  @TempDir Path dir;
  private URL library;
  private byte[] expected;
  private Path cache;

  @BeforeEach
  void setUp() throws IOException {
    library = org.sqlite.SQLiteJDBCLoader.class.getResource(org.sqlite.util.LibraryLoaderUtil.getNativeLibResourcePath()
        + "/" + org.sqlite.util.LibraryLoaderUtil.getNativeLibName());
    assertThat(library).isNotNull();
    try (InputStream in = library.openStream()) {
      expected = in.readAllBytes();
    }
    cache = dir.resolve("native");
  }

  @Test
  void theFirstUseExtractsAPrivateCopyAndLaterUsesReadItWithoutWritingAgain() throws IOException {
    Path lib = SqliteNativeLibrary.cached(cache, library);
    assertThat(lib).isNotNull().hasParent(cache);
    assertThat(Files.readAllBytes(lib)).isEqualTo(expected);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lib))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache))).isEqualTo("rwx------");
    Object inode = Files.readAttributes(lib, "unix:ino").get("ino");
    FileTime old = FileTime.fromMillis(1_000_000L);
    Files.setLastModifiedTime(lib, old);

    assertThat(SqliteNativeLibrary.cached(cache, library)).isEqualTo(lib);
    assertThat(Files.readAttributes(lib, "unix:ino").get("ino")).isEqualTo(inode);
    assertThat(Files.getLastModifiedTime(lib)).isEqualTo(old);
    try (Stream<Path> files = Files.list(cache)) {
      assertThat(files.toList()).containsExactly(lib);
    }
  }

  /** Ways a cached copy can be wrong; each is replaced by a good private copy before anything loads it. */
  static Stream<String> badCopies() {
    return Stream.of("tampered", "truncated", "empty", "longer", "group-writable", "world-writable",
        "symlink-to-good-copy", "directory", "other-owner");
  }

  @ParameterizedTest
  @MethodSource("badCopies")
  void aCachedCopyThatCannotBeTrustedIsReplacedBeforeUse(String how) throws Exception {
    Path lib = SqliteNativeLibrary.cached(cache, library);
    Object inode = Files.readAttributes(lib, "unix:ino").get("ino");
    switch (how) {
      case "tampered" -> {
        byte[] b = expected.clone();
        b[b.length / 2] ^= 0x5a;
        Files.write(lib, b);
      }
      case "truncated" -> Files.write(lib, java.util.Arrays.copyOf(expected, expected.length / 3));
      case "empty" -> Files.write(lib, new byte[0]);
      case "longer" -> Files.write(lib, new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
      case "group-writable" -> Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw--w----"));
      case "world-writable" -> Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw-rw-rw-"));
      case "symlink-to-good-copy" -> {
        Path elsewhere = Files.write(dir.resolve("elsewhere.so"), expected);
        Files.delete(lib);
        Files.createSymbolicLink(lib, elsewhere);
      }
      case "directory" -> {
        Files.delete(lib);
        Files.createDirectory(lib);
      }
      case "other-owner" -> {
        assumeTrue(isRoot(), "only root can give a file to another user");
        Files.setOwner(lib, otherUser());
      }
      default -> throw new IllegalArgumentException(how);
    }
    Path again = SqliteNativeLibrary.cached(cache, library);
    if (how.equals("directory")) {
      // A directory in its place cannot be moved over: nothing is used, and the driver extracts its own.
      assertThat(again).isNull();
      return;
    }
    assertThat(again).isEqualTo(lib);
    assertThat(Files.isSymbolicLink(lib)).isFalse();
    assertThat(Files.readAllBytes(lib)).isEqualTo(expected);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lib))).isEqualTo("rw-------");
    assertThat(Files.getOwner(lib, LinkOption.NOFOLLOW_LINKS)).isEqualTo(Files.getOwner(dir));
    assertThat(Files.readAttributes(lib, "unix:ino").get("ino")).isNotEqualTo(inode);
  }

  /** Cache directories that someone else could write to, or that are not what they seem: never used. */
  static Stream<String> untrustedDirectories() {
    return Stream.of("group-writable", "world-writable", "world-writable-parent", "symlink", "a-file",
        "other-owner");
  }

  @ParameterizedTest
  @MethodSource("untrustedDirectories")
  void aCacheDirectoryOthersCouldWriteIsNotUsed(String how) throws Exception {
    Path good = Files.createDirectory(dir.resolve("good"));
    switch (how) {
      case "group-writable" -> Files.setPosixFilePermissions(Files.createDirectory(cache),
          PosixFilePermissions.fromString("rwxrwx---"));
      case "world-writable" -> Files.setPosixFilePermissions(Files.createDirectory(cache),
          PosixFilePermissions.fromString("rwx---rwx"));
      case "world-writable-parent" -> {
        Path parent = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
        cache = parent.resolve("native");
      }
      case "symlink" -> Files.createSymbolicLink(cache, good);
      case "a-file" -> Files.write(cache, expected);
      case "other-owner" -> {
        assumeTrue(isRoot(), "only root can give a directory to another user");
        Files.setOwner(Files.createDirectory(cache), otherUser());
      }
      default -> throw new IllegalArgumentException(how);
    }
    assertThat(SqliteNativeLibrary.cached(cache, library)).isNull();
    for (Path d : List.of(good, cache)) {
      if (Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
        try (Stream<Path> files = Files.list(d)) {
          assertThat(files.toList()).as("nothing written to " + d).isEmpty();
        }
      }
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static UserPrincipal otherUser() throws IOException {
    return java.nio.file.FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
  }
}
