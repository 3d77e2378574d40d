package dev.loopflow.store.jdbc;

import dev.loopflow.core.secrets.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/*
 * Design notes.
 *
 * A SQLite store commits a node completion by appending it to a log file of its own (one write call) and brings the
 * tables up to date from it on its writer thread, many completions to a transaction. The append is as durable as a
 * commit of SQLite in WAL mode with synchronous=NORMAL, the store's default: it is in the operating system's hands
 * when the call returns, so it survives the process being killed at any point, and a power loss may lose the last
 * ones. A store opened with synchronous=FULL does not use a log.
 *
 * One log per open store, in the directory <database file>-log, named <random>.log, 0600, locked (an fcntl lock on
 * the whole file) for as long as the store is open. A log whose lock can be taken belongs to a process that ended
 * before its writer caught up: whoever finds it (a store being opened, a lease being claimed, a run list) applies its
 * records and deletes it. Records are idempotent inserts (events and node executions by their run and sequence
 * number, which journal rows never change), so applying a record twice, or applying one that was applied already,
 * leaves the tables as once.
 *
 * Locks of this kind belong to the process, and closing any channel of a file drops every lock the process holds on
 * it; the logs this JVM has open are therefore remembered (OWN) and never opened by its own recovery.
 *
 * Record: int length, int CRC32C of the payload, payload. Reading stops at the first record that is cut short or
 * whose checksum does not match (a write the machine lost at a power cut), and at a length beyond what is left.
 */
final class CompletionLog implements AutoCloseable {
  /** Logs this JVM has open, by absolute path; recovery never touches them. */
  private static final Set<Path> OWN = ConcurrentHashMap.newKeySet();
  /** A log is cut back to empty once it is larger than this and everything in it was applied. */
  static final long TRUNCATE_AT = 1 << 20;
  /** The largest record a reader accepts; a longer length is damage. */
  static final int MAX_RECORD = 64 << 20;

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;
  private final CRC32C crc = new CRC32C();
  private final ByteBuffer header = ByteBuffer.allocate(8);
  private long size;

  private CompletionLog(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /** The directory the logs of the database {@code database} live in. */
  static Path directory(Path database) {
    return database.resolveSibling(database.getFileName() + "-log");
  }

  /** A new log of this store in {@code dir} (created 0700 when missing), locked until {@link #close}. */
  static CompletionLog create(Path dir) throws IOException {
    PrivateFiles.createDirectories(dir);
    Path file = dir.resolve(UUID.randomUUID() + ".log").toAbsolutePath();
    PrivateFiles.createFile(file);
    FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
    try {
      OWN.add(file);
      FileLock lock = ch.lock();
      return new CompletionLog(file, ch, lock);
    } catch (IOException | RuntimeException e) {
      OWN.remove(file);
      ch.close();
      throw e;
    }
  }

  /**
   * Appends one record. When this returns it is in the operating system's hands; the caller serializes appends and
   * {@link #truncateIfLarge} with them.
   */
  void append(byte[] payload, int length) throws IOException {
    crc.reset();
    crc.update(payload, 0, length);
    header.clear();
    header.putInt(length).putInt((int) crc.getValue()).flip();
    ByteBuffer body = ByteBuffer.wrap(payload, 0, length);
    ByteBuffer[] both = {header, body};
    while (header.hasRemaining() || body.hasRemaining()) {
      channel.write(both);
    }
    size += 8L + length;
  }

  /** Empties the log when it has grown past {@link #TRUNCATE_AT}; call only when every record in it was applied. */
  void truncateIfLarge() throws IOException {
    if (size > TRUNCATE_AT) {
      channel.truncate(0);
      channel.position(0);
      size = 0;
    }
  }

  /** Bytes in the log; for tests. */
  long size() {
    return size;
  }

  Path file() {
    return file;
  }

  /** Unlocks and deletes the log; call only when every record in it was applied. */
  @Override
  public void close() throws IOException {
    try {
      Files.deleteIfExists(file);
    } finally {
      try {
        lock.release();
      } finally {
        channel.close();
        OWN.remove(file);
      }
    }
  }

  /**
   * Unlocks the log and leaves it in place, for a store closing with records not yet applied: the next store opened
   * on the database applies them.
   */
  void abandon() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
      OWN.remove(file);
    }
  }

  /** What a recovery found in one log left behind. */
  interface Recovered {
    /** Applies the records of one log; the log is deleted only when this returns normally. */
    void apply(List<byte[]> records) throws IOException;
  }

  /**
   * Finds the logs in {@code dir} left behind by processes that have ended (their lock can be taken), hands the
   * records of each to {@code recovered} and deletes it. Logs of live processes and of this JVM are left alone;
   * anything in the directory that is not a regular file named like a log is ignored. Returns how many logs were
   * applied.
   */
  static int recover(Path dir, Recovered recovered) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    List<Path> candidates = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.log")) {
      for (Path p : ds) {
        Path abs = p.toAbsolutePath();
        if (!OWN.contains(abs) && Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
          candidates.add(abs);
        }
      }
    }
    int applied = 0;
    for (Path p : candidates) {
      FileChannel ch;
      try {
        ch = FileChannel.open(p, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS));
      } catch (NoSuchFileException gone) {
        continue; // recovered by someone else meanwhile
      }
      try (ch) {
        FileLock lock;
        try {
          lock = ch.tryLock();
        } catch (OverlappingFileLockException inThisJvm) {
          continue;
        }
        if (lock == null) {
          continue; // its process is alive
        }
        try {
          recovered.apply(read(ch));
          // Emptied before it goes, so a process that opened it just before sees nothing left to apply.
          ch.truncate(0);
          Files.deleteIfExists(p);
          applied++;
        } finally {
          lock.release();
        }
      }
    }
    return applied;
  }

  /** The intact records of a log, in order, up to the first damaged or cut one. */
  static List<byte[]> read(FileChannel ch) throws IOException {
    List<byte[]> out = new ArrayList<>();
    long end = ch.size();
    long pos = 0;
    ByteBuffer head = ByteBuffer.allocate(8);
    CRC32C check = new CRC32C();
    while (end - pos >= 8) {
      head.clear();
      if (readFully(ch, head, pos) < 8) {
        break;
      }
      head.flip();
      int length = head.getInt();
      int sum = head.getInt();
      if (length < 0 || length > MAX_RECORD || length > end - pos - 8) {
        break;
      }
      ByteBuffer body = ByteBuffer.allocate(length);
      if (readFully(ch, body, pos + 8) < length) {
        break;
      }
      check.reset();
      check.update(body.array(), 0, length);
      if ((int) check.getValue() != sum) {
        break;
      }
      out.add(body.array());
      pos += 8L + length;
    }
    return out;
  }

  private static int readFully(FileChannel ch, ByteBuffer buf, long at) throws IOException {
    int total = 0;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, at + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }
}
