package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.marketplace.Buyer;
import io.shardwise.advisor.marketplace.Category;
import io.shardwise.advisor.marketplace.OrderLine;
import io.shardwise.advisor.marketplace.Payment;
import io.shardwise.advisor.marketplace.Product;
import io.shardwise.advisor.marketplace.PurchaseOrder;
import io.shardwise.advisor.marketplace.Review;
import io.shardwise.advisor.marketplace.Seller;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The marketplace on a real PostgreSQL database holding skewed data (seller 3 owns 30 % of the
 * products and orders), its queries weighed by a query log: the server's own log, written with
 * {@code log_min_duration_statement = 0} while the application ran its named queries through
 * plain Hibernate (the extended protocol: parse, bind and execute lines), read back with
 * {@code pg_read_file}. The advisor must keep the seller as the root, name seller 3 as the hot key,
 * weigh each query by its executions in the log, and write no row.
 */
@ShardedPostgres(shards = 1, settings = {"logging_collector = on", "log_min_duration_statement = 0",
    "log_line_prefix = '%m [%p] '"})
class MarketplaceDatabaseTest {
  private static final String SELLER = "CASE WHEN g % 10 < 3 THEN 3 ELSE 1 + g % 40 END";
  private static final String LAST_QUERY = "SELECT 'the application''s queries ran'";

  /** How often the application runs each named query, as the log will count it. */
  private static final Map<String, Integer> RUNS = Map.of("PurchaseOrder.toShip", 50, "Product.ofSeller", 30,
      "OrderLine.ofOrder", 40, "PurchaseOrder.ofBuyer", 20, "Buyer.byEmail", 10, "Review.ofProduct", 5);

  @TempDir
  Path work;

