package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.readwrite.RowLockInReadOnlySessionException;
import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardKeyMissingException;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.ShardwiseJpaTransactionManager;
import io.shardwise.spring.boot.autoconfigure.shop.Catalog;
import io.shardwise.spring.boot.autoconfigure.shop.CatalogItem;
import io.shardwise.spring.boot.autoconfigure.shop.CatalogRepository;
import io.shardwise.spring.boot.autoconfigure.shop.CountryRepository;
import io.shardwise.spring.boot.autoconfigure.shop.OrderRepository;
import io.shardwise.spring.boot.autoconfigure.shop.PurchaseOrder;
import io.shardwise.spring.boot.autoconfigure.shop.ShopService;
import io.shardwise.spring.boot.autoconfigure.shop.ShopTestApplication;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.jdbc.core.JdbcTemplate;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring Boot application with spring-boot-starter-data-jpa and Shardwise's settings only: no
 * spring.datasource.url, repositories bootstrapped in Spring Data's default mode. Every routing
 * claim is checked against the server that answered (inet_server_port, pg_is_in_recovery) or the
 * rows found on each primary by plain JDBC.
 */
@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(classes = ShopTestApplication.class, properties = "shardwise.schema.action=create")
class ShardedJpaApplicationTest {
  private static final long MERCHANT_ON_S0 = keyOn("s0");
  private static final long MERCHANT_ON_S1 = keyOn("s1");

  @Autowired ApplicationContext context;
  @Autowired ShardedSessions shards;
  @Autowired ShopService shop;
  @Autowired OrderRepository orders;
  @Autowired CountryRepository countries;
  @Autowired CatalogRepository catalogs;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired DataSource dataSource;
  @Autowired jakarta.persistence.EntityManager em;

  static PostgresTopology pg;

  @BeforeAll
  static void topology(PostgresTopology topology) {
    pg = topology;
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      execute(shard.primary(), "TRUNCATE purchase_order, merchant, country, catalog_item, catalog");
      execute(shard.primary(), "INSERT INTO country (code, name) VALUES ('FR', 'France')");
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
  }

  @Test
  void bootsTheShardedFactoryWithoutASpringDatasourceUrl() {
    assertThat(context.getBeansOfType(EntityManagerFactory.class)).hasSize(1);
    assertThat(dataSource).isInstanceOf(ShardContextDataSource.class);
    assertThat(context.getBeanNamesForType(com.zaxxer.hikari.HikariDataSource.class)).isEmpty();
    assertThat(transactionManager).isInstanceOf(ShardwiseJpaTransactionManager.class);
    assertThat(shards.shardIds()).containsExactlyInAnyOrder("s0", "s1");
    assertThat(context.getEnvironment().getProperty("spring.datasource.url")).isNull();
  }

  @Test
  void shardwiseMetersGoToTheApplicationsMeterRegistry() {
    io.micrometer.core.instrument.MeterRegistry meters = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
    double before = contextSessions(meters, "s1");
    java.util.Map<java.util.List<String>, Long> transactionsBefore = transactions(meters);
    shop.place(MERCHANT_ON_S1, 3, 900);
    assertEquals(1, contextSessions(meters, "s1") - before, "one EntityManager, opened in the shard context of s1");
    assertEquals(java.util.Map.of(java.util.List.of("s1", "read-write", "committed"), 1L),
        moved(transactionsBefore, transactions(meters)),
        "the @Transactional call is timed once, as a committed transaction on s1");
    java.util.Map<java.util.List<String>, Long> beforeRead = transactions(meters);
    shop.serverOfReads(MERCHANT_ON_S1);
    assertEquals(java.util.Map.of(java.util.List.of("s1", "read-only", "committed"), 1L),
        moved(beforeRead, transactions(meters)),
        "a @Transactional(readOnly = true) call is timed once, as read-only on s1");
    assertThat(meters.find("hikaricp.connections").tags("shard", "s1", "role", "primary").gauge()).isNotNull();
  }

