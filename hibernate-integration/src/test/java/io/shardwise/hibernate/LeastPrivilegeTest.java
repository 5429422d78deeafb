package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.bank.TransferLeg;
import io.shardwise.hibernate.events.Event;
import io.shardwise.hibernate.scatter.Customer;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Least privilege: an administrator prepares the databases once with the SQL that
 * {@link ShardwiseDdl} (and docs/security.md) gives, and the application then runs its whole flow
 * as a role with {@code LOGIN} and the listed grants only: no {@code CREATE} on any database or
 * schema. Without those objects, and without {@code shardwise.ddl = create}, the start fails with
 * the SQL to run, and creates nothing.
 */
@ShardedPostgres(shards = 2)
class LeastPrivilegeTest {
  private static final String APP = "lp_app";
  private static final String DB = "lp_shard";
  private static final String CONTROL = "lp_control";

  private PostgresTopology pg;

  @BeforeEach
  void freshDatabases(PostgresTopology pg) throws SQLException {
    this.pg = pg;
    for (PostgresShard shard : pg.shards()) {
      admin(shard.primary(), "postgres", "DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)",
          "DROP DATABASE IF EXISTS " + CONTROL + " WITH (FORCE)", "DROP ROLE IF EXISTS " + APP,
          "CREATE ROLE " + APP + " LOGIN", "CREATE DATABASE " + DB);
    }
    admin(pg.shard(0).primary(), "postgres", "CREATE DATABASE " + CONTROL);
  }

