package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.query.SelectionQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scatter-gather over three shards against the same rows in one unsharded database: random queries
 * drawn from every supported shape must give identical results (in order where the ORDER BY fixes
 * it); unsupported shapes must be refused, never answered. Shards are read 10 rows a fetch, so that
 * parts of one fetch, parts of one fetch and a row, and cursors of several fetches all occur.
 */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class ScatterGatherPropertyTest {
  private static final String[] REGIONS = {"north", "south", "east", "west", "central"};
  private static final String[] STATUSES = {"new", "paid", "shipped"};
  private static final long SEED = Long.getLong("scatter.seed", 20261129L);

  private static SessionFactory sharded;
  private static SessionFactory unsharded;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws SQLException {
    // a fetch of 10 rows: with about 80 sales a shard, the parts of a query read every way there is (one
    // statement for a small limit or an aggregate; a first fetch that is the whole part, e.g. a group by;
    // a first fetch that overflows into a cursor of several round trips)
    sharded = ScatterFixture.sharded(pg, Map.of(io.shardwise.hibernate.ShardwiseSettings.SCATTER_FETCH_SIZE, "10"));
    unsharded = ScatterFixture.unsharded(pg);
    shards = ShardedSessions.of(sharded);
    Random random = new Random(SEED);
    Map<Long, List<Sale>> byMerchant = new HashMap<>();
    for (long id = 1; id <= 240; id++) {
      long merchant = 1 + random.nextInt(40);
      Integer amount = random.nextInt(10) == 0 ? null : random.nextInt(500);
      BigDecimal price = random.nextInt(20) == 0 ? null : BigDecimal.valueOf(random.nextInt(10_000), 2);
      byMerchant.computeIfAbsent(merchant, m -> new ArrayList<>()).add(new Sale(id, merchant,
          REGIONS[random.nextInt(REGIONS.length)], STATUSES[random.nextInt(STATUSES.length)], amount, price));
    }
    byMerchant.forEach((merchant, sales) -> shards.forKey(merchant).inTransaction(s -> sales.forEach(s::persist)));
    unsharded.inTransaction(s -> byMerchant.values().forEach(sales -> sales.forEach(s::persist)));
    for (int i = 0; i < 3; i++) {
      assertTrue(ScatterFixture.count(pg.shard(i), "SELECT count(*) FROM sale") > 0, "shard " + i + " holds sales");
    }
  }

  @AfterAll
  static void stop() {
    if (sharded != null) {
      sharded.close();
    }
    if (unsharded != null) {
      unsharded.close();
    }
  }

  /** A generated query: its HQL, parameters, paging, and whether its ORDER BY fixes the row order. */
  private record Case(String hql, Map<String, Object> parameters, int first, int max, boolean ordered) {}

  @Test
  void randomQueriesOfEverySupportedShapeMatchOneUnshardedDatabase() {
    Random random = new Random(SEED + 1);
    int withRows = 0;
    for (int i = 0; i < 120; i++) {
      Case c = generate(random);
      List<List<Object>> expected = canonical(unshardedRows(c), c.ordered());
      List<List<Object>> actual = canonical(scatterRows(c), c.ordered());
      assertEquals(expected, actual, "seed " + SEED + ", query " + i + ": " + c);
      withRows += expected.isEmpty() ? 0 : 1;
    }
    assertTrue(withRows >= 90, "most generated queries return rows, so the comparison means something: " + withRows);
  }

  /**
   * The same queries inside a unit of work that has inserted and removed sales of one merchant, not
   * yet flushed: scatter-gather must answer as the one database answers inside its own transaction
   * with the same changes; both transactions roll back, and nothing of them is left.
   */
  @Test
  void randomQueriesInsideATransactionSeeItsPendingWritesAndARollbackLeavesNothing() {
    Random random = new Random(SEED + 2);
    String everything = "select count(s), sum(s.amount) from Sale s";
    List<List<Object>> before = canonical(scatterRows(new Case(everything, Map.of(), -1, -1, true)), true);
    int changedAnswers = 0;
    for (int i = 0; i < 40; i++) {
      Case c = generate(random);
      long merchant = 1 + random.nextInt(40);
      List<Sale> added = new ArrayList<>();
      for (int n = 0; n <= random.nextInt(3); n++) {
        added.add(new Sale(10_000 + 10L * i + n, merchant, REGIONS[random.nextInt(REGIONS.length)],
            STATUSES[random.nextInt(STATUSES.length)], random.nextInt(500), BigDecimal.valueOf(random.nextInt(10_000), 2)));
      }
      boolean removeOne = random.nextBoolean();
      List<List<Object>> expected;
      List<List<Object>> outside = canonical(scatterRows(c), c.ordered());
      try (Session one = unsharded.openSession()) {
        one.beginTransaction();
        writeSales(one, merchant, copies(added), removeOne);
        expected = canonical(rows(one, c), c.ordered());
        one.getTransaction().rollback();
      }
      List<List<List<Object>>> inside = new ArrayList<>();
      IllegalStateException rollback = new IllegalStateException("roll back");
      assertThrows(IllegalStateException.class, () -> shards.forKey(merchant).inTransaction(session -> {
        writeSales(session, merchant, copies(added), removeOne);
        inside.add(canonical(scatterRows(c), c.ordered()));
        throw rollback;
      }));
      assertEquals(expected, inside.get(0), "seed " + SEED + ", query " + i + " in a transaction on merchant "
          + merchant + " (" + added.size() + " added, removed one: " + removeOne + "): " + c);
      changedAnswers += expected.equals(outside) ? 0 : 1;
    }
    assertTrue(changedAnswers >= 10, "the transaction's writes change many answers, so the comparison means"
        + " something: " + changedAnswers);
    assertEquals(before, canonical(scatterRows(new Case(everything, Map.of(), -1, -1, true)), true),
        "the rolled back transactions left nothing on any shard");
  }

  @Test
  void aRowInsertedInTheTransactionIsFoundOnItsShardAndGoneAfterRollback(PostgresTopology pg) throws SQLException {
    String hql = "from Sale s where s.region = 'just-inserted'";
    long merchant = 17;
    List<ScatterResult<Sale>> found = new ArrayList<>();
    IllegalStateException rollback = new IllegalStateException("roll back");
    assertThrows(IllegalStateException.class, () -> shards.forKey(merchant).inTransaction(session -> {
      session.persist(new Sale(20_001, merchant, "just-inserted", "new", 5, null));
      found.add(shards.scatter().createQuery(hql, Sale.class).getResult());
      throw rollback;
    }));
    assertEquals(List.of(20_001L), found.get(0).rows().stream().map(Sale::getId).toList(),
        "the scatter inside the transaction sees its insert");
    assertEquals(1, found.get(0).shardRows().get(shards.shardFor(merchant)), "found on the merchant's shard");
    assertEquals(List.of(), shards.scatter().createQuery(hql, Sale.class).getResultList(), "rolled back");
    for (int i = 0; i < 3; i++) {
      assertEquals(0, ScatterFixture.count(pg.shard(i), "SELECT count(*) FROM sale WHERE region = 'just-inserted'"));
    }

    // a session the application opened itself joins explicitly; a committed row then stays
    try (ShardContext.Scope scope = shards.contextForKey(merchant); Session session = sharded.openSession()) {
      session.beginTransaction();
      session.persist(new Sale(20_002, merchant, "just-inserted", "new", 6, null));
      assertEquals(List.of(), shards.scatter().createQuery(hql, Sale.class).getResultList(),
          "outside Shardwise's unit of work and not joined: the pending insert is not seen");
      assertEquals(List.of(20_002L), shards.scatter(session).createQuery(hql, Sale.class).getResultList().stream()
          .map(Sale::getId).toList());
      session.getTransaction().commit();
    }
    assertEquals(1, ScatterFixture.count(pg.shard(shardIndex(shards.shardFor(merchant))),
        "SELECT count(*) FROM sale WHERE region = 'just-inserted'"));
    shards.forKey(merchant).inTransaction(session -> session.remove(session.find(Sale.class, 20_002L)));
  }

  private static int shardIndex(String shardId) {
    return Integer.parseInt(shardId.substring("shard".length()));
  }

  private static List<Sale> copies(List<Sale> sales) {
    return sales.stream().map(s -> new Sale(s.getId(), s.getMerchantId(), s.getRegion(), s.getStatus(), s.getAmount(),
        s.getPrice())).toList();
  }

  /** Inserts {@code added} and, when asked, removes the merchant's sale of lowest id: left pending, not flushed. */
  private static void writeSales(Session session, long merchant, List<Sale> added, boolean removeOne) {
    if (removeOne) {
      Long lowest = session.createSelectionQuery("select min(s.id) from Sale s where s.merchantId = :m", Long.class)
          .setParameter("m", merchant).getSingleResult();
      if (lowest != null) {
        session.remove(session.find(Sale.class, lowest));
      }
    }
    added.forEach(session::persist);
  }

  @Test
  void aQueryOverReferenceTablesOnlyIsAnsweredByOneShardNotMultipliedByAll(PostgresTopology pg) throws SQLException {
    for (int i = 0; i < 3; i++) {
      ScatterFixture.execute(pg.shard(i), "TRUNCATE region_name");
      ScatterFixture.execute(pg.shard(i), "INSERT INTO region_name (code, label) VALUES ('north', 'North'),"
          + " ('south', 'South'), ('east', 'East')");
    }
    ScatterResult<Long> count = shards.scatter().createQuery("select count(r) from RegionName r", Long.class).getResult();
    assertEquals(List.of(3L), count.rows());
    assertEquals(1, count.shardRows().size());
    assertEquals(List.of("east", "north", "south"), shards.scatter()
        .createQuery("select r.code from RegionName r order by r.code", String.class).getResultList());
    // a sharded entity in the FROM clause makes it a real scatter again
    ScatterResult<Long> joined = shards.scatter().createQuery("select count(s) from Sale s, RegionName r"
        + " where r.code = s.region", Long.class).getResult();
    assertEquals(3, joined.shardRows().size());
    assertEquals(unsharded.fromSession(s -> s.createSelectionQuery("select count(s) from Sale s where s.region in"
        + " ('north', 'south', 'east')", Long.class).getSingleResult()), joined.rows().get(0));
  }

  @Test
  void limitAndOffsetWrittenInTheHqlAreMergedLikeSetMaxResults() {
    Case c = new Case("select s.id, s.amount from Sale s order by s.amount desc nulls last, s.id limit 7 offset 5",
        Map.of(), -1, -1, true);
    List<Object[]> rows = scatterRows(c);
    assertEquals(7, rows.size());
    assertEquals(canonical(unshardedRows(c), true), canonical(rows, true));
  }

  @Test
  void keysetPagesAcrossShardsConcatenateToTheWholeOrderAndHoldAtMostAPagePerShard() {
    String hql = "from Sale s where s.amount is not null order by s.amount desc, s.id";
    List<Long> expected = unsharded.fromSession(s -> s.createSelectionQuery(hql, Sale.class).getResultList())
        .stream().map(Sale::getId).toList();
    List<Long> paged = new ArrayList<>();
    Object[] last = null;
    int pages = 0;
    while (true) {
      ScatterQuery<Sale> q = shards.scatter().createQuery(hql, Sale.class).setMaxResults(9);
      if (last != null) {
        q.after(last);
      }
      ScatterResult<Sale> page = q.getResult();
      page.shardRows().forEach((shard, n) -> assertTrue(n <= 9, shard + " sent " + n + " rows for a page of 9"));
      if (page.rows().isEmpty()) {
        break;
      }
      page.rows().forEach(sale -> paged.add(sale.getId()));
      last = page.lastSortKey();
      pages++;
    }
    assertEquals(expected, paged);
    assertTrue(pages > 10, "several pages: " + pages);
  }

  @Test
  void namedQueriesScatterOnlyWhenTheirEntityAllowsIt() {
    List<Object[]> byRegion = shards.scatter().createNamedQuery("Sale.byRegion", Object[].class).getResultList();
    List<Object[]> expected = unsharded.fromSession(
        s -> s.createNamedSelectionQuery("Sale.byRegion", Object[].class).getResultList());
    assertEquals(canonical(expected, true), canonical(byRegion, true));
    UnsupportedScatterQueryException e = assertThrows(UnsupportedScatterQueryException.class,
        () -> shards.scatter().createNamedQuery("Sale.ofMerchant", Sale.class));
    assertTrue(e.getMessage().contains("@ScatterGather(queries = \"Sale.ofMerchant\")"), e.getMessage());
  }

  @Test
  void aHibernateNamedQueryMarkedForScatterRunsOnEveryShard(PostgresTopology pg) throws SQLException {
    List<Long> counted = shards.scatter().createNamedQuery("Sale.pricedCount", Long.class).getResultList();
    long onShards = 0;
    for (int i = 0; i < 3; i++) {
      onShards += ScatterFixture.count(pg.shard(i), "SELECT count(*) FROM sale WHERE price IS NOT NULL");
    }
    Long unshardedCount = unsharded.fromSession(
        s -> s.createNamedSelectionQuery("Sale.pricedCount", Long.class).getSingleResult());
    assertEquals(List.of(onShards), counted, "the sum of every shard's own count");
    assertEquals(unshardedCount, counted.get(0));
  }

  @Test
  void shapesThatMergingCannotAnswerAreRefusedWithWhatToDo() {
    Map<String, String> refusals = new java.util.LinkedHashMap<>();
    refusals.put("select s.id from Sale s where s.amount > (select avg(x.amount) from Sale x)", "subquery");
    refusals.put("select s.region, count(s) from Sale s group by s.region having s.amount > 3",
        "neither an aggregate nor a grouping key");
    refusals.put("select s.region from Sale s group by s.region having count(s) > all (select 1 from Sale x)",
        "subquery");
    refusals.put("select s.id, row_number() over (order by s.id) from Sale s", "window function");
    refusals.put("select count(distinct s) from Sale s", "over an entity");
    refusals.put("select s.id from Sale s union select s.id from Sale s", "set operation");
    refusals.put("select sum(s.amount) * 2 from Sale s", "inside an expression");
    refusals.put("select distinct s.region from Sale s order by s.status", "does not select");
    refusals.put("select s.region, count(s) from Sale s group by s.region order by s.status", "does not select");
    refusals.put("select listagg(s.region, ',') within group (order by s.region) from Sale s", "ordered-set");
    refusals.put("select every(s.amount > 0) from Sale s", "cannot be merged from per-shard results");
    refusals.put("select count(s) from Sale s, Customer c where c.id = s.merchantId", "different co-location groups");
    refusals.put("update Sale s set s.amount = 1", "not a select");
    refusals.forEach((hql, construct) -> {
      UnsupportedScatterQueryException e = assertThrows(UnsupportedScatterQueryException.class,
          () -> shards.scatter().createQuery(hql, Object[].class).getResultList(), hql);
      assertTrue(e.getMessage().contains(construct) && e.getMessage().contains("Instead:"),
          "message for [" + hql + "] names '" + construct + "' and a way out: " + e.getMessage());
    });
  }

  @Test
  void havingAndDistinctAggregatesMatchOneDatabaseAndASingleResultReadsACount() {
    Case counts = new Case("select s.region, count(distinct s.merchantId), avg(distinct s.amount) from Sale s"
        + " group by s.region having count(distinct s.status) = 3 and sum(s.amount) > :floor order by s.region",
        Map.of("floor", 500), -1, -1, true);
    List<List<Object>> expected = canonical(unshardedRows(counts), true);
    assertTrue(!expected.isEmpty(), "some regions pass the HAVING");
    assertEquals(expected, canonical(scatterRows(counts), true));

    long total = unsharded.fromSession(s -> s.createSelectionQuery("select count(s) from Sale s", Long.class)
        .getSingleResult());
    assertEquals(total, shards.scatter().createQuery("select count(s) from Sale s", Long.class).getSingleResult());
    long merchants = unsharded.fromSession(s -> s.createSelectionQuery(
        "select count(distinct s.merchantId) from Sale s", Long.class).getSingleResult());
    assertEquals(merchants, shards.scatter().createQuery("select count(distinct s.merchantId) from Sale s",
        Long.class).getSingleResult(), "each merchant on one shard, counted once");
    long regions = shards.scatter().createQuery("select count(distinct s.region) from Sale s", Long.class)
        .getSingleResult();
    assertEquals(REGIONS.length, regions, "each region on every shard, still counted once");

    String noGroup = "select count(s) from Sale s where s.region = 'north' group by s.region having count(s) > 1000000";
    assertEquals(null, shards.scatter().createQuery(noGroup, Long.class).getSingleResultOrNull());
    assertThrows(jakarta.persistence.NoResultException.class,
        () -> shards.scatter().createQuery(noGroup, Long.class).getSingleResult());
    assertThrows(jakarta.persistence.NonUniqueResultException.class, () -> shards.scatter().createQuery(
        "select s.region from Sale s group by s.region", String.class).getSingleResultOrNull());
  }

  // ---- generation ----------------------------------------------------------------------------

  private static Case generate(Random r) {
    Map<String, Object> params = new HashMap<>();
    String where = switch (r.nextInt(4)) {
      case 0 -> "";
      case 1 -> {
        params.put("min", r.nextInt(500));
        yield " where s.amount > :min";
      }
      case 2 -> " where s.region in ('north', 'east', 'central')";
      default -> {
        params.put("st", STATUSES[r.nextInt(STATUSES.length)]);
        yield " where s.status = :st";
      }
    };
    int first = r.nextInt(3) == 0 ? r.nextInt(30) : -1;
    int max = r.nextInt(2) == 0 ? 1 + r.nextInt(25) : -1;
    String[] attributes = {"s.region", "s.status", "s.amount", "s.price"};
    String[] aggregates = {"count(s)", "count(s.amount)", "sum(s.amount)", "sum(s.price)", "min(s.amount)",
        "max(s.price)", "avg(s.amount)", "avg(s.price)", "min(s.region)", "max(s.status)",
        "count(distinct s.region)", "count(distinct s.amount)", "avg(distinct s.amount)", "avg(distinct s.price)",
        "sum(distinct s.amount)"};
    switch (r.nextInt(6)) {
      case 0, 1 -> { // plain rows, ORDER BY keys selected or not, ending with the id
        List<String> selected = new ArrayList<>(List.of("s.id"));
        for (String a : attributes) {
          if (r.nextBoolean()) {
            selected.add(a);
          }
        }
        String order = orderBy(r, attributes) + ", s.id" + (r.nextBoolean() ? " desc" : "");
        return new Case("select " + String.join(", ", selected) + " from Sale s" + where + " order by " + order,
            params, first, max, true);
      }
      case 2 -> { // entities
        return new Case("select s from Sale s" + where + " order by " + orderBy(r, attributes) + ", s.id", params,
            first, max, true);
      }
      case 3 -> { // distinct, ordered by every selected column
        boolean desc = r.nextBoolean();
        return new Case("select distinct s.region, s.status from Sale s" + where + " order by s.region"
            + (desc ? " desc" : "") + ", s.status", params, first, max, true);
      }
      case 4 -> { // aggregates without GROUP BY
        return new Case("select " + String.join(", ", pick(r, aggregates)) + " from Sale s" + where, params, -1, -1,
            true);
      }
      default -> { // GROUP BY, ordered by every key (possibly after an aggregate), or unordered
        List<String> keys = switch (r.nextInt(3)) {
          case 0 -> List.of("s.region");
          case 1 -> List.of("s.status");
          default -> List.of("s.region", "s.status");
        };
        List<String> aggs = pick(r, aggregates);
        boolean selectKeys = r.nextInt(4) != 0;
        String select = (selectKeys ? String.join(", ", keys) + ", " : "") + String.join(", ", aggs);
        String hql = "select " + select + " from Sale s" + where + " group by " + String.join(", ", keys)
            + (r.nextBoolean() ? " having " + having(r, params, keys) : "");
        if (!selectKeys) {
          return new Case(hql, params, -1, -1, false);
        }
        String order = keys.stream().map(k -> k + (r.nextBoolean() ? " desc" : "")).collect(Collectors.joining(", "));
        if (r.nextBoolean()) {
          order = aggs.get(0) + (r.nextBoolean() ? " desc" : "") + ", " + order;
        }
        return new Case(hql + " order by " + order, params, first, max, true);
      }
    }
  }

  /** A HAVING condition over aggregates (selected or not), grouping keys, literals and parameters. */
  private static String having(Random r, Map<String, Object> params, List<String> keys) {
    List<String> conditions = new ArrayList<>(List.of(
        "count(s) > :h",
        "sum(s.amount) >= 900",
        "count(distinct s.status) >= 3",
        "min(s.amount) < 40 or max(s.price) > 95",
        "not (avg(s.amount) between 200 and 300)",
        "max(s.price) is not null and count(s.amount) > 2",
        "avg(distinct s.amount) > :a"));
    if (keys.contains("s.region")) {
      conditions.add("s.region <> 'north' and count(s) >= 2");
    }
    String condition = conditions.get(r.nextInt(conditions.size()));
    if (condition.contains(":h")) {
      params.put("h", 1 + r.nextInt(12));
    }
    if (condition.contains(":a")) {
      params.put("a", 150 + r.nextInt(200));
    }
    return condition;
  }

  private static String orderBy(Random r, String[] attributes) {
    List<String> items = new ArrayList<>();
    for (String a : attributes) {
      if (r.nextInt(3) == 0) {
        String nulls = switch (r.nextInt(3)) {
          case 0 -> "";
          case 1 -> " nulls first";
          default -> " nulls last";
        };
        items.add(a + (r.nextBoolean() ? " desc" : "") + nulls);
      }
    }
    java.util.Collections.shuffle(items, r);
    return items.isEmpty() ? "s.merchantId" : String.join(", ", items);
  }

  private static List<String> pick(Random r, String[] from) {
    List<String> picked = new ArrayList<>();
    for (String s : from) {
      if (r.nextInt(3) == 0) {
        picked.add(s);
      }
    }
    if (picked.isEmpty()) {
      picked.add(from[r.nextInt(from.length)]);
    }
    return picked;
  }

  // ---- running and comparing -----------------------------------------------------------------

  private static List<Object[]> unshardedRows(Case c) {
    return unsharded.fromSession(s -> rows(s, c));
  }

  private static List<Object[]> rows(Session s, Case c) {
    SelectionQuery<Object[]> q = s.createSelectionQuery(c.hql(), Object[].class);
    apply(c, q::setParameter, q::setParameter, q::setFirstResult, q::setMaxResults);
    return q.getResultList();
  }

  private static List<Object[]> scatterRows(Case c) {
    ScatterQuery<Object[]> q = shards.scatter().createQuery(c.hql(), Object[].class);
    apply(c, q::setParameter, q::setParameter, q::setFirstResult, q::setMaxResults);
    return q.getResultList();
  }

  /** Sets a case's parameters and paging on a query, a Hibernate one or a scatter one alike. */
  private static void apply(Case c, BiConsumer<String, Object> named, BiConsumer<Integer, Object> positional,
      IntConsumer first, IntConsumer max) {
    c.parameters().forEach((name, value) -> {
      if (name.chars().allMatch(Character::isDigit)) {
        positional.accept(Integer.parseInt(name), value);
      } else {
        named.accept(name, value);
      }
    });
    if (c.first() >= 0) {
      first.accept(c.first());
    }
    if (c.max() >= 0) {
      max.accept(c.max());
    }
  }

  /** Rows as comparable values: entities by id, decimals by value, doubles to 10 significant digits. */
  private static List<List<Object>> canonical(List<Object[]> rows, boolean ordered) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : rows) {
      out.add(Arrays.stream(row).map(ScatterGatherPropertyTest::canonical).toList());
    }
    if (!ordered) {
      out.sort(Comparator.comparing(Object::toString));
    }
    return out;
  }

  private static Object canonical(Object value) {
    if (value instanceof Sale sale) {
      return "Sale#" + sale.getId();
    }
    if (value instanceof BigDecimal d) {
      return d.stripTrailingZeros().toPlainString();
    }
    if (value instanceof Double d) {
      return String.format(Locale.ROOT, "%.10g", d);
    }
    if (value instanceof Integer i) {
      return i.longValue();
    }
    return value == null ? "null" : value;
  }
}