  @Test
  void shardwiseObservationsGoToTheApplicationsObservationRegistry() {
    io.micrometer.observation.tck.TestObservationRegistry observations =
        context.getBean(io.micrometer.observation.tck.TestObservationRegistry.class);
    observations.clear();
    int port = context.getBean(io.shardwise.hibernate.ShardedSessions.class).forKey(MERCHANT_ON_S1).fromSession(
        s -> s.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult());
    assertEquals(pg.shard(1).primary().port(), port);
    io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat(observations)
        .hasObservationWithNameEqualTo("shardwise.session").that().hasBeenStopped()
        .hasLowCardinalityKeyValue("shardwise.shard", "s1")
        .hasLowCardinalityKeyValue("shardwise.role", "primary")
        .hasHighCardinalityKeyValue("server.port", Integer.toString(port));
  }

  /** The counts that changed from {@code before} to {@code after}, and by how much. */
  private static java.util.Map<java.util.List<String>, Long> moved(java.util.Map<java.util.List<String>, Long> before,
      java.util.Map<java.util.List<String>, Long> after) {
    java.util.Map<java.util.List<String>, Long> moved = new java.util.HashMap<>();
    after.forEach((id, count) -> {
      if (count - before.getOrDefault(id, 0L) != 0) {
        moved.put(id, count - before.getOrDefault(id, 0L));
      }
    });
    return moved;
  }

  /** Every shardwise.transaction timer's count, by its shard, access and outcome tags. */
  private static java.util.Map<java.util.List<String>, Long> transactions(
      io.micrometer.core.instrument.MeterRegistry meters) {
    java.util.Map<java.util.List<String>, Long> counts = new java.util.HashMap<>();
    for (io.micrometer.core.instrument.Timer t : meters.find("shardwise.transaction").timers()) {
      io.micrometer.core.instrument.Meter.Id id = t.getId();
      counts.put(List.of(id.getTag("shard"), id.getTag("access"), id.getTag("outcome")), t.count());
    }
    return counts;
  }

