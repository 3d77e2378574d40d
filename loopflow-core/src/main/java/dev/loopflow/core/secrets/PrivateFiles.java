package dev.loopflow.core.secrets;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * Files and directories that hold journal data (the SQLite store and its {@code -wal}/{@code -shm} files, JSONL
 * event files, {@code LOOPFLOW_HOME}): created readable by their owner only, {@code 0600} for files and {@code 0700}
 * for directories, whatever the umask. What already exists is left as it is: its owner chose its mode. On file
 * systems without POSIX permissions the defaults of the file system apply.
 */
public final class PrivateFiles {
  public static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
  public static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

  private PrivateFiles() {}

  /** Creates {@code dir} and its missing parents, each one created here as {@code 0700}. */
  public static void createDirectories(Path dir) throws IOException {
    Path abs = dir.toAbsolutePath();
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = abs; p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    while (!missing.isEmpty()) {
      Path p = missing.pop();
      try {
        if (posix(p)) {
          Files.createDirectory(p, attribute(DIRECTORY));
          Files.setPosixFilePermissions(p, DIRECTORY);
        } else {
          Files.createDirectory(p);
        }
      } catch (FileAlreadyExistsException e) {
        if (!Files.isDirectory(p)) {
          throw e;
        }
      }
    }
  }

  /** Creates {@code file} empty as {@code 0600} unless it exists; true when it was created here. */
  public static boolean createFile(Path file) throws IOException {
    if (Files.exists(file)) {
      return false;
    }
    try {
      if (posix(file)) {
        Files.createFile(file, attribute(FILE));
        Files.setPosixFilePermissions(file, FILE);
      } else {
        Files.createFile(file);
      }
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    }
  }

  /** A writer that replaces {@code file}'s content; a new file is created {@code 0600}. */
  public static BufferedWriter newWriter(Path file) throws IOException {
    createFile(file);
    return Files.newBufferedWriter(file, StandardCharsets.UTF_8);
  }

  private static boolean posix(Path p) {
    return p.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private static FileAttribute<Set<PosixFilePermission>> attribute(Set<PosixFilePermission> perms) {
    return PosixFilePermissions.asFileAttribute(perms);
  }
}
