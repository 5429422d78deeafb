package io.shardwise.sample;

import io.shardwise.advisor.Advice;
import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardKeyMissingException;
import io.shardwise.hibernate.ShardRoute;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.globalindex.GlobalIndexUniqueException;
import io.shardwise.hibernate.id.SnowflakeLayout;
import io.shardwise.hibernate.operations.HotspotReport;
import io.shardwise.hibernate.operations.OperationsPage;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.RowLockInReadOnlySessionException;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.scatter.ScatterResult;
import io.shardwise.hibernate.transaction.SagaDefinition;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.sample.model.Country;
import io.shardwise.sample.model.Customer;
import io.shardwise.sample.model.Merchant;
import io.shardwise.sample.model.OrderItem;
import io.shardwise.sample.model.Product;
import io.shardwise.sample.model.Profile;
import io.shardwise.sample.model.PurchaseOrder;
import io.shardwise.sample.model.Wallet;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.LogManager;
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
    Walkthrough walk = new Walkthrough(System.out, System.console() != null);
    walk.title("Shardwise sample: an e-commerce store on a sharded PostgreSQL");

    walk.step("Before sharding: shardwise advise on an unsharded model (owners -> pets -> visits, sample-app/adopted-before)");
    Advice advice = AdviseStep.advise(AdviseStep.sources());
    advice.text().lines().filter(line -> !line.startsWith("Next:")).forEach(line -> walk.say("%s", line));
    walk.say("The same from a terminal: shardwise advise --classes target/classes --package %s --patch advice.txt",
        AdviseStep.PACKAGE);
    walk.say("Applied by hand, this proposal is %s.* (docs/adopting.md); the store below was annotated the same way.",
        AdviseStep.PACKAGE);

    walk.step("Start the embedded topology: 3 shards, each a primary and a streaming replica");
    try (PostgresTopology pg = PostgresTopology.builder().shards(3).replicasPerShard(1).start()) {
      walk.say("up in %d ms (PostgreSQL 17 from Maven Central, no Docker)", pg.startupTime().toMillis());
      for (PostgresShard shard : pg.shards()) {
        walk.say("shard%d  primary %s   replica %s", shard.index(), shard.primary().jdbcUrl(),
            shard.replica(0).jdbcUrl());
      }

      walk.step("Build the session factory: eight annotated entities, schema created on every shard, shard map in a control database");
      walk.say("shardwise.ddl = create: Shardwise creates its own tables here (the default, validate, only checks them)");
      Shardwise.Builder config = Shardwise.configure()
          .credentials("postgres", null)
          .schema("create")
          // Opt in to Shardwise's own DDL: this embedded topology runs as its superuser and starts empty.
          // A deployment keeps the default (validate) and has an administrator run the SQL of
          // docs/security.md once, so the application's role needs no CREATE anywhere.
          .ddl("create")
          .property(ShardwiseSettings.RYW_SECRET, "sample-app-secret-use-32-random-bytes-in-production")
          .controlDatabase(pg.shard(0).primary().jdbcUrl(), true)
          .property("shardwise.snowflake.worker_id", "7")
          // One process here, told of every map change at once; a deployment keeps the default (5 s) or
          // more: longer than a router may be cut off from the control database (docs/resharding.md).
          .property("shardwise.reshard.fence_grace_ms", "250")
          .entities(Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class, Profile.class, Product.class,
              Wallet.class, Customer.class);
      for (PostgresShard shard : pg.shards()) {
        config.shard("shard" + shard.index(), shard.primary().jdbcUrl())
            .replica("shard" + shard.index(), shard.replica(0).jdbcUrl());
      }
      // the fourth shard's server, started in its step, outlives the session factory's pool to it
      try (AddShardLive fourthShard = new AddShardLive();
          SessionFactory sessionFactory = config.buildSessionFactory();
          OperationsPage page = ShardedSessions.of(sessionFactory).operationsPage(0)) { // 0: a free port
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        walk.say("Merchant @ShardKey id; PurchaseOrder and OrderItem @CoLocated(with = Merchant) by merchant_id;");
        walk.say("Country @ReferenceTable. %d buckets over shards %s.", shards.shardMap().bucketCount(), shards.shardIds());
        walk.say("operations page: %s (open it to watch the rest, the shard added live included)", page.uri());

        walk.step("Reference data: the countries table is written to every shard in one atomic transaction");
        shards.referenceTables().inTransaction(s -> {
          s.persist(new Country("GB", "United Kingdom"));
          s.persist(new Country("FR", "France"));
          s.persist(new Country("NL", "Netherlands"));
          s.persist(new Country("CH", "Switzerland"));
        });
        walk.say("4 countries on all %d shards (two-phase commit); checksums agree: %s", pg.shardCount(),
            shards.referenceTables().check().consistent());

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
        PurchaseOrder marie = new PurchaseOrder(merchant, "Marie").add("CENTRIFUGE", 1).add("PIPETTE", 40);
        PurchaseOrder pierre = new PurchaseOrder(merchant, "Pierre").add("PIPETTE", 10);
        shards.forKey(merchant).inTransaction(s -> {
          s.persist(marie);
          s.persist(pierre);
        });
        SnowflakeLayout.Decoded decoded = SnowflakeLayout.DEFAULT.decode(marie.getId());
        walk.say("order ids are @SnowflakeId values: %d -> created %s by worker %d, sequence %d",
            marie.getId(), decoded.timestamp(), decoded.worker(), decoded.sequence());
        List<Object[]> lines = shards.forKey(merchant).fromSession(s -> s.createSelectionQuery(
                "select o.customer, i.sku, i.quantity, c.name from PurchaseOrder o join o.items i, Merchant m"
                    + " join m.country c where o.merchantId = :m and m.id = :m order by o.id, i.sku", Object[].class)
            .setParameter("m", merchant).getResultList());
        for (Object[] line : lines) {
          walk.say("%-7s %-11s x%-3s (merchant in %s)", line);
        }
        walk.say("rows on %s only: %s", shards.shardFor(merchant), placement(pg, merchant));
        long firstOrder = marie.getId();

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
          shards.forKey(merchant).inTransaction(s -> s.find(PurchaseOrder.class, firstOrder).setMerchantId(1004L));
        } catch (ShardKeyException e) {
          walk.say("%s", firstSentence(e.getMessage()));
        }
        try {
          ordersWhere(shards.forKey(merchant), "customer", "Marie");
        } catch (ShardKeyMissingException e) {
          walk.say("%s", firstSentence(e.getMessage()));
        }

        crossShardQueries(walk, shards);
        crossShardTransfers(walk, shards);

        ServerNames servers = new ServerNames(pg);
        profileUpdate(walk, pg, shards, servers);
        flashSale(walk, pg, shards, servers);
        addShardLive(walk, pg, shards, fourthShard);
        hotspots(walk, shards, page);
      }

      walk.step("Done: stopping the operations page and every server");
    }
    walk.say("all PostgreSQL processes stopped and their data directories removed");
  }

  /** Questions without a shard key: a scatter-gather over every shard, and a global index. */
  private static void crossShardQueries(Walkthrough walk, ShardedSessions shards) {
    walk.step("Across all merchants: pending orders newest first, page 3 (4 per page), on every shard at once");
    java.time.Instant start = java.time.Instant.parse("2026-11-01T09:00:00Z");
    for (int i = 0; i < 30; i++) {
      long merchant = 1001 + i % MERCHANTS.length;
      java.time.Instant when = start.plusSeconds(3600L * i);
      String status = i % 3 == 0 ? "SHIPPED" : "PENDING";
      shards.forKey(merchant).inTransaction(s -> s.persist(new PurchaseOrder(merchant, "shopper").placedAt(when, status)));
    }
    String pending = "select o.placedAt, o.merchantId, o.id from PurchaseOrder o where o.status = :status"
        + " order by o.placedAt desc, o.id desc";
    ScatterResult<Object[]> page3 = shards.scatter().createQuery(pending, Object[].class)
        .setParameter("status", "PENDING").setFirstResult(8).setMaxResults(4).getResult();
    for (Object[] row : page3.rows()) {
      walk.say("%s  merchant %s (%s)  order %s", row[0], row[1], shards.shardFor(row[1]), row[2]);
    }
    Object[] last = page3.rows().get(page3.rows().size() - 1);
    List<Object[]> page4 = shards.scatter().createQuery(pending, Object[].class).setParameter("status", "PENDING")
        .after(last[0], last[2]).setMaxResults(4).getResultList();
    walk.say("page 4 by keyset (after %s): starts at %s; every shard returns at most 4 rows, whatever the page",
        last[0], page4.get(0)[0]);
    try {
      shards.forKey(1001L).fromSession(s -> s.createSelectionQuery(pending, Object[].class)
          .setParameter("status", "PENDING").getResultList());
    } catch (ShardKeyMissingException e) {
      walk.say("the same HQL in a one-shard session is refused: %s", firstSentence(e.getMessage()));
    }

    walk.step("Find a customer by email: a global index, not a scatter");
    for (long id = 501; id <= 506; id++) {
      long customer = id;
      shards.forKey(customer).inTransaction(s -> s.persist(new Customer(customer, "shopper" + customer + "@example.com",
          "Shopper " + customer)));
    }
    Customer found = shards.findBy(Customer.class, "email", "shopper504@example.com").orElseThrow();
    walk.say("findBy(email = shopper504@example.com) -> %s, id %d on %s", found.getName(), found.getId(),
        shards.shardFor(found.getId()));
    try {
      shards.forKey(507L).inTransaction(s -> s.persist(new Customer(507, "shopper504@example.com", "Impostor")));
    } catch (GlobalIndexUniqueException e) {
      walk.say("a second account with that email is refused: %s", firstSentence(e.getMessage()));
    }
  }

  /** Money between merchants on different shards: two-phase commit, then a saga with compensation. */
  private static void crossShardTransfers(Walkthrough walk, ShardedSessions shards) {
    walk.step("Cross-shard transfers between merchants 1001 (" + shards.shardFor(1001L) + ") and 1002 ("
        + shards.shardFor(1002L) + ")");
    shards.forKey(1001L).inTransaction(s -> s.persist(new Wallet(1001, 10_000)));
    shards.forKey(1002L).inTransaction(s -> s.persist(new Wallet(1002, 10_000)));

    shards.atomically(tx -> {
      java.util.List<Wallet> wallets = tx.lock(Wallet.class, 1001L, 1002L); // read and lock, in one global order
      wallets.get(0).withdraw(2_500);
      wallets.get(1).deposit(2_500);
    });
    walk.say("2PC moved 25.00: %s (one shard prepared, the other committed: the decision, then the prepared one committed)", balances(shards));

    shards.sagas().register(SagaDefinition.named("payout")
        .step("debit", p -> Long.parseLong(p.split(":")[0]),
            (s, p) -> s.find(Wallet.class, Long.parseLong(p.split(":")[0])).withdraw(Long.parseLong(p.split(":")[2])),
            (s, p) -> s.find(Wallet.class, Long.parseLong(p.split(":")[0])).deposit(Long.parseLong(p.split(":")[2])))
        .step("credit", p -> Long.parseLong(p.split(":")[1]),
            (s, p) -> s.find(Wallet.class, Long.parseLong(p.split(":")[1])).deposit(Long.parseLong(p.split(":")[2])),
            (s, p) -> s.find(Wallet.class, Long.parseLong(p.split(":")[1])).withdraw(Long.parseLong(p.split(":")[2])))
        .build());
    SagaOutcome ok = shards.sagas().run("payout", "1002:1001:1000");
    walk.say("saga moved 10.00 back: %s -> %s", ok.state(), balances(shards));
    SagaOutcome refused = shards.sagas().run("payout", "1001:1002:999999");
    walk.say("saga for 9,999.99 (more than the balance): %s, %s -> %s", refused.state(),
        firstSentence(String.valueOf(refused.failure())), balances(shards));
  }

  private static String balances(ShardedSessions shards) {
    long a = shards.forKey(1001L).fromSession(s -> s.find(Wallet.class, 1001L).getBalanceCents());
    long b = shards.forKey(1002L).fromSession(s -> s.find(Wallet.class, 1002L).getBalanceCents());
    return String.format("1001 has %.2f, 1002 has %.2f, total %.2f", a / 100.0, b / 100.0, (a + b) / 100.0);
  }

  /** The seed's first story: a user renames their profile and, reading from a lagging replica, sees the old name. */
  private static void profileUpdate(Walkthrough walk, PostgresTopology pg, ShardedSessions shards, ServerNames servers) {
    walk.step("Read-your-writes: a profile update read back while replicas lag 800 ms");
    long user = 42;
    shards.forKey(user).inTransaction(s -> s.persist(new Profile(user, "Ada")));
    pg.awaitReplicasCaughtUp(CATCH_UP);
    shards.checkReplicasNow();
    pg.shards().forEach(shard -> shard.replica(0).setApplyDelay(Duration.ofMillis(800)));

    shards.forKey(user).inTransaction(s -> s.find(Profile.class, user).setDisplayName("Ada Lovelace"));
    walk.say("without a scope: renamed to 'Ada Lovelace', read back -> %s", readProfile(shards.forKey(user).readOnly(), servers));

    ConsistencyScope scope = shards.consistency().scope("user:" + user);
    shards.forKey(user).within(scope).inTransaction(s -> s.find(Profile.class, user).setDisplayName("Countess of Lovelace"));
    walk.say("within scope 'user:42': renamed to 'Countess of Lovelace', read back -> %s",
        readProfile(shards.forKey(user).within(scope).readOnly(), servers));
    String token = shards.consistency().token(scope);
    walk.say("the scope travels to the client as a signed token (%d chars): %s...", token.length(), token.substring(0, 24));
    // the next request knows its user: the token is accepted for that user's scope only
    ConsistencyScope again = shards.consistency().fromToken(shards.consistency().scope("user:" + user), token);
    pg.shard(shardIndex(shards, user)).awaitReplicasCaughtUp(CATCH_UP);
    shards.checkReplicasNow();
    walk.say("once the replica has replayed the write, the scope reads from it again -> %s",
        readProfile(shards.forKey(user).within(again).readOnly(), servers));
    pg.shards().forEach(shard -> shard.replica(0).clearApplyDelay());
  }

  /** The seed's second story: a flash sale must not oversell because a stock check ran on a stale replica. */
  private static void flashSale(Walkthrough walk, PostgresTopology pg, ShardedSessions shards, ServerNames servers)
      throws Exception {
    walk.step("Flash sale: 3 phones, 12 buyers at once; stock checked under a row lock on the primary");
    long merchant = 1001;
    long sku = 77;
    shards.forKey(merchant).inTransaction(s -> s.persist(new Product(sku, merchant, "Difference Engine phone", 3)));
    ExecutorService buyers = Executors.newFixedThreadPool(6);
    List<Future<Boolean>> checkouts = new ArrayList<>();
    for (int b = 0; b < 12; b++) {
      checkouts.add(buyers.submit(() -> shards.forKey(merchant).fromTransaction(s ->
          s.find(Product.class, sku, LockModeType.PESSIMISTIC_WRITE).takeOne())));
    }
    int sold = 0;
    for (Future<Boolean> checkout : checkouts) {
      sold += checkout.get() ? 1 : 0;
    }
    buyers.shutdown();
    int left = shards.forKey(merchant).fromSession(s -> s.find(Product.class, sku).getStock());
    walk.say("sold %d, stock left %d: the lock ran on %s", sold, left, servers.primaryOf(shardIndex(shards, merchant)));
    try {
      shards.forKey(merchant).readOnly().inTransaction(s -> s.find(Product.class, sku, LockModeType.PESSIMISTIC_WRITE));
    } catch (RowLockInReadOnlySessionException e) {
      walk.say("%s", firstSentence(e.getMessage()));
    }
  }

  /** Issue 14's last mile: grow from 3 shards to 4 while orders are written. */
  private static void addShardLive(Walkthrough walk, PostgresTopology pg, ShardedSessions shards, AddShardLive step)
      throws Exception {
    walk.step("Add a fourth shard live: its fair share of the buckets moves while orders keep being written");
    long start = System.nanoTime();
    AddShardLive.seed(shards);
    walk.say("%d more merchants with %d orders each, spread over %s", AddShardLive.MERCHANTS,
        AddShardLive.ORDERS_PER_MERCHANT, shards.shardIds());
    PostgresNode server = step.startServer();
    walk.say("shard3 primary %s (wal_level = logical, as on every primary here)", server.jdbcUrl());
    AddShardLive.Result result = step.run(walk, shards, "shard3");
    AddShardLive.print(walk, result);
    walk.say("the whole step took %.1f s", (System.nanoTime() - start) / 1e9);
    if (!result.allGood()) {
      throw new IllegalStateException("The live shard addition lost, duplicated or misplaced rows: " + result);
    }
  }

  /** Where the routed sessions went: per shard, bucket and key, with advice when one dominates. */
  private static void hotspots(Walkthrough walk, ShardedSessions shards, OperationsPage page) throws Exception {
    walk.step("Hotspots: 2,000 lookups, every second one of merchant 1001; the report names the hot key");
    shards.hotspots().reset();
    for (int i = 0; i < 2000; i++) {
      long merchant = i % 2 == 0 ? 1001 : AddShardLive.FIRST_MERCHANT + i % AddShardLive.MERCHANTS;
      shards.forKey(merchant).inSession(s -> s.find(Merchant.class, merchant));
    }
    HotspotReport report = shards.hotspots().report();
    for (HotspotReport.ShardTraffic t : report.shards()) {
      String hottest = t.hottestKeys().isEmpty() ? "-" : String.format("%s (about %,d sessions, %.0f%% of the shard)",
          t.hottestKeys().get(0).key(), t.hottestKeys().get(0).estimatedSessions(),
          100 * t.hottestKeys().get(0).shareOfShard());
      walk.say("%s: %,5d sessions (%2.0f%% of all) on %3d buckets; hottest key %s", t.shardId(), t.sessions(),
          100 * t.shareOfAll(), t.bucketsOwned(), hottest);
    }
    for (HotspotReport.Finding f : report.findings()) {
      walk.say("%s on %s: %s", f.kind(), f.shardId(), firstSentence(f.advice()));
    }
    java.net.http.HttpResponse<String> state = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(page.uri().resolve("/api/state")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    walk.say("the operations page shows the same: GET %s -> %d, %,d bytes of JSON, shard3 in it: %s",
        page.uri().resolve("/api/state"), state.statusCode(), state.body().length(), state.body().contains("shard3"));
  }

  private static String readProfile(ShardRoute route, ServerNames servers) {
    return route.fromSession(s -> {
      Profile p = s.find(Profile.class, 42L);
      Integer port = s.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
      return "'" + p.getDisplayName() + "' from " + servers.name(port);
    });
  }

  private static int shardIndex(ShardedSessions shards, long key) {
    return Integer.parseInt(shards.shardFor(key).substring("shard".length()));
  }

  /** Names a server by its port, to show which one served a read. */
  private static final class ServerNames {
    private final Map<Integer, String> byPort = new HashMap<>();

    ServerNames(PostgresTopology pg) {
      for (PostgresNode node : pg.nodes()) {
        byPort.put(node.port(), node.name());
      }
    }

    String name(int port) {
      return byPort.getOrDefault(port, "port " + port);
    }

    String primaryOf(int shard) {
      return "shard" + shard + "-primary";
    }
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

  /**
   * A query assembled at run time, out of the compile-time checks' sight (they see only constant
   * query strings): the runtime guard judges it when Hibernate first translates it.
   */
  private static List<PurchaseOrder> ordersWhere(ShardRoute route, String attribute, String value) {
    String hql = "from PurchaseOrder o where o." + attribute + " = :v";
    return route.fromSession(s -> s.createSelectionQuery(hql, PurchaseOrder.class).setParameter("v", value)
        .getResultList());
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
}