  private static double contextSessions(io.micrometer.core.instrument.MeterRegistry meters, String shard) {
    io.micrometer.core.instrument.Counter c = meters.find("shardwise.sessions").tags("shard", shard, "kind", "context")
        .counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void writesLandOnTheShardOfTheirKeyOnly() throws SQLException {
    shop.place(MERCHANT_ON_S0, 1, 500);
    shop.place(MERCHANT_ON_S1, 2, 700);
    assertEquals(List.of(1L), orderIdsOn(pg.shard(0)));
    assertEquals(List.of(2L), orderIdsOn(pg.shard(1)));
  }

  @Test
  void readOnlyTransactionsRunOnAReplicaOfTheShardAndReadWriteOnesOnItsPrimary() {
    for (int i = 0; i < 2; i++) {
      long merchant = i == 0 ? MERCHANT_ON_S0 : MERCHANT_ON_S1;
      PostgresShard shard = pg.shard(i);
      ShopService.Server reads = shop.serverOfReads(merchant);
      assertEquals(new ShopService.Server(shard.replica(0).port(), true), reads, "read-only on shard " + i);
      ShopService.Server writes = shop.serverOfWrites(merchant);
      assertEquals(new ShopService.Server(shard.primary().port(), false), writes, "read-write on shard " + i);
    }
  }

  @Test
  void aReadOnlyTransactionReadsWhatReplicationBrought() {
    shop.place(MERCHANT_ON_S1, 3, 900);
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    assertEquals(900, shop.read(MERCHANT_ON_S1, 3).getTotalCents());
  }

  @Test
  void aRowLockInAReadOnlyTransactionIsRefused() {
    PurchaseOrder order = shop.place(MERCHANT_ON_S0, 4, 100);
    RowLockInReadOnlySessionException e = assertThrows(RowLockInReadOnlySessionException.class,
        () -> shop.lockInReadOnly(order));
    assertThat(e.getMessage()).contains("PurchaseOrder").contains("read-only session on shard 's0'");
  }

  @Test
  void springDataSaveOfADetachedRootMergesItsListedChildrenOntoItsShard() throws SQLException {
    try (ShardContext.Scope scope = shards.contextForKey(MERCHANT_ON_S1)) {
      // an assigned id: save merges, also the first time
      Catalog detached = catalogs.save(new Catalog(MERCHANT_ON_S1).add(new CatalogItem("lamp"))
          .add(new CatalogItem("desk")));
      detached.items().get(0).rename("blue lamp");
      detached.items().remove(1);
      detached.add(new CatalogItem("chair"));
      catalogs.save(detached); // what a web form does with the root it edited
    }
    assertEquals(List.of("blue lamp " + MERCHANT_ON_S1, "chair " + MERCHANT_ON_S1), catalogItemsOn(pg.shard(1)));
    assertEquals(List.of(), catalogItemsOn(pg.shard(0)));
  }

  @Test
  void repositoriesWorkUnchangedInsideAShardContext() {
    for (long id = 10; id < 16; id++) {
      shop.place(MERCHANT_ON_S1, id, id * 100);
    }
    TransactionTemplate tx = new TransactionTemplate(transactionManager);
    try (ShardContext.Scope scope = shards.contextForKey(MERCHANT_ON_S1)) {
      tx.executeWithoutResult(status -> {
        PurchaseOrder eleven = orders.findById(11L).orElseThrow();
        eleven.setStatus("PAID");
        orders.save(eleven);
      });
      assertThat(orders.findByMerchantIdAndStatusOrderById(MERCHANT_ON_S1, "PAID")).extracting(PurchaseOrder::getId)
          .containsExactly(11L);
      assertThat(orders.atLeast(MERCHANT_ON_S1, 1300)).extracting(PurchaseOrder::getId).containsExactly(13L, 14L, 15L);
      Page<PurchaseOrder> page = orders.findByMerchantId(MERCHANT_ON_S1, PageRequest.of(1, 4, Sort.by("id")));
      assertThat(page.getTotalElements()).isEqualTo(6);
      assertThat(page.getContent()).extracting(PurchaseOrder::getId).containsExactly(14L, 15L);
    }
  }

  @Test
  void aScatterQueryInsideATransactionalCallSeesThatTransactionsOwnWrites() {
    shop.place(MERCHANT_ON_S0, 30, 100);
    String count = "select count(o) from PurchaseOrder o";
    TransactionTemplate tx = new TransactionTemplate(transactionManager);
    try (ShardContext.Scope scope = shards.contextForKey(MERCHANT_ON_S1)) {
      tx.executeWithoutResult(status -> {
        orders.save(new PurchaseOrder(31, MERCHANT_ON_S1, "NEW", 200));
        // s1's part runs on the transaction's own session (flushed first), s0's on its own connection
        assertEquals(2L, shards.scatter().createQuery(count, Long.class).getSingleResult());
        status.setRollbackOnly();
      });
    }
    assertEquals(1L, shards.scatter().createQuery(count, Long.class).getSingleResult(), "the write was rolled back");
  }

  @Test
  void aDerivedQueryWithoutTheShardKeyIsReportedAsShardwiseNotAsAGrammarError() {
    InvalidDataAccessApiUsageException e;
    try (ShardContext.Scope scope = shards.contextForKey(MERCHANT_ON_S0)) {
      e = assertThrows(InvalidDataAccessApiUsageException.class, () -> orders.findByStatus("NEW"));
    }
    assertThat(e.getCause()).isInstanceOf(ShardKeyMissingException.class);
    assertEquals(e.getCause().getMessage(), e.getMessage());
    assertThat(e.getMessage()).contains("without pinning its shard key");
  }

  @Test
  void withoutAShardReferenceDataIsReadableAndAKeyChoosesTheShardOfARepositoryCall() throws SQLException {
    assertThat(countries.findAll()).extracting(c -> c.getName()).containsExactly("France");
    orders.save(new PurchaseOrder(8801, MERCHANT_ON_S1, "NEW", 1));
    assertThat(orders.findByMerchantIdAndStatusOrderById(MERCHANT_ON_S1, "NEW")).extracting(PurchaseOrder::getId)
        .contains(8801L);
    assertThat(orderIdsOn(pg.shard(1))).contains(8801L);
    NoShardSelectedException e = assertThrows(NoShardSelectedException.class,
        () -> em.find(PurchaseOrder.class, 1L)); // an order's id is not its key: nothing binds
    assertThat(e.getMessage()).startsWith("[NoShardSelected] PurchaseOrder (table purchase_order)");
  }

  @Test
  void aWithShardNewRootMethodCreatesRootsOnTheShardTheirIdRoutesToInTurn() throws SQLException {
    java.util.Map<String, List<Long>> byShard = new java.util.TreeMap<>();
    for (int i = 0; i < 4; i++) {
      long id = shop.createBrand("brand " + i).getId();
      byShard.computeIfAbsent(shards.shardFor(id), k -> new java.util.ArrayList<>()).add(id);
    }
    for (PostgresShard shard : pg.shards()) {
      List<Long> stored = new java.util.ArrayList<>();
      try (Connection c = shard.primary().dataSource().getConnection();
          PreparedStatement ps = c.prepareStatement("DELETE FROM brand RETURNING id");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          stored.add(rs.getLong(1));
        }
      }
      List<Long> expected = byShard.get("s" + shard.index());
      assertThat(stored).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(stored).hasSize(2);
    }
  }

