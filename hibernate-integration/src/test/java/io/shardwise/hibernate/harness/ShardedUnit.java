package io.shardwise.hibernate.harness;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.wiring.internal.ShardwiseComponents;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.ThrowingRunnable;
import org.hibernate.SessionFactory;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * A Shardwise session factory on the first {@code n} primaries of a testkit topology, laid out as
 * one {@link Layout}, with the checks the core tests run after every test and after the factory
 * closes. The one way the core tests build a sharded unit: {@link #configure} is the shared
 * builder, {@link #on} adds the checks.
 *
 * <p>{@link #assertInvariants()} (after each test):
 * <ul>
 *   <li><b>every row sits on the shard its key routes to</b>: each primary of the topology is read
 *       directly (its identity proved by {@code inet_server_port()}), every distinct shard-key value
 *       of every {@link Placement} table there must route to that primary's shard, and primaries the
 *       layout does not use must hold no row at all;</li>
 *   <li><b>no connection leaked</b>: every primary pool of the factory is back to zero active
 *       connections, and no session of the unit's servers sits idle in a transaction.</li>
 * </ul>
 * {@link #close()} closes the factory and then checks that <b>no connection and no server
 * outlived it</b>: no client backend is left on any server of the topology, and this JVM runs no
 * more PostgreSQL servers than when the unit started.
 */
public final class ShardedUnit implements AutoCloseable {
  private static final Duration SETTLE = Duration.ofSeconds(10);

  /** The application name of the harness's own connections, which the leak checks leave out. */
  static final String HARNESS = "shardwise-harness";

  /** A sharded table and its shard-key column: what the placement check reads. */
  public record Placement(String table, String keyColumn) {}

  private final PostgresTopology pg;
  private final Layout layout;
  private final boolean replicas;
  private final List<Placement> placements;
  private final SessionFactory sessionFactory;
  private final ShardedSessions shards;
  private final ShardwiseComponents components;
  private final int postmastersAtStart;
  /** One direct connection per server, opened on first use: the checks run after every test. */
  private final Map<PostgresNode, Connection> direct = new LinkedHashMap<>();

  private ShardedUnit(PostgresTopology pg, Layout layout, boolean replicas, List<Placement> placements,
      SessionFactory sessionFactory, int postmastersAtStart) {
    this.pg = pg;
    this.layout = layout;
    this.replicas = replicas;
    this.placements = List.copyOf(placements);
    this.sessionFactory = sessionFactory;
    this.shards = ShardedSessions.of(sessionFactory);
    this.components = components(sessionFactory);
    this.postmastersAtStart = postmastersAtStart;
  }

  /**
   * The shared builder: credentials, the layout's shards on the topology's first primaries (with
   * each one's first replica when {@code withReplicas}), and the layout's strategy properties.
   * Callers add entities, schema and their own properties.
   */
  public static Shardwise.Builder configure(PostgresTopology pg, Layout layout, boolean withReplicas) {
    if (pg.shardCount() < layout.shards()) {
      throw new IllegalArgumentException(layout + " needs " + layout.shards() + " primaries; the topology has "
          + pg.shardCount());
    }
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null);
    for (int i = 0; i < layout.shards(); i++) {
      PostgresShard shard = pg.shard(i);
      b.shard(Layout.shardId(i), shard.primary().jdbcUrl());
      if (withReplicas) {
        b.replica(Layout.shardId(i), shard.replica(0).jdbcUrl());
      }
    }
    layout.properties().forEach(b::property);
    return b;
  }

  /** Bucket routing over every shard of the topology: what the tests outside the matrix use. */
  public static Shardwise.Builder configure(PostgresTopology pg, boolean withReplicas) {
    return configure(pg, new Layout(Layout.Strategy.BUCKET, pg.shardCount()), withReplicas);
  }

  /** Starts describing a unit of {@code layout} on {@code pg}. */
  public static Starter on(PostgresTopology pg, Layout layout) {
    return new Starter(pg, layout);
  }

  /** What a unit holds and how it is built; {@link #start()} builds the session factory. */
  public static final class Starter {
    private final PostgresTopology pg;
    private final Layout layout;
    private boolean replicas;
    private final List<Placement> placements = new ArrayList<>();
    private Class<?>[] entities = new Class<?>[0];
    private Consumer<Shardwise.Builder> customize = b -> { };

    private Starter(PostgresTopology pg, Layout layout) {
      this.pg = pg;
      this.layout = layout;
    }

    public Starter entities(Class<?>... types) {
      this.entities = types.clone();
      return this;
    }

    /** The sharded tables the placement check reads, with their shard-key columns. */
    public Starter placements(List<Placement> tables) {
      placements.addAll(tables);
      return this;
    }

    /** Each shard also gets its first replica (the topology must have one per shard). */
    public Starter withReplicas() {
      this.replicas = true;
      return this;
    }

    /** Anything else the unit needs on the builder (properties). */
    public Starter configure(Consumer<Shardwise.Builder> more) {
      this.customize = this.customize.andThen(more);
      return this;
    }

    /** Builds the session factory, creating the schema on the layout's shards. */
    public ShardedUnit start() {
      int postmasters = Postmasters.ofThisJvm().size();
      Shardwise.Builder b = ShardedUnit.configure(pg, layout, replicas).schema("create").entities(entities);
      customize.accept(b);
      return new ShardedUnit(pg, layout, replicas, placements, b.buildSessionFactory(), postmasters);
    }
  }

  public Layout layout() {
    return layout;
  }

  public ShardedSessions shards() {
    return shards;
  }

  public SessionFactory sessionFactory() {
    return sessionFactory;
  }

  /** The topology primary of the shard {@code key} routes to. */
  public PostgresNode primaryFor(Object key) {
    return pg.shard(Layout.indexOf(shards.shardFor(key))).primary();
  }

  /** The index of the topology primary of the shard {@code key} routes to. */
  public int indexFor(Object key) {
    return Layout.indexOf(shards.shardFor(key));
  }

  /** The smallest key from 1 up that routes to {@code shardId}. */
  public long keyOn(String shardId) {
    for (long k = 1; ; k++) {
      if (shards.shardFor(k).equals(shardId)) {
        return k;
      }
    }
  }

  /** The topology node behind the layout's shard {@code index}: its primary. */
  public PostgresNode primary(int index) {
    return pg.shard(index).primary();
  }

  /** A key (from 1 up) that does not route to {@code shardId}; only when the layout has another shard. */
  public long keyNotOn(String shardId) {
    assertTrue(layout.shards() > 1, "a single-shard layout has no foreign key");
    for (long k = 1; ; k++) {
      if (!shards.shardFor(k).equals(shardId)) {
        return k;
      }
    }
  }

  // --- data ------------------------------------------------------------------------------------

  /**
   * Empties the placement tables and {@code moreTables} on every primary of the topology where they
   * exist and hold rows (earlier cells may have created them on primaries this layout does not use).
   */
  public void reset(String... moreTables) throws SQLException {
    List<String> tables = new ArrayList<>();
    placements.forEach(p -> tables.add(p.table()));
    tables.addAll(List.of(moreTables));
    for (PostgresShard shard : pg.shards()) {
      Connection c = direct(shard.primary());
      // only tables that hold rows: most primaries hold none after a test, and TRUNCATE is not free
      List<String> filled = new ArrayList<>();
      for (String table : tables) {
        if (exists(c, table) && holdsRows(c, table)) {
          filled.add(table);
        }
      }
      if (!filled.isEmpty()) {
        try (Statement s = c.createStatement()) {
          s.execute("TRUNCATE " + String.join(", ", filled) + " CASCADE");
        }
      }
    }
  }

  /** Runs {@code sql} on the primary of every shard of the layout. */
  public void executeOnEveryShard(String sql) throws SQLException {
    for (int i = 0; i < layout.shards(); i++) {
      try (Statement s = direct(pg.shard(i).primary()).createStatement()) {
        s.execute(sql);
      }
    }
  }

  /** The indexes of the layout's primaries where the count query {@code sql} counts more than zero. */
  public List<Integer> shardsHolding(String sql, Object... args) throws SQLException {
    List<Integer> holding = new ArrayList<>();
    for (int i = 0; i < layout.shards(); i++) {
      if (count(i, sql, args) > 0) {
        holding.add(i);
      }
    }
    return holding;
  }

  /** The count query {@code sql} on the primary of the layout's shard {@code index}, read directly. */
  public long count(int index, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = direct(pg.shard(index).primary()).prepareStatement(sql)) {
      for (int a = 0; a < args.length; a++) {
        ps.setObject(a + 1, args[a]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  // --- the checks ------------------------------------------------------------------------------

  /** Every row on the shard its key routes to, and no connection leaked; see the class comment. */
  public void assertInvariants() throws SQLException {
    assertRowsOnTheirShards();
    assertNoConnectionLeaked();
  }

  /** Reads every primary of the topology directly; see the class comment. */
  public void assertRowsOnTheirShards() throws SQLException {
    List<String> misplaced = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      PostgresNode primary = shard.primary();
      Connection c = direct(primary);
      assertEquals(primary.port(), serverPort(c), "the connection to " + primary.name() + " reached another server");
      boolean used = shard.index() < layout.shards();
      String shardId = Layout.shardId(shard.index());
      for (Placement p : placements) {
        if (!exists(c, p.table())) {
          assertTrue(!used, p.table() + " does not exist on " + shardId + " of " + layout);
          continue;
        }
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT DISTINCT " + p.keyColumn() + " FROM " + p.table())) {
          while (rs.next()) {
            long key = rs.getLong(1);
            String owner = used ? shards.shardFor(key) : "(a shard of " + layout + ")";
            if (!owner.equals(shardId)) {
              misplaced.add(p.table() + "." + p.keyColumn() + " = " + key + " sits on " + shardId + " (port "
                  + primary.port() + ") but routes to " + owner);
            }
          }
        }
      }
    }
    assertEquals(List.of(), misplaced, "rows on a shard their key does not route to, " + layout);
  }

  /** Every primary pool idle, and no backend of the unit's servers idle in a transaction. */
  public void assertNoConnectionLeaked() {
    assertNoConnectionLeaked(SETTLE);
  }

  /** The same, waiting at most {@code settle} for connections in use to come back. */
  void assertNoConnectionLeaked(Duration settle) {
    within(settle, () -> {
      Map<String, String> busy = new LinkedHashMap<>();
      for (String shardId : layout.shardIds()) {
        HikariDataSource pool = components.pools().poolOf(shardId);
        HikariPoolMXBean stats = pool == null ? null : pool.getHikariPoolMXBean();
        if (stats != null && stats.getActiveConnections() != 0) {
          busy.put(shardId, "pool active=" + stats.getActiveConnections() + ", idle=" + stats.getIdleConnections());
        }
      }
      for (PostgresNode node : unitNodes()) {
        List<String> open = backends(direct(node), "state LIKE 'idle in transaction%'");
        if (!open.isEmpty()) {
          busy.put(node.name(), "idle in transaction: " + open);
        }
      }
      assertEquals(Map.of(), busy, "connections still in use after the test, " + layout);
    });
  }

  /**
   * Closes the session factory, then checks that no client connection is left on any server of the
   * topology and that this JVM runs no more PostgreSQL servers than when the unit started.
   */
  @Override
  public void close() {
    close(SETTLE);
  }

  /** The same, waiting at most {@code settle} for the factory's connections to go. */
  void close(Duration settle) {
    try {
      sessionFactory.close();
      within(settle, () -> {
        Map<String, List<String>> left = new LinkedHashMap<>();
        for (PostgresNode node : pg.nodes()) {
          List<String> sessions = backends(direct(node), "true");
          if (!sessions.isEmpty()) {
            left.put(node.name(), sessions);
          }
        }
        assertEquals(Map.of(), left, "client connections left after the session factory of " + layout + " closed");
      });
    } finally {
      closeDirectConnections();
    }
    List<String> postmasters = Postmasters.ofThisJvm();
    if (postmasters.size() > postmastersAtStart) {
      fail("PostgreSQL servers started during " + layout + " still run (" + postmastersAtStart + " before, "
          + postmasters.size() + " now): " + postmasters);
    }
  }

  /**
   * Polls {@code check} until it passes; after {@code settle}, its last failure is the test's. When
   * no evaluation finished within {@code settle} (a loaded machine), the check runs once more to
   * its end, so the verdict is the check's, not the poll's timeout.
   */
  private static void within(Duration settle, ThrowingRunnable check) {
    try {
      await().atMost(settle).untilAsserted(check);
    } catch (ConditionTimeoutException e) {
      if (e.getCause() instanceof AssertionError a) {
        throw a;
      }
      try {
        check.run();
      } catch (AssertionError a) {
        throw a;
      } catch (Throwable t) {
        throw new AssertionError(e.getMessage(), t);
      }
    }
  }

  private List<PostgresNode> unitNodes() {
    List<PostgresNode> nodes = new ArrayList<>();
    for (int i = 0; i < layout.shards(); i++) {
      nodes.add(pg.shard(i).primary());
      if (replicas) {
        nodes.addAll(pg.shard(i).replicas());
      }
    }
    return nodes;
  }

  /** The harness's own connection to {@code node}, opened on first use and kept until {@link #close()}. */
  private Connection direct(PostgresNode node) throws SQLException {
    Connection c = direct.get(node);
    if (c == null || c.isClosed()) {
      c = DriverManager.getConnection(node.jdbcUrl() + "?ApplicationName=" + HARNESS, node.user(), null);
      direct.put(node, c);
    }
    return c;
  }

  private void closeDirectConnections() {
    for (Connection c : direct.values()) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // the server went away; nothing of ours is left on it
      }
    }
    direct.clear();
  }

  /** Client backends other than the harness's own that match {@code condition}, on the server of {@code c}. */
  private static List<String> backends(Connection c, String condition) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pid, state, application_name, left(query, 80) FROM pg_stat_activity"
            + " WHERE backend_type = 'client backend' AND application_name <> '" + HARNESS + "' AND ("
            + condition + ")")) {
      List<String> found = new ArrayList<>();
      while (rs.next()) {
        found.add("pid " + rs.getInt(1) + " " + rs.getString(2) + " '" + rs.getString(3) + "': " + rs.getString(4));
      }
      return found;
    }
  }

  private static int serverPort(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT inet_server_port()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static boolean holdsRows(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + table + ")")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static boolean exists(Connection c, String table) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static ShardwiseComponents components(SessionFactory sessionFactory) {
    MultiTenantConnectionProvider<?> provider = sessionFactory.unwrap(SessionFactoryImplementor.class)
        .getServiceRegistry().getService(MultiTenantConnectionProvider.class);
    return ((ShardwiseConnectionProvider) provider).unwrap(ShardwiseComponents.class);
  }
}