  @Test
  void keepsTheSellerNamesTheHotSellerAndWeighsTheQueriesByTheLog(@Node(shard = 0) String url) throws Exception {
    Sources.sql(url, "CREATE TABLE sellers (id bigint PRIMARY KEY, name text)",
        "CREATE TABLE buyers (id bigint PRIMARY KEY, email text UNIQUE)",
        "CREATE TABLE categories (id integer PRIMARY KEY, name text)",
        "CREATE TABLE products (id bigint PRIMARY KEY, title text, seller_id bigint NOT NULL REFERENCES sellers,"
            + " category_id integer REFERENCES categories)",
        "CREATE TABLE orders (id bigint PRIMARY KEY, shipped boolean NOT NULL, buyer_id bigint NOT NULL"
            + " REFERENCES buyers, seller_id bigint NOT NULL REFERENCES sellers)",
        "CREATE TABLE order_lines (id bigint PRIMARY KEY, quantity integer NOT NULL, order_id bigint NOT NULL"
            + " REFERENCES orders, product_id bigint REFERENCES products)",
        "CREATE TABLE payments (id bigint PRIMARY KEY, order_id bigint NOT NULL REFERENCES orders)",
        "CREATE TABLE reviews (id bigint PRIMARY KEY, stars integer NOT NULL, product_id bigint NOT NULL"
            + " REFERENCES products, buyer_id bigint NOT NULL REFERENCES buyers)",
        "INSERT INTO sellers SELECT g, 'seller ' || g FROM generate_series(1, 40) g",
        "INSERT INTO buyers SELECT g, 'b' || g || '@example.com' FROM generate_series(1, 2000) g",
        "INSERT INTO categories SELECT g, 'category ' || g FROM generate_series(1, 20) g",
        "INSERT INTO products SELECT g, 'product ' || g, " + SELLER + ", 1 + g % 20 FROM generate_series(1, 5000) g",
        "INSERT INTO orders SELECT g, g % 3 = 0, 1 + g % 2000, " + SELLER + " FROM generate_series(1, 10000) g",
        "INSERT INTO order_lines SELECT g, 1 + g % 5, 1 + g % 10000, 1 + g % 5000 FROM generate_series(1, 20000) g",
        "INSERT INTO payments SELECT g, g FROM generate_series(1, 10000) g",
        "INSERT INTO reviews SELECT g, 1 + g % 5, 1 + g % 5000, 1 + g % 2000 FROM generate_series(1, 8000) g",
        "ANALYZE");
    long logStart = logSize(url);
    runTheApplicationsQueries(url);
    Path log = work.resolve("postgresql.log");
    Files.writeString(log, logSince(url, logStart));
    long writesBefore = Sources.writes(url);

    Properties login = new Properties();
    login.setProperty("user", "postgres");
    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES),
        List.of("io.shardwise.advisor.marketplace"), url, login, log);
    String report = advice.text();
    System.out.println(report);
    assertEquals(writesBefore, Sources.writes(url), "the advisor wrote nothing");

    Proposal best = advice.best();
    assertEquals("Seller", best.root.name, report);
    assertTrue(report.contains("queries weighted by the query log postgresql.log (155 of "), report);

    Balance.HotKey hot = best.balance.hotKeys().get(0);
    assertEquals(1, best.balance.hotKeys().size(), report);
    assertEquals("3", hot.value());
    assertEquals(0.30 * 15_000 / 15_040, hot.share(), 0.01, "30 % of the rows of the tables that hold the seller");
    assertTrue(hot.advice().contains("shardwise.directory.3 = <shard>"), hot.advice());

    for (Map.Entry<String, Integer> run : RUNS.entrySet()) {
      assertEquals(run.getValue(), Sources.weight(best, run.getKey()), 1e-9, run.getKey() + "'s executions in the log");
    }
    assertEquals(0, Sources.weight(best, "Category.all"), "never ran");
    double total = RUNS.values().stream().mapToInt(Integer::intValue).sum();
    assertEquals((50 + 30 + 10) / total, best.singleShardShare, 1e-9,
        "toShip and ofSeller pin the seller; the buyers are a reference table: " + report);
    assertEquals((50 + 30 + 10 + 40 + 5) / total, best.singleShardOnceFixedShare(), 1e-9,
        "OrderLine.ofOrder and Review.ofProduct need one predicate");
  }

  /** What the application does before it is sharded: its named queries, through plain Hibernate. */
  private static void runTheApplicationsQueries(String url) throws SQLException {
    Configuration configuration = new Configuration();
    for (Class<?> entity : List.of(Seller.class, Buyer.class, Category.class, Product.class, PurchaseOrder.class,
        OrderLine.class, Payment.class, Review.class)) {
      configuration.addAnnotatedClass(entity);
    }
    configuration.setProperty("hibernate.connection.url", url);
    configuration.setProperty("hibernate.connection.username", "postgres");
    try (SessionFactory factory = configuration.buildSessionFactory()) {
      factory.inTransaction(session -> RUNS.forEach((name, times) -> {
        for (int i = 1; i <= times; i++) {
          jakarta.persistence.Query query = session.createNamedQuery(name);
          Object value = name.equals("Buyer.byEmail") ? "b" + i + "@example.com" : (long) i;
          query.setParameter(query.getParameters().iterator().next().getName(), value).getResultList();
        }
      }));
    }
    Sources.sql(url, LAST_QUERY);
  }

  private static long logSize(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT size FROM pg_stat_file(pg_current_logfile())")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The server log from {@code offset} on, once the collector wrote the application's last query. */
  private static String logSince(String url, long offset) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Connection c = DriverManager.getConnection(url, "postgres", null);
        PreparedStatement read = c.prepareStatement("SELECT pg_read_file(pg_current_logfile(), ?, 1000000000)")) {
      read.setLong(1, offset);
      while (true) {
        try (ResultSet rs = read.executeQuery()) {
          rs.next();
          String log = rs.getString(1);
          if (log.contains(LAST_QUERY) || System.nanoTime() > deadline) {
            return log;
          }
        }
        Thread.sleep(20);
      }
    }
  }
}
