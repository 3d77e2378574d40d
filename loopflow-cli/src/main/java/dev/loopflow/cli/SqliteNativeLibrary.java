package dev.loopflow.cli;

import dev.loopflow.core.secrets.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/*
 * Design notes.
 *
 * SQLite's JDBC driver carries its native library inside its jar and, unless told where one is, extracts it at every
 * start: it lists java.io.tmpdir for leftovers of earlier processes, writes the library there under a new name,
 * compares it byte by byte with the jar's and deletes it at exit. That was about a tenth of a CLI command's start-up.
 * Here the library is extracted once into a cache directory and the driver is pointed at it (its documented
 * org.sqlite.lib.path and org.sqlite.lib.name properties; org.sqlite.tmpdir too, so that its leftover scan lists
 * that small directory). What must stay true:
 *  - Only a file that nobody but the current user could have written is loaded: the cache directory and the file
 *    must be owned by the current user, not be symbolic links, and not be writable by group or others; the same
 *    holds for the directory above the cache (whoever can write there could swap the cache directory).
 *  - Only the driver's own library is loaded: the file is named by the CRC-32 and size of the library in the jar
 *    (the jar's directory entry, read without inflating anything), and before each use its size and the CRC-32 of
 *    its content must match them. A truncated, corrupted or stale file fails that and is replaced. (CRC-32 is not a
 *    defence against someone who can write the file on purpose: such a writer is excluded by the ownership rule
 *    above, and could replace the jar itself.)
 *  - A new file is written under a temporary name in the cache directory, checked, and moved into place atomically:
 *    processes starting together never load half a file.
 *  - Whatever goes wrong (no POSIX file system, a directory that fails the rules, an I/O error), nothing is set and
 *    the driver extracts its library as it always did; a library location the user set is left alone.
 * The cache is the directory "native" next to the CLI's jar (one per installation, whatever LOOPFLOW_HOME is), else
 * under LOOPFLOW_HOME; the system property loopflow.native.dir names another.
 */
final class SqliteNativeLibrary {
  static final String DIR_PROPERTY = "loopflow.native.dir";
  private static final String PREFIX = "libsqlitejdbc-";
  private static boolean prepared;

  private SqliteNativeLibrary() {}

  /** Points the driver at a verified copy of its library, once per process, before the driver first loads. */
  static synchronized void prepare() {
    if (prepared) {
      return;
    }
    prepared = true;
    if (System.getProperty("org.sqlite.lib.path") != null || System.getProperty("org.sqlite.lib.name") != null) {
      return;
    }
    try {
      String resource = org.sqlite.util.LibraryLoaderUtil.getNativeLibResourcePath() + "/"
          + org.sqlite.util.LibraryLoaderUtil.getNativeLibName();
      URL url = org.sqlite.SQLiteJDBCLoader.class.getResource(resource);
      if (url == null) {
        return;
      }
      for (Path dir : candidates()) {
        Path lib = cached(dir, url);
        if (lib != null) {
          System.setProperty("org.sqlite.lib.path", lib.getParent().toString());
          System.setProperty("org.sqlite.lib.name", lib.getFileName().toString());
          System.setProperty("org.sqlite.tmpdir", lib.getParent().toString());
          return;
        }
      }
    } catch (RuntimeException | LinkageError e) {
      // the driver's own extraction
    }
  }

  private static List<Path> candidates() {
    List<Path> dirs = new ArrayList<>();
    String set = System.getProperty(DIR_PROPERTY);
    if (set != null && !set.isBlank()) {
      dirs.add(Path.of(set).toAbsolutePath());
      return dirs;
    }
    try {
      var source = SqliteNativeLibrary.class.getProtectionDomain().getCodeSource();
      if (source != null && source.getLocation().getPath().endsWith(".jar")) {
        Path jar = Path.of(source.getLocation().toURI());
        if (jar.getParent() != null) {
          dirs.add(jar.getParent().resolve("native"));
        }
      }
    } catch (URISyntaxException | RuntimeException e) {
      // no jar directory: LOOPFLOW_HOME only
    }
    dirs.add(Stores.home().toAbsolutePath().resolve("native"));
    return dirs;
  }

