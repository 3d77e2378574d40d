package dev.loopflow.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The rows of {@code lf_values}: the large parts of a run's documents, each stored once per run (see ValueRefs for
 * how a document is split and what a reference looks like). Writing happens inside the transaction that writes the
 * document, so a reference is never committed without its part; reading fetches each part once per read.
 */
final class LargeValues {
  private LargeValues() {}

  /**
   * The JSON to write for a value, after writing its large parts to lf_values unless the run has them already:
   * each is stored once per run, however many documents hold it.
   */
  static String store(Connection c, String runId, Codec.Encoded enc) throws SQLException {
    for (Map.Entry<String, String> p : enc.parts().entrySet()) {
      try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM lf_values WHERE run_id = ? AND hash = ?")) {
        q.setString(1, runId);
        q.setString(2, p.getKey());
        try (ResultSet rs = q.executeQuery()) {
          if (rs.next()) {
            continue;
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO lf_values (run_id, hash, body) VALUES (?,?,?) "
          + "ON CONFLICT (run_id, hash) DO NOTHING")) {
        ps.setString(1, runId);
        ps.setString(2, p.getKey());
        ps.setString(3, p.getValue());
        ps.executeUpdate();
      }
    }
    return enc.json();
  }

  /**
   * The large values of one run, fetched from lf_values when a document refers to them, each once per read. Reads
   * happen after the rows' result set is closed: a SQLite store has a single connection.
   */
  static final class Parts implements Function<String, Object> {
    private final HikariDataSource ds;
    private final String description;
    private final String runId;
    private final Map<String, String> fetched = new HashMap<>();

    Parts(HikariDataSource ds, String description, String runId) {
      this.ds = ds;
      this.description = description;
      this.runId = runId;
    }

    @Override
    public Object apply(String hash) {
      String json = fetched.computeIfAbsent(hash, h -> {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
            "SELECT body FROM lf_values WHERE run_id = ? AND hash = ?")) {
          ps.setString(1, runId);
          ps.setString(2, h);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
              throw StoreFailures.of("corrupt journal in " + description + ": run " + runId + " refers to "
                  + "a stored value " + h + " that is missing", null);
            }
            return rs.getString(1);
          }
        } catch (SQLException ex) {
          throw StoreFailures.of("cannot read the run store " + description + ": " + ex.getMessage(), ex);
        }
      });
      return Codec.value(json);
    }
  }
}
