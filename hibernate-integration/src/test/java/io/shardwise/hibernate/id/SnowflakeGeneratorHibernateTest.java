package io.shardwise.hibernate.id;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

/** Plain Hibernate (not the Shardwise runtime) with {@code @SnowflakeId} entities on real PostgreSQL. */
@ShardedPostgres(shards = 1)
class SnowflakeGeneratorHibernateTest {

  @Entity(name = "Invoice")
  @Table(name = "invoice")
  static class Invoice {
    @Id
    @SnowflakeId
    Long id;

    int position;

    Invoice() {}

    Invoice(int position) {
      this.position = position;
    }
  }

  @Entity(name = "AuditEvent")
  @Table(name = "audit_event")
  static class AuditEvent {
    @Id
    @SnowflakeId(epoch = "2025-01-01T00:00:00Z", workerBits = 6, sequenceBits = 14)
    long id;

    String kind;
  }

  @Entity(name = "BadId")
  static class BadId {
    @Id
    @SnowflakeId
    Integer id;
  }

  @Test
  void persistedEntitiesGetIncreasingSnowflakeIdsOfTheConfiguredWorker(@Node(shard = 0) String url,
      @Node(shard = 0) DataSource db) throws SQLException {
    int rows = 2_000;
    List<Long> assigned = new ArrayList<>();
    try (SessionFactory sf = configuration(url, Map.of(SnowflakeGenerator.WORKER_ID, "42"), Invoice.class, AuditEvent.class)
        .buildSessionFactory()) {
      sf.inTransaction(session -> {
        for (int i = 0; i < rows; i++) {
          Invoice invoice = new Invoice(i);
          session.persist(invoice);
          assigned.add(invoice.id);
        }
        AuditEvent event = new AuditEvent();
        event.kind = "created";
        session.persist(event);
      });
    }

    List<Long> stored = longs(db, "SELECT id FROM invoice ORDER BY position");
    assertEquals(assigned, stored, "the ids Hibernate assigned are the ones in the table");
    for (int i = 1; i < stored.size(); i++) {
      assertTrue(stored.get(i) > stored.get(i - 1), "row " + i + " was persisted later, so its id is greater");
    }
    assertEquals(rows, longs(db, "SELECT DISTINCT id FROM invoice").size());
    SnowflakeLayout.Decoded first = SnowflakeLayout.DEFAULT.decode(stored.get(0));
    assertEquals(42, first.worker());
    assertTrue(Math.abs(first.timestamp().toEpochMilli() - System.currentTimeMillis()) < 600_000,
        "the id carries the time it was made: " + first.timestamp());

    long auditId = longs(db, "SELECT id FROM audit_event").get(0);
    SnowflakeLayout auditLayout = SnowflakeLayout.of(Instant.parse("2025-01-01T00:00:00Z"), 6, 14);
    assertEquals(42, auditLayout.decode(auditId).worker(), "the annotation's own layout puts the worker here");
  }

  @Test
  void leaseUrlSettingLeasesTheWorkerIdFromTheControlDatabase(@Node(shard = 0) String url,
      @Node(shard = 0) DataSource db) throws SQLException {
    // a layout of its own, so this generator is not shared with the other test's fixed worker 42
    Map<String, Object> settings = Map.of(SnowflakeGenerator.LEASE_URL, url, SnowflakeGenerator.LEASE_USER, "postgres");
    try (SessionFactory sf = configuration(url, settings, AuditEvent.class).buildSessionFactory()) {
      sf.inTransaction(session -> {
        AuditEvent event = new AuditEvent();
        event.kind = "leased";
        session.persist(event);
      });
    }
    long leased = longs(db, "SELECT worker_id FROM " + WorkerLease.TABLE).get(0);
    long id = longs(db, "SELECT id FROM audit_event WHERE kind = 'leased'").get(0);
    assertEquals(leased, SnowflakeLayout.of(Instant.parse("2025-01-01T00:00:00Z"), 6, 14).decode(id).worker());
  }

  @Test
  void missingWorkerSettingAndWrongIdTypeFailAtStartUpWithTheFix(@Node(shard = 0) String url) {
    Throwable missing = rootCause(() -> configuration(url, Map.of(), Invoice.class).buildSessionFactory().close());
    assertTrue(missing.getMessage().contains("Invoice.id needs a worker id")
        && missing.getMessage().contains(SnowflakeGenerator.WORKER_ID)
        && missing.getMessage().contains(SnowflakeGenerator.LEASE_URL), missing.getMessage());

    Throwable wrongType = rootCause(() -> configuration(url, Map.of(SnowflakeGenerator.WORKER_ID, "1"), BadId.class)
        .buildSessionFactory().close());
    assertTrue(wrongType.getMessage().contains("BadId.id of type Integer")
        && wrongType.getMessage().contains("long or Long"), wrongType.getMessage());
  }

  private static Configuration configuration(String url, Map<String, Object> extra, Class<?>... entities) {
    Configuration cfg = new Configuration()
        .setProperty("hibernate.connection.url", url)
        .setProperty("hibernate.connection.username", "postgres")
        .setProperty("hibernate.connection.pool_size", "2")
        .setProperty("hibernate.hbm2ddl.auto", "create");
    extra.forEach((k, v) -> cfg.setProperty(k, v.toString()));
    for (Class<?> entity : entities) {
      cfg.addAnnotatedClass(entity);
    }
    return cfg;
  }

  private static Throwable rootCause(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      Throwable t = e;
      while (t.getCause() != null && t.getCause() != t) {
        t = t.getCause();
      }
      return t;
    }
    throw new AssertionError("expected the session factory to fail");
  }

  private static List<Long> longs(DataSource db, String sql) throws SQLException {
    List<Long> values = new ArrayList<>();
    try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getLong(1));
      }
    }
    return values;
  }
}