  @Test
  void aWithShardMethodCalledInAnotherShardsTransactionIsRefused() throws SQLException {
    TransactionTemplate tx = new TransactionTemplate(transactionManager);
    ShardKeyException e;
    try (ShardContext.Scope scope = shards.contextForKey(MERCHANT_ON_S0)) {
      e = assertThrows(ShardKeyException.class,
          () -> tx.executeWithoutResult(status -> shop.place(MERCHANT_ON_S1, 20, 1)));
    }
    assertThat(e.getMessage()).contains("already bound to shard 's0'");
    assertThat(orderIdsOn(pg.shard(0))).isEmpty();
    assertThat(orderIdsOn(pg.shard(1))).isEmpty();
  }

  @Test
  void jdbcTemplateUsesTheShardInContextAndRefusesWithoutOne() {
    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    try (ShardContext.Scope scope = ShardContext.use("s1")) {
      assertEquals(pg.shard(1).primary().port(), jdbc.queryForObject("select inet_server_port()", Integer.class));
    }
    org.springframework.jdbc.CannotGetJdbcConnectionException e = assertThrows(
        org.springframework.jdbc.CannotGetJdbcConnectionException.class,
        () -> jdbc.queryForObject("select 1", Integer.class));
    assertThat(e.getCause().getCause()).isInstanceOf(NoShardSelectedException.class);
  }

