package io.shardwise.sample;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.sample.model.Country;
import io.shardwise.sample.model.Merchant;
import io.shardwise.sample.model.OrderItem;
import io.shardwise.sample.model.PurchaseOrder;
import io.shardwise.testkit.Lsn;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import jakarta.persistence.EntityManager;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.logging.LogManager;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;

/**
 * A guided walk through Shardwise on the embedded topology: three shards, each a PostgreSQL
 * primary with one streaming replica, started from the binaries on the classpath. Run it with
 * {@code mvn -B -q -pl sample-app -am compile exec:java}.
 */
public final class SampleApp {
  private static final Duration CATCH_UP = Duration.ofSeconds(30);
  private static final String[][] MERCHANTS = {
      {"Ada's Analytical Engines", "GB"}, {"Babbage Brass Works", "GB"}, {"Curie Clinic Supplies", "FR"},
      {"Dijkstra Routing Co.", "NL"}, {"Euler Circuits", "CH"}, {"Fermat Margins", "FR"}};

  private SampleApp() {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    Walkthrough walk = new Walkthrough(System.out);
    walk.title("Shardwise sample: an e-commerce store on a sharded PostgreSQL");

    walk.step("Start the embedded topology: 3 shards, each a primary and a streaming replica");
    try (PostgresTopology pg = PostgresTopology.builder().shards(3).replicasPerShard(1).start()) {
      walk.say("up in %d ms (PostgreSQL 17 from Maven Central, no Docker)", pg.startupTime().toMillis());
      for (PostgresShard shard : pg.shards()) {
        walk.say("shard%d  primary %s   replica %s", shard.index(), shard.primary().jdbcUrl(),
            shard.replica(0).jdbcUrl());
      }

      walk.step("Build the session factory: four annotated entities, schema created on every shard");
      Shardwise.Builder config = Shardwise.configure()
          .credentials("postgres", null)
          .schema("create")
          .entities(Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class);
      for (PostgresShard shard : pg.shards()) {
        config.shard("shard" + shard.index(), shard.primary().jdbcUrl());
      }
      try (SessionFactory sessionFactory = config.buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        walk.say("Merchant @ShardKey id; PurchaseOrder and OrderItem @CoLocated(with = Merchant) by merchant_id;");
        walk.say("Country @ReferenceTable. %d buckets over shards %s.", shards.shardMap().bucketCount(), shards.shardIds());

        walk.step("Reference data: the countries table is copied to every shard");
        for (PostgresShard shard : pg.shards()) {
          execute(shard.primary().dataSource(), "INSERT INTO Country (code, name) VALUES ('GB', 'United Kingdom'),"
              + " ('FR', 'France'), ('NL', 'Netherlands'), ('CH', 'Switzerland')");
        }
        walk.say("loaded on all %d shards (atomic reference-table writes arrive with cross-shard transactions)",
            pg.shardCount());

        walk.step("Create merchants: each lands on the shard that owns its key");
        for (int i = 0; i < MERCHANTS.length; i++) {
          long id = 1001 + i;
          String name = MERCHANTS[i][0];
          String country = MERCHANTS[i][1];
          shards.forKey(id).inTransaction(s -> s.persist(new Merchant(id, name, s.getReference(Country.class, country))));
          int bucket = BucketStrategy.bucketOf(ShardKeyType.LONG.hash(id), shards.shardMap().bucketCount());
          walk.say("merchant %d  %-26s -> bucket %4d -> %s", id, name, bucket, shards.shardFor(id));
        }

        walk.step("Orders and their items share the merchant's shard: one local transaction, local joins");
        long merchant = 1003;
        shards.forKey(merchant).inTransaction(s -> {
          s.persist(new PurchaseOrder(1, merchant, "Marie").add(11, "CENTRIFUGE", 1).add(12, "PIPETTE", 40));
          s.persist(new PurchaseOrder(2, merchant, "Pierre").add(21, "PIPETTE", 10));
        });
        List<Object[]> lines = shards.forKey(merchant).fromSession(s -> s.createSelectionQuery(
                "select o.customer, i.sku, i.quantity, c.name from PurchaseOrder o join o.items i, Merchant m"
                    + " join m.country c where o.merchantId = :m and m.id = :m order by o.id, i.sku", Object[].class)
            .setParameter("m", merchant).getResultList());
        for (Object[] line : lines) {
          walk.say("%-7s %-11s x%-3s (merchant in %s)", line);
        }
        walk.say("rows on %s only: %s", shards.shardFor(merchant), placement(pg, merchant));

        walk.step("Existing code, unchanged: open an EntityManager inside a shard context");
        try (ShardContext.Scope scope = shards.contextForKey(1005L)) {
          EntityManager em = sessionFactory.createEntityManager();
          Merchant euler = em.find(Merchant.class, 1005L);
          walk.say("em.find(Merchant.class, 1005) on %s -> %s", ShardContext.current(), euler.getName());
          em.close();
        }

        walk.step("Guard rails: mistakes are refused before any SQL is sent");
        String wrong = shards.shardIds().stream().filter(s -> !s.equals(shards.shardFor(2001L))).findFirst().orElseThrow();
        try {
          shards.forShard(wrong).inTransaction(s -> s.persist(new Merchant(2001, "Misplaced Ltd", null)));
        } catch (ShardKeyException e) {
          walk.say("%s", firstSentence(e.getMessage()));
        }
        try {
          shards.forKey(merchant).inTransaction(s -> s.find(PurchaseOrder.class, 1L).setMerchantId(1004L));
        } catch (ShardKeyException e) {
          walk.say("%s", firstSentence(e.getMessage()));
        }
      }

      walk.step("Replication: a write on a primary, read back from its replica");
      PostgresNode primary = pg.shard(0).primary();
      PostgresNode replica = pg.shard(0).replica(0);
      execute(primary.dataSource(), "CREATE TABLE profile (id bigint PRIMARY KEY, name text NOT NULL)");
      execute(primary.dataSource(), "INSERT INTO profile VALUES (1, 'Ada')");
      Lsn written = primary.currentLsn();
      replica.awaitReplay(written, CATCH_UP);
      walk.say("primary WAL at %s; replica replayed up to %s and reads: %s", written, replica.replayLsn(),
          profileName(replica.dataSource()));

      walk.step("Real replication lag: the stale read that read-your-writes exists to prevent");
      replica.setApplyDelay(Duration.ofMillis(800));
      execute(primary.dataSource(), "UPDATE profile SET name = 'Ada Lovelace' WHERE id = 1");
      Lsn update = primary.currentLsn();
      walk.say("primary now says:             %s", profileName(primary.dataSource()));
      walk.say("replica (800 ms behind) says: %s   <- stale", profileName(replica.dataSource()));
      replica.awaitReplay(update, CATCH_UP);
      walk.say("replica after replaying %s: %s", update, profileName(replica.dataSource()));
      replica.clearApplyDelay();

      walk.step("Done: stopping every server");
    }
    walk.say("all PostgreSQL processes stopped and their data directories removed");
  }

  private static String placement(PostgresTopology pg, long merchant) throws SQLException {
    StringBuilder out = new StringBuilder();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection();
          PreparedStatement ps = c.prepareStatement("SELECT (SELECT count(*) FROM purchase_order WHERE merchant_id = ?)"
              + " + (SELECT count(*) FROM order_item WHERE merchant_id = ?)")) {
        ps.setLong(1, merchant);
        ps.setLong(2, merchant);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          out.append("shard").append(shard.index()).append('=').append(rs.getLong(1)).append(' ');
        }
      }
    }
    return out.toString().trim();
  }

  private static String firstSentence(String message) {
    int cut = message.indexOf(". ");
    return cut > 0 ? message.substring(0, cut + 1) : message;
  }

  private static void quietLogging() throws Exception {
    try (InputStream in = SampleApp.class.getResourceAsStream("/logging.properties")) {
      if (in != null) {
        LogManager.getLogManager().readConfiguration(in);
      }
    }
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String profileName(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT name FROM profile WHERE id = 1")) {
      return rs.next() ? rs.getString(1) : "(no row)";
    }
  }
}
