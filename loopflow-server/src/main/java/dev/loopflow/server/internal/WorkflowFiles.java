package dev.loopflow.server.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The workflow files under the workflows directory, addressed by name (the file name without {@code .yaml} or
 * {@code .yml}). What must stay true: no name reaches a file outside the directory. A name is checked against a
 * strict pattern before it is used to build a path (letters, digits, {@code _ . -}, no {@code ..}, at most 128
 * characters), the resolved path must sit directly in the directory, and a file is read only when its real path
 * (links followed) is in the directory's real path and it is a regular file (a FIFO would block a reader).
 * Writes go to a temporary file in the directory, then replace the target in one move.
 */
final class WorkflowFiles {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  private static final List<String> EXTENSIONS = List.of(".yaml", ".yml");
  /** Larger than any workflow the loader accepts (it refuses what is over its own limit with a problem). */
  static final long MAX_FILE_BYTES = 16L << 20;

  private final Path dir;

  WorkflowFiles(Path dir) {
    this.dir = dir.toAbsolutePath().normalize();
  }

  Path dir() {
    return dir;
  }

  /** Whether {@code name} can name a workflow file. */
  static boolean isName(String name) {
    return name != null && NAME.matcher(name).matches() && !name.contains("..") && !name.endsWith(".");
  }

  /** {@code name}, or a {@code bad_request} naming {@code field} when it cannot name a workflow file. */
  static String checkName(String name, String field) {
    if (!isName(name)) {
      throw ApiError.badField(field, "'" + JsonBody.printable(name == null ? "" : name) + "' is not a workflow "
          + "name: 1 to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-' and without '..'");
    }
    return name;
  }

  /** A workflow file found in the directory. */
  record Entry(String name, Path file) {}

  /**
   * The workflow files, by name. A {@code .yaml} file wins over a {@code .yml} file of the same name; files whose
   * name cannot name a workflow (spaces, other characters) are not listed, since no request could address them.
   */
  List<Entry> list() throws IOException {
    TreeMap<String, Entry> byName = new TreeMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String file = f.getFileName().toString();
        for (String ext : EXTENSIONS) {
          if (file.endsWith(ext) && file.length() > ext.length()) {
            String name = file.substring(0, file.length() - ext.length());
            if (isName(name) && Files.isRegularFile(f) && inside(f)
                && (!byName.containsKey(name) || ext.equals(".yaml"))) {
              byName.put(name, new Entry(name, f));
            }
          }
        }
      }
    }
    return new ArrayList<>(byName.values());
  }

  /** The existing file of {@code name} (already checked), or empty. */
  Optional<Path> find(String name) throws IOException {
    for (String ext : EXTENSIONS) {
      Path f = resolve(name, ext);
      if (Files.isRegularFile(f) && inside(f)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** The file's text, refusing files over the size limit; invalid UTF-8 is an {@link IOException}. */
  static String read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
      if (bytes.length > MAX_FILE_BYTES) {
        throw new IOException("the file is larger than " + (MAX_FILE_BYTES >> 20) + " MiB");
      }
      try {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
      } catch (CharacterCodingException e) {
        throw new IOException("the file is not UTF-8 text", e);
      }
    }
  }

  /**
   * Writes {@code source} as the workflow {@code name} (already checked and validated): into its existing file, or
   * {@code name.yaml}. Readers see the old file or the new one, never a part.
   */
  Path write(String name, String source) throws IOException {
    Path target = find(name).orElse(resolve(name, ".yaml"));
    // A directory, a FIFO or a link pointing out of the directory where the file would go: replacing it would either
    // fail with an error naming the server's paths or silently remove what is there.
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !(Files.isRegularFile(target) && inside(target))) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, "workflow '" + name + "' cannot be written: '"
          + target.getFileName() + "' in the workflows directory is not a regular file");
    }
    Path tmp = Files.createTempFile(dir, ".write-", ".tmp");
    try {
      Files.writeString(tmp, source, StandardCharsets.UTF_8);
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    return target;
  }

  /**
   * Why a file operation failed, for a response: the operating system's reason without the file's path (the
   * server's directories are not the client's business).
   */
  static String why(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f) {
      return f.getReason() == null ? f.getClass().getSimpleName() : f.getReason();
    }
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }

  /** The path of {@code name + ext}; refuses (defence in depth) anything that is not directly in the directory. */
  private Path resolve(String name, String ext) {
    Path f = dir.resolve(name + ext).normalize();
    if (!dir.equals(f.getParent())) {
      throw ApiError.badField("name", "'" + JsonBody.printable(name) + "' is not a workflow name");
    }
    return f;
  }

  /** Whether the file, links followed, is in the directory (a link planted there may point anywhere). */
  private boolean inside(Path f) throws IOException {
    try {
      return f.toRealPath().getParent().equals(dir.toRealPath());
    } catch (NoSuchFileException e) {
      return false;
    }
  }
}