  /**
   * The verified copy of the library at {@code url} in {@code dir}, extracted there first when it is missing or
   * fails the checks; null when {@code dir} cannot be used.
   */
  static Path cached(Path dir, URL url) {
    try {
      if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        return null;
      }
      UserPrincipal me = dir.getFileSystem().getUserPrincipalLookupService()
          .lookupPrincipalByName(System.getProperty("user.name"));
      if (dir.getParent() == null || !trusted(dir.getParent(), me, true)) {
        return null;
      }
      if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        PrivateFiles.createDirectories(dir);
      }
      if (!trusted(dir, me, true)) {
        return null;
      }
      Expected expected = expected(url);
      String ext = url.getPath().substring(url.getPath().lastIndexOf('.'));
      Path lib = dir.resolve(PREFIX + Long.toHexString(expected.crc) + "-" + expected.size
          + ext.toLowerCase(Locale.ROOT));
      if (usable(lib, me, expected)) {
        return lib;
      }
      extract(url, dir, lib, expected);
      return usable(lib, me, expected) ? lib : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private record Expected(long crc, long size) {}

  /** The CRC-32 and size of the library, from the jar's directory when it is in a jar. */
  private static Expected expected(URL url) throws IOException {
    URLConnection c = url.openConnection();
    if (c instanceof JarURLConnection jar) {
      ZipEntry e = jar.getJarEntry();
      if (e != null && e.getCrc() >= 0 && e.getSize() >= 0) {
        return new Expected(e.getCrc(), e.getSize());
      }
    }
    try (InputStream in = c.getInputStream()) {
      byte[] all = in.readAllBytes();
      CRC32 crc = new CRC32();
      crc.update(all);
      return new Expected(crc.getValue(), all.length);
    }
  }

  /**
   * A directory (or file) is trusted when it is what it says without following a link, belongs to {@code me} and
   * nobody else can write to it.
   */
  private static boolean trusted(Path p, UserPrincipal me, boolean directory) throws IOException {
    PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (directory ? !a.isDirectory() : !a.isRegularFile()) {
      return false;
    }
    return a.owner().equals(me) && !a.permissions().contains(PosixFilePermission.GROUP_WRITE)
        && !a.permissions().contains(PosixFilePermission.OTHERS_WRITE);
  }

  private static boolean usable(Path lib, UserPrincipal me, Expected expected) throws IOException {
    if (!Files.exists(lib, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    if (!trusted(lib, me, false) || Files.size(lib) != expected.size) {
      return false;
    }
    // Read into the heap: mapping the file set up more than reading a megabyte costs.
    byte[] content;
    try (InputStream in = Files.newInputStream(lib, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      content = in.readNBytes((int) Math.min(expected.size + 1, Integer.MAX_VALUE - 8));
    }
    CRC32 crc = new CRC32();
    crc.update(content);
    return content.length == expected.size && crc.getValue() == expected.crc;
  }

  /** Writes the library under a temporary name, checks it and moves it over {@code lib}; drops older copies. */
  private static void extract(URL url, Path dir, Path lib, Expected expected) throws IOException {
    Path tmp = Files.createTempFile(dir, ".extract-", ".tmp");
    try {
      CRC32 crc = new CRC32();
      long size = 0;
      try (InputStream in = url.openStream(); OutputStream out = Files.newOutputStream(tmp)) {
        byte[] buf = new byte[64 * 1024];
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          crc.update(buf, 0, n);
          out.write(buf, 0, n);
          size += n;
        }
      }
      if (crc.getValue() != expected.crc || size != expected.size) {
        return;
      }
      Files.setPosixFilePermissions(tmp, PrivateFiles.FILE);
      Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, PREFIX + "*")) {
      for (Path p : old) {
        if (!p.equals(lib)) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