  @AfterEach
  void dropDatabases() throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      admin(shard.primary(), "postgres", "DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)",
          "DROP DATABASE IF EXISTS " + CONTROL + " WITH (FORCE)", "DROP ROLE IF EXISTS " + APP);
    }
  }

  @Test
  void wholeFlowRunsAsALoginOnlyRoleOnDatabasesPreparedByTheAdministratorsSql() throws Exception {
    String gidx = ShardwiseDdl.globalIndexTable(Customer.class.getName(), "Customer", "email", false);
    assertEquals("shardwise.gidx_customer_email", gidx);

    // --- the administrator, once: Shardwise's objects and grants, with the SQL ShardwiseDdl gives ---
    for (PostgresShard shard : pg.shards()) {
      admin(shard.primary(), DB, ShardwiseDdl.Feature.SAGA_MARKERS.script(APP), ShardwiseDdl.globalIndexScript(gidx, APP));
    }
    admin(pg.shard(0).primary(), CONTROL, ShardwiseDdl.Feature.SHARD_MAP.script(APP),
        ShardwiseDdl.Feature.ROUTER_LEASES.script(APP), ShardwiseDdl.Feature.TRANSACTION_LOG.script(APP),
        ShardwiseDdl.Feature.WORKER_LEASES.script(APP));
    // the application's own tables (its business, not Shardwise's) and the shard map, written by the
    // administrator: the application's role only reads the map
    try (SessionFactory admin = builder("postgres", true).schema("create").buildSessionFactory()) {
      assertNotNull(admin);
    }
    for (PostgresShard shard : pg.shards()) {
      admin(shard.primary(), DB, "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + APP);
    }
    for (PostgresShard shard : pg.shards()) {
      for (String db : shard.index() == 0 ? List.of(DB, CONTROL) : List.of(DB)) {
        assertFalse(bool(shard.primary(), db, "SELECT has_database_privilege('" + APP + "', current_database(),"
            + " 'CREATE')"), APP + " has no CREATE on " + db);
        assertFalse(bool(shard.primary(), db, "SELECT has_schema_privilege('" + APP + "', 'shardwise', 'CREATE')"
            + " OR has_schema_privilege('" + APP + "', 'public', 'CREATE')"), APP + " may create in no schema");
      }
    }

    // --- the application, as the login-only role ------------------------------------------------
    try (SessionFactory sf = builder(APP, false).property("shardwise.snowflake.lease_url",
        controlUrl()).property("shardwise.snowflake.lease_user", APP).buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      // routing, over the map read from the control database
      long a = BankFixture.key(shards, "s0", 1);
      long b = BankFixture.key(shards, "s1", 1);
      for (long id : new long[] {a, b}) {
        shards.forKey(id).inTransaction(s -> s.persist(new Account(id, 1_000)));
      }
      // a cross-shard 2PC transfer
      BankFixture.transfer(shards, "t1", a, b, 100);
      // a saga
      SagaOutcome saga = shards.sagas().register(SagaTest.transfer()).run("transfer", "t2," + b + "," + a + ",30");
      assertEquals("COMPLETED", saga.state());
      shards.forKey(a).inTransaction(s -> assertEquals(930L, s.find(Account.class, a).getBalance()));
      shards.forKey(b).inTransaction(s -> assertEquals(1_070L, s.find(Account.class, b).getBalance()));
      // a leased Snowflake id
      Event event = new Event(a, "opened");
      shards.forKey(a).inTransaction(s -> s.persist(event));
      assertNotNull(event.getId());
      assertEquals(1L, count(pg.shard(0).primary(), CONTROL, "SELECT count(*) FROM shardwise.snowflake_worker"));
      // a global-index lookup
      shards.forKey(b).inTransaction(s -> s.persist(new Customer(b, "lp@example.com")));
      assertEquals(b, shards.findBy(Customer.class, "email", "lp@example.com").orElseThrow().getId());
    }
  }

  @Test
  void withoutTheObjectsAndWithoutOptInTheStartFailsWithTheSqlAndCreatesNothing() throws SQLException {
    // even as the superuser, who could create everything: validate never tries
    RuntimeException e = assertThrows(RuntimeException.class,
        () -> builder("postgres", true).schema("create").buildSessionFactory().close());
    ShardwiseObjectsMissingException missing = find(e);
    assertTrue(missing.getMessage().contains("the control database (database " + CONTROL), missing.getMessage());
    assertTrue(missing.getMessage().contains("CREATE TABLE IF NOT EXISTS shardwise.shard ("), missing.getMessage());
    assertTrue(missing.getMessage().contains("GRANT SELECT ON \"shardwise\".\"bucket\" TO \"postgres\";"),
        missing.getMessage());
    assertEquals(ShardwiseDdl.Feature.SHARD_MAP.script("postgres"), missing.sql());
    assertEquals(0L, count(pg.shard(0).primary(), CONTROL, "SELECT count(*) FROM pg_namespace WHERE nspname = 'shardwise'"));

    // with the shard map in place, the router leases are the next thing missing: their SQL, nothing created
    admin(pg.shard(0).primary(), CONTROL, ShardwiseDdl.Feature.SHARD_MAP.script("postgres"));
    e = assertThrows(RuntimeException.class, () -> builder("postgres", true).buildSessionFactory().close());
    missing = find(e);
    assertEquals(ShardwiseDdl.Feature.ROUTER_LEASES.script("postgres"), missing.sql());
    assertTrue(missing.getMessage().contains("table shardwise.router is missing"), missing.getMessage());
    // then the transaction log
    admin(pg.shard(0).primary(), CONTROL, ShardwiseDdl.Feature.ROUTER_LEASES.script("postgres"));
    e = assertThrows(RuntimeException.class, () -> builder("postgres", true).buildSessionFactory().close());
    missing = find(e);
    assertEquals(ShardwiseDdl.Feature.TRANSACTION_LOG.script("postgres"), missing.sql());
    assertTrue(missing.getMessage().contains("table shardwise.tx_coordinator is missing"), missing.getMessage());
    assertEquals(0L, count(pg.shard(0).primary(), CONTROL,
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'shardwise'"
            + " AND c.relname IN ('tx_coordinator', 'saga', 'saga_step')"));
    for (PostgresShard shard : pg.shards()) {
      assertEquals(0L, count(shard.primary(), DB, "SELECT count(*) FROM pg_namespace WHERE nspname = 'shardwise'"));
    }
  }

  @Test
  void aMissingShardObjectFailsItsFirstUseWithTheSqlForThatShardAndWritesNothing() throws SQLException {
    admin(pg.shard(0).primary(), CONTROL, ShardwiseDdl.Feature.SHARD_MAP.script("postgres"),
        ShardwiseDdl.Feature.ROUTER_LEASES.script("postgres"), ShardwiseDdl.Feature.TRANSACTION_LOG.script("postgres"));
    try (SessionFactory sf = builder("postgres", true).schema("create").buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long a = BankFixture.key(shards, "s0", 1);
      long b = BankFixture.key(shards, "s1", 1);
      for (long id : new long[] {a, b}) {
        shards.forKey(id).inTransaction(s -> s.persist(new Account(id, 1_000)));
      }

      // a saga whose steps' shards lack the markers is refused before it is logged: not compensated
      RuntimeException e = assertThrows(RuntimeException.class,
          () -> shards.sagas().register(SagaTest.transfer()).run("transfer", "t3," + a + "," + b + ",10"));
      ShardwiseObjectsMissingException missing = find(e);
      assertEquals(ShardwiseDdl.Feature.SAGA_MARKERS.script("postgres"), missing.sql());
      assertTrue(missing.database().startsWith("shard 's"), missing.database());
      assertEquals(0L, count(pg.shard(0).primary(), CONTROL, "SELECT count(*) FROM shardwise.saga"));

      // a global index whose table is missing on the value's shard: the write is refused with its SQL
      String email = "first-use@example.com";
      String owner = shards.shardFor(email);
      e = assertThrows(RuntimeException.class,
          () -> shards.forKey(a).inTransaction(s -> s.persist(new Customer(a, email))));
      missing = find(e);
      assertTrue(missing.database().startsWith("shard '" + owner + "'"), missing.database());
      assertEquals(ShardwiseDdl.globalIndexScript("shardwise.gidx_customer_email", "postgres"), missing.sql());
      assertEquals(0L, count(pg.shard(0).primary(), DB, "SELECT count(*) FROM Customer")
          + count(pg.shard(1).primary(), DB, "SELECT count(*) FROM Customer"));
    }
    for (PostgresShard shard : pg.shards()) {
      assertEquals(0L, count(shard.primary(), DB, "SELECT count(*) FROM pg_namespace WHERE nspname = 'shardwise'"));
    }
  }

  @Test
  void aTableOfAnOlderShardwiseIsRefusedNamingTheColumnsItLacksAndTheScriptOrCreateAddsThem() throws SQLException {
    // the shard map as an older Shardwise made it: buckets without the columns online moves added
    admin(pg.shard(0).primary(), CONTROL, ShardwiseDdl.Feature.SHARD_MAP.script("postgres"),
        "ALTER TABLE shardwise.bucket DROP COLUMN read_shard_id, DROP COLUMN copy_shard_id",
        ShardwiseDdl.Feature.ROUTER_LEASES.script("postgres"), ShardwiseDdl.Feature.TRANSACTION_LOG.script("postgres"));
    String columnsOfBucket = "SELECT count(*) FROM pg_attribute WHERE attrelid = 'shardwise.bucket'::regclass"
        + " AND attname IN ('read_shard_id', 'copy_shard_id') AND NOT attisdropped";

    RuntimeException e = assertThrows(RuntimeException.class, () -> builder("postgres", true).buildSessionFactory().close());
    ShardwiseObjectsMissingException missing = find(e);
    assertTrue(missing.getMessage().contains("table shardwise.bucket lacks column(s) read_shard_id, copy_shard_id"),
        missing.getMessage());
    assertEquals(ShardwiseDdl.Feature.SHARD_MAP.script("postgres"), missing.sql());
    assertEquals(0L, count(pg.shard(0).primary(), CONTROL, columnsOfBucket), "validate changed nothing");

    // the administrator runs the SQL of the message: it adds the columns, and the start succeeds
    admin(pg.shard(0).primary(), CONTROL, missing.sql());
    assertEquals(2L, count(pg.shard(0).primary(), CONTROL, columnsOfBucket));
    try (SessionFactory sf = builder("postgres", true).buildSessionFactory()) {
      assertNotNull(sf);
    }

    // with shardwise.ddl = create, Shardwise adds them itself
    admin(pg.shard(0).primary(), CONTROL, "ALTER TABLE shardwise.bucket DROP COLUMN read_shard_id, DROP COLUMN copy_shard_id");
    try (SessionFactory sf = builder("postgres", true, "create").buildSessionFactory()) {
      assertNotNull(sf);
    }
    assertEquals(2L, count(pg.shard(0).primary(), CONTROL, columnsOfBucket));
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private Shardwise.Builder builder(String user, boolean initializeMap) {
    return builder(user, initializeMap, "validate");
  }

  private Shardwise.Builder builder(String user, boolean initializeMap, String ddl) {
    Shardwise.Builder b = Shardwise.configure().credentials(user, null).ddl(ddl)
        .entities(Account.class, TransferLeg.class, Customer.class, Event.class)
        .controlDatabase(controlUrl(), initializeMap)
        .property(ShardwiseSettings.TX_RECOVERY_INTERVAL, "600000");
    if (initializeMap || user.equals("postgres")) {
      for (PostgresShard shard : pg.shards()) {
        b.shard("s" + shard.index(), shard.primary().jdbcUrl(DB));
      }
    }
    if (user.equals("postgres")) {
      b.property("shardwise.snowflake.worker_id", "1");
    }
    return b;
  }

  private String controlUrl() {
    return pg.shard(0).primary().jdbcUrl(CONTROL);
  }

  private static ShardwiseObjectsMissingException find(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ShardwiseObjectsMissingException m) {
        return m;
      }
    }
    throw new AssertionError("no ShardwiseObjectsMissingException in the chain", e);
  }

  private static void admin(PostgresNode node, String db, String... sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl(db), "postgres", null);
        Statement s = c.createStatement()) {
      for (String statement : sql) {
        s.execute(statement);
      }
    }
  }

  private static long count(PostgresNode node, String db, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl(db), "postgres", null);
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean bool(PostgresNode node, String db, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl(db), "postgres", null);
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