  @Test
  void aRepositoryFragmentPagesAQueryAcrossEveryShard() {
    List<PurchaseOrder> all = new java.util.ArrayList<>();
    for (long id = 30; id < 40; id++) {
      long merchant = id % 2 == 0 ? MERCHANT_ON_S0 : MERCHANT_ON_S1;
      all.add(shop.place(merchant, id, (id * 37) % 11 * 100));
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    java.util.Comparator<PurchaseOrder> order = java.util.Comparator.comparingLong(PurchaseOrder::getTotalCents)
        .reversed().thenComparing(PurchaseOrder::getId);
    List<Long> expected = all.stream().sorted(order).skip(3).limit(3).map(PurchaseOrder::getId).toList();

    Page<PurchaseOrder> page = orders.everywhereByStatus("NEW",
        PageRequest.of(1, 3, Sort.by(Sort.Direction.DESC, "totalCents").and(Sort.by("id"))));
    assertThat(page.getContent()).extracting(PurchaseOrder::getId).containsExactlyElementsOf(expected);
    assertEquals(10, page.getTotalElements());
    assertEquals(4, page.getTotalPages());

    org.springframework.data.domain.Slice<PurchaseOrder> last = orders.sliceEverywhereByStatus("NEW",
        PageRequest.of(2, 4, Sort.by("id")));
    assertThat(last.getContent()).extracting(PurchaseOrder::getId).containsExactly(38L, 39L);
    assertThat(last.hasNext()).isFalse();
    assertThat(orders.sliceEverywhereByStatus("NEW", PageRequest.of(0, 4, Sort.by("id"))).hasNext()).isTrue();
  }

  @Test
  void actuatorHealthHasAnEntryPerShardFromItsOwnServers() {
    shards.checkReplicasNow();
    CompositeHealthContributor db = context.getBean("dbHealthContributor", CompositeHealthContributor.class);
    for (PostgresShard shard : pg.shards()) {
      Health health = ((HealthIndicator) db.getContributor("s" + shard.index())).health();
      assertEquals(Status.UP, health.getStatus(), health.toString());
      assertEquals(shard.primary().port(), health.getDetails().get("primaryPort"));
      assertThat((List<?>) health.getDetails().get("replicas")).hasSize(1)
          .allSatisfy(r -> assertThat(((java.util.Map<?, ?>) r).get("healthy")).isEqualTo(true));
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void actuatorInfoSummarisesTheShardMap() {
    org.springframework.boot.actuate.info.Info.Builder builder = new org.springframework.boot.actuate.info.Info.Builder();
    context.getBean("shardwiseInfoContributor", org.springframework.boot.actuate.info.InfoContributor.class)
        .contribute(builder);
    java.util.Map<String, Object> summary = (java.util.Map<String, Object>) builder.build().get("shardwise");
    assertEquals(1024, summary.get("buckets"));
    assertEquals("bucket", summary.get("strategy"));
    java.util.Map<String, java.util.Map<String, Object>> perShard =
        (java.util.Map<String, java.util.Map<String, Object>>) summary.get("shards");
    assertThat(perShard).containsOnlyKeys("s0", "s1");
    assertEquals(1024, (Integer) perShard.get("s0").get("buckets") + (Integer) perShard.get("s1").get("buckets"));
    assertEquals(pg.shard(1).primary().jdbcUrl(), perShard.get("s1").get("primary"));
    assertEquals(1, perShard.get("s1").get("replicas"));
    assertEquals("jdbc:postgresql://db1:5432/shop",
        ShardMapInfoContributor.withoutSecrets("jdbc:postgresql://shop:secret@db1:5432/shop?password=secret"));
  }

  private static long keyOn(String shardId) {
    // the default bucket strategy with 1024 buckets over s0,s1: find a key of each shard by asking the runtime
    return KeysByShard.first(shardId);
  }

  private static List<Long> orderIdsOn(PostgresShard shard) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT id FROM purchase_order ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      List<Long> ids = new java.util.ArrayList<>();
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
      return ids;
    }
  }

  /** "name merchant_id" of every catalog item on the shard's primary, each row checked to come from it. */
  private static List<String> catalogItemsOn(PostgresShard shard) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT inet_server_port(), pg_is_in_recovery(), name, merchant_id"
            + " FROM catalog_item ORDER BY name");
        ResultSet rs = ps.executeQuery()) {
      List<String> items = new java.util.ArrayList<>();
      while (rs.next()) {
        assertEquals(shard.primary().port(), rs.getInt(1));
        assertEquals(false, rs.getBoolean(2));
        items.add(rs.getString(3) + " " + rs.getLong(4));
      }
      return items;
    }
  }

  private static void execute(PostgresNode node, String sql) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
