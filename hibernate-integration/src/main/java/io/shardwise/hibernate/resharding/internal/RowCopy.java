package io.shardwise.hibernate.resharding.internal;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyOut;

/**
 * {@code COPY ... TO STDOUT} on one server piped into {@code COPY ... FROM STDIN} on another, in
 * PostgreSQL's binary format: how reference tables reach a new shard, and the baseline the
 * resharding benchmark compares logical replication's copy with.
 */
public final class RowCopy {
  private RowCopy() {}

  /**
   * Copies the rows {@code select} returns on {@code source} into {@code table (columns)} on
   * {@code target}; returns the rows copied. Both connections stay in whatever transaction they are in.
   */
  public static long pipe(Connection source, String select, Connection target, String tableWithColumns)
      throws SQLException {
    CopyOut out = source.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (" + select + ") TO STDOUT (FORMAT binary)");
    CopyIn in;
    try {
      in = target.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + tableWithColumns + " FROM STDIN (FORMAT binary)");
    } catch (SQLException e) {
      out.cancelCopy();
      throw e;
    }
    try {
      byte[] chunk;
      while ((chunk = out.readFromCopy()) != null) {
        in.writeToCopy(chunk, 0, chunk.length);
      }
      return in.endCopy();
    } catch (SQLException | RuntimeException e) {
      if (in.isActive()) {
        in.cancelCopy();
      }
      if (out.isActive()) {
        out.cancelCopy();
      }
      throw e;
    }
  }

  /**
   * Replaces the rows of reference table {@code table} on {@code target} with the source's, while
   * the source's table is locked against writes ({@code SHARE} mode: reference writes wait, reads go on).
   */
  static long syncReference(Connection source, Connection target, String table) throws SQLException {
    String columns = String.join(", ", SchemaCopy.columns(source, table).stream().map(c -> Sql.ident(c.name())).toList());
    boolean sourceAuto = source.getAutoCommit();
    boolean targetAuto = target.getAutoCommit();
    source.setAutoCommit(false);
    target.setAutoCommit(false);
    try {
      Sql.execute(source, "LOCK TABLE " + Sql.table(table) + " IN SHARE MODE");
      java.util.List<String> key = Replication.primaryKey(source, table);
      if (key.isEmpty()) {
        throw new SQLException("reference table " + table + " has no primary key; give it one so that its copies can be"
            + " compared and kept equal");
      }
      java.util.List<String> all = SchemaCopy.columns(source, table).stream().map(SchemaCopy.Column::name).toList();
      String keyList = String.join(", ", key.stream().map(Sql::ident).toList());
      java.util.List<String> rest = all.stream().filter(c -> !key.contains(c)).toList();
      Sql.execute(target, "LOCK TABLE " + Sql.table(table) + " IN EXCLUSIVE MODE",
          "CREATE TEMP TABLE shardwise_reference_sync (LIKE " + Sql.table(table) + ") ON COMMIT DROP");
      long rows = pipe(source, "SELECT " + columns + " FROM " + Sql.table(table), target,
          "shardwise_reference_sync (" + columns + ")");
      String join = String.join(" AND ", key.stream().map(k -> "s." + Sql.ident(k) + " = t." + Sql.ident(k)).toList());
      Sql.execute(target, "DELETE FROM " + Sql.table(table) + " t WHERE NOT EXISTS (SELECT 1 FROM "
          + "shardwise_reference_sync s WHERE " + join + ")",
          "INSERT INTO " + Sql.table(table) + " (" + columns + ") SELECT " + columns + " FROM shardwise_reference_sync "
              + "ON CONFLICT (" + keyList + ") DO " + (rest.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ",
                  rest.stream().map(c -> Sql.ident(c) + " = excluded." + Sql.ident(c)).toList())));
      target.commit();
      source.commit();
      return rows;
    } catch (SQLException | RuntimeException e) {
      target.rollback();
      source.rollback();
      throw e;
    } finally {
      source.setAutoCommit(sourceAuto);
      target.setAutoCommit(targetAuto);
    }
  }
}
