package io.shardwise.hibernate.scatter;

import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/** Session factories over {@link Sale}: sharded on a testkit topology, and unsharded in one database. */
final class ScatterFixture {
  private ScatterFixture() {}

  static SessionFactory sharded(PostgresTopology pg) {
    return sharded(pg, java.util.Map.of());
  }

  /** The same with extra settings, e.g. a small {@code shardwise.scatter.max_rows}. */
  static SessionFactory sharded(PostgresTopology pg, java.util.Map<String, String> extra) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).entities(Sale.class, RegionName.class, Customer.class)
        .schema("create")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000");
    extra.forEach(b::property);
    for (PostgresShard shard : pg.shards()) {
      b.shard("shard" + shard.index(), shard.primary().jdbcUrl());
    }
    return b.buildSessionFactory();
  }

  /** A plain Hibernate session factory on a separate database of shard 0's server: every row in one place. */
  static SessionFactory unsharded(PostgresTopology pg) throws SQLException {
    try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_database WHERE datname = 'unsharded'")) {
      rs.next();
      if (rs.getLong(1) == 0) {
        s.execute("CREATE DATABASE unsharded");
      }
    }
    return new Configuration().addAnnotatedClass(Sale.class)
        .setProperty("jakarta.persistence.jdbc.url", pg.shard(0).primary().jdbcUrl("unsharded"))
        .setProperty("jakarta.persistence.jdbc.user", "postgres")
        .setProperty("hibernate.hbm2ddl.auto", "create")
        .buildSessionFactory();
  }

  static void execute(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static long count(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
