package dev.loopflow.store.jdbc;

import dev.loopflow.core.store.MemoryEntry;
import dev.loopflow.core.store.StoreLimits;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Shared-memory values in {@code lf_shared_memory}, by scope, namespace and key.
 *
 * <p>What must stay true: a key prefix is matched as text, never as a pattern (no LIKE, so {@code %}, {@code _} and
 * {@code \} are ordinary characters), and entries are ordered by the Unicode code points of their keys on both
 * databases whatever a PostgreSQL database's collation is, the order the in-memory store keeps too.
 */
final class SharedMemory {
  private static final String COLUMNS = "scope, namespace, key, value, compressed, metadata_json, stored_at";

  private final Transactions tx;
  private final JdbcRunStore.Dialect dialect;

  SharedMemory(Transactions tx, JdbcRunStore.Dialect dialect) {
    this.tx = tx;
    this.dialect = dialect;
  }

  void put(MemoryEntry e) {
    checkPlace(e.scope(), e.namespace());
    StoreLimits.name("shared memory key", e.key(), StoreLimits.MAX_NAME_BYTES, true);
    StoreLimits.value("shared memory value", e.value());
    String metadata = StoreLimits.document("shared memory metadata", e.metadata());
    tx.write(c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO lf_shared_memory (" + COLUMNS + ") "
          + "VALUES (?,?,?,?,?,?,?) ON CONFLICT (scope, namespace, key) DO UPDATE SET value = excluded.value, "
          + "compressed = excluded.compressed, metadata_json = excluded.metadata_json, "
          + "stored_at = excluded.stored_at")) {
        ps.setString(1, e.scope());
        ps.setString(2, e.namespace());
        ps.setString(3, e.key());
        ps.setBytes(4, e.value());
        ps.setInt(5, e.compressed() ? 1 : 0);
        ps.setString(6, metadata);
        ps.setString(7, e.storedAt().toString());
        ps.executeUpdate();
      }
    });
  }

  Optional<MemoryEntry> get(String scope, String namespace, String key) {
    checkPlace(scope, namespace);
    StoreLimits.name("shared memory key", key, StoreLimits.MAX_NAME_BYTES, true);
    List<MemoryEntry> found = select("key = ?", "", ps -> {
      ps.setString(1, scope);
      ps.setString(2, namespace);
      ps.setString(3, key);
    });
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  List<MemoryEntry> list(String scope, String namespace, String keyPrefix) {
    checkPrefix(scope, namespace, keyPrefix);
    return select(prefixMatch(), " ORDER BY " + (dialect == JdbcRunStore.Dialect.POSTGRESQL ? "key COLLATE \"C\""
        : "key"), ps -> bindPrefix(ps, scope, namespace, keyPrefix));
  }

  int delete(String scope, String namespace, String keyPrefix) {
    checkPrefix(scope, namespace, keyPrefix);
    return tx.statement(c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM lf_shared_memory WHERE scope = ? AND namespace = ? "
          + "AND " + prefixMatch())) {
        bindPrefix(ps, scope, namespace, keyPrefix);
        return ps.executeUpdate();
      }
    });
  }

  /**
   * Keys starting with the prefix, compared as text. PostgreSQL's starts_with compares bytes whatever the
   * collation; SQLite's substr counts characters (code points) of UTF-8 text, as the bound length does.
   */
  private String prefixMatch() {
    return dialect == JdbcRunStore.Dialect.POSTGRESQL ? "starts_with(key, ?)" : "substr(key, 1, ?) = ?";
  }

  private void bindPrefix(PreparedStatement ps, String scope, String namespace, String keyPrefix) throws SQLException {
    ps.setString(1, scope);
    ps.setString(2, namespace);
    if (dialect == JdbcRunStore.Dialect.POSTGRESQL) {
      ps.setString(3, keyPrefix);
    } else {
      ps.setInt(3, keyPrefix.codePointCount(0, keyPrefix.length()));
      ps.setString(4, keyPrefix);
    }
  }

  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  /** The entries of one scope and namespace (parameters 1 and 2) that {@code keyCondition} selects. */
  private List<MemoryEntry> select(String keyCondition, String order, Binder binder) {
    return tx.read(c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM lf_shared_memory WHERE scope = ? "
          + "AND namespace = ? AND " + keyCondition + order)) {
        binder.bind(ps);
        try (ResultSet rs = ps.executeQuery()) {
          List<MemoryEntry> out = new ArrayList<>();
          while (rs.next()) {
            out.add(read(rs));
          }
          return out;
        }
      }
    });
  }

  private static MemoryEntry read(ResultSet rs) throws SQLException {
    byte[] value = rs.getBytes("value");
    Map<String, Object> raw = Codec.map(rs.getString("metadata_json"));
    Map<String, String> metadata = new LinkedHashMap<>();
    raw.forEach((k, v) -> metadata.put(k, (String) v));
    return new MemoryEntry(rs.getString("scope"), rs.getString("namespace"), rs.getString("key"),
        // SQLite hands an empty blob back as null.
        value == null ? new byte[0] : value, rs.getInt("compressed") != 0, metadata,
        Instant.parse(rs.getString("stored_at")));
  }

  private static void checkPlace(String scope, String namespace) {
    StoreLimits.name("shared memory scope", scope, StoreLimits.MAX_NAME_BYTES, true);
    StoreLimits.name("shared memory namespace", namespace, StoreLimits.MAX_SHORT_NAME_BYTES, true);
  }

  private static void checkPrefix(String scope, String namespace, String keyPrefix) {
    checkPlace(scope, namespace);
    StoreLimits.name("shared memory key prefix", keyPrefix, StoreLimits.MAX_NAME_BYTES, true);
  }
}
