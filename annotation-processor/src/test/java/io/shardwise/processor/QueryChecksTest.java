package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.Locale;
import javax.annotation.processing.Processor;
import org.hibernate.processor.HibernateProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QueryChecksTest {

  /** Queries that pin every sharded entity, or read reference tables only. */
  private static final List<String> PINNED = List.of(
      "select m from Merchant m where m.id = :id",
      "from PurchaseOrder o where o.merchantId = ?1",
      "from PurchaseOrder o where o.merchantId = 42 and o.status = 'NEW'",
      "from PurchaseOrder o where :merchant = o.merchantId",
      "from PurchaseOrder o where o.merchantId in :merchants",
      "from PurchaseOrder o where o.merchantId in (1, 2, :third)",
      "from PurchaseOrder o where (o.merchantId = :a or o.merchantId = :b) and o.status = 'X'",
      "from PurchaseOrder o where o.status = 'A' and o.merchantId = :m or o.merchantId = :n",
      "from PurchaseOrder where merchantId = :m",
      "SELECT O FROM PurchaseOrder AS O WHERE O.merchantId = :m",
      "select o, i from PurchaseOrder o join o.items i where o.merchantId = :m",
      "select i from OrderItem i join i.order o where i.merchantId = :m",
      "select o from PurchaseOrder o left join o.items i where o.merchantId = :m",
      "select o from PurchaseOrder o join OrderItem i on i.merchantId = o.merchantId"
          + " where i.merchantId = :m",
      "select o from PurchaseOrder o, OrderItem i where o.merchantId = :m"
          + " and i.merchantId = o.merchantId",
      "select o from PurchaseOrder o where o.merchantId = :m and exists"
          + " (select 1 from OrderItem i where i.merchantId = o.merchantId)",
      "select o from PurchaseOrder o where o.merchantId = :m and o.id in"
          + " (select i.order.id from OrderItem i where i.merchantId = :m)",
      "select o from PurchaseOrder o join o.country c where o.merchantId = :m",
      "from Country c where c.name like 'A%'",
      "update PurchaseOrder o set o.status = 'DONE' where o.merchantId = :m",
      "delete from OrderItem i where i.merchantId = :m and i.quantity = 0",
      "from Customer c where c.id = :id",
      "with recent as (select o.merchantId as m from PurchaseOrder o where o.merchantId = :m)"
          + " select r.m from recent r",
      "select i from PurchaseOrder join items i where i.merchantId = :m",
      "from app.PurchaseOrder o where o.merchantId = :m",
      "from PurchaseOrder o where o.merchantId in (select m.id from Merchant m where m.id = :m)",
      "from PurchaseOrder o where o.merchant = :merchant",
      "from PurchaseOrder o where o.merchant in :merchants and o.status = :s",
      "select i from OrderItem i where i.order.merchant.id = :m",
      "select i from OrderItem i join PurchaseOrder o on o.id = i.order.id where o.merchantId = :m",
      "delete from OrderItem i where i.order in (select o from PurchaseOrder o"
          + " where o.merchantId = :m)",
      "select o from PurchaseOrder o where exists (select 1 from o.items i where i.merchantId = :m)",
      "select o from PurchaseOrder o where o.merchantId = :m and exists (select it from o.items it"
          + " where it.quantity > 1)");

  /** Queries that leave one sharded entity unpinned (the alias each error names). */
  private static final List<String> UNPINNED = List.of(
      "select m from Merchant m",
      "from PurchaseOrder o where o.status = 'NEW'",
      "from PurchaseOrder o where o.merchantId = :m or o.status = 'NEW'",
      "from PurchaseOrder o where o.merchantId > :m",
      "from PurchaseOrder o where o.merchantId <> :m",
      "from PurchaseOrder o where not (o.merchantId = :m)",
      "from PurchaseOrder o where o.merchantId not in :merchants",
      "from PurchaseOrder o where o.merchantId in (select i.quantity from OrderItem i"
          + " where i.merchantId = :m)",
      "from OrderItem i where i.order = :order",
      "from PurchaseOrder o where o.country = :country",
      "delete from OrderItem i where i.order not in (select o from PurchaseOrder o"
          + " where o.merchantId = :m)",
      "from PurchaseOrder o where o.merchantId = o.id",
      "from PurchaseOrder o where o.merchantId is null",
      "select i from OrderItem i join Customer c on c.email = :e where i.merchantId = :m",
      "select o from PurchaseOrder o where o.merchantId = :m and exists"
          + " (select 1 from OrderItem i where i.quantity > 1)",
      "select o from PurchaseOrder o where o.merchantId = :m or exists"
          + " (select 1 from OrderItem i where i.merchantId = :m)",
      "update PurchaseOrder o set o.status = 'DONE' where o.status = 'NEW'",
      "delete from OrderItem i where i.quantity = 0",
      "from Customer c where c.email = :email");

  private static Compilation compileHql(List<String> queries) {
    StringBuilder source = new StringBuilder("""
        package app;
        import org.hibernate.annotations.processing.HQL;
        import java.util.List;
        interface Queries {
        """);
    for (int i = 0; i < queries.size(); i++) {
      source.append("  @HQL(\"").append(queries.get(i)).append("\") List<Object> q").append(i)
          .append("();\n");
    }
    source.append("}\n");
    return Fixtures.model().source("app/Queries.java", source.toString())
        .compileWith(new ShardwiseProcessor());
  }

  @Test
  void pinnedQueriesCompileClean() {
    compileHql(PINNED).assertClean();
  }

  @Test
  void eachUnpinnedQueryGetsAnErrorOnItsLine() {
    Compilation c = compileHql(UNPINNED);
    List<Executable> checks = new ArrayList<>();
    for (String query : UNPINNED) {
      checks.add(() -> c.assertError(Tag.QueryWithoutShardKey, "app/Queries.java", query));
    }
    checks.add(() -> c.assertErrorCount(UNPINNED.size()));
    assertAll(checks);
  }

  @Test
  void theMessageQuotesTheQueryNamesEntityAndKeyAndSaysTheFix() {
    Compilation c = compileHql(List.of("from PurchaseOrder o where o.status = 'NEW'"));
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Queries.java", "o.status");
    assertTrue(message.contains("\"from PurchaseOrder o where o.status = 'NEW'\""), message);
    assertTrue(message.contains("PurchaseOrder o") && message.contains("merchantId"), message);
    assertTrue(message.contains("o.merchantId = :merchantId"), message);
    assertTrue(message.contains("@ScatterGather"), message);
  }

  @Test
  void aJoinAcrossGroupsIsNotToldToScatter() {
    String query = "select i from OrderItem i join Customer c on c.email = :e where i.merchantId = :m";
    Compilation c = compileHql(List.of(query));
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Queries.java", query);
    assertTrue(message.contains("joins sharded entity Customer c with OrderItem i"), message);
    assertTrue(message.contains("another co-location group"), message);
    assertTrue(message.contains("c.id = :id"), message);
    assertFalse(message.contains("@ScatterGather"), "scatter-gather refuses cross-group joins: " + message);
    compileHql(List.of("select i from OrderItem i join Customer c on c.email = :e"
        + " where i.merchantId = :m and c.id = :id")).assertClean();
  }

  @Test
  void everyUnpinnedEntityOfAQueryIsReported() {
    Compilation c = compileHql(List.of("select o, c from PurchaseOrder o, Customer c"));
    c.assertErrorCount(2);
    assertTrue(c.errors().get(0).getMessage(null).contains("PurchaseOrder o"), c.dump());
    assertTrue(c.errors().get(1).getMessage(null).contains("Customer c"), c.dump());
  }

  @Test
  void anInsertThatDoesNotWriteTheKeyIsAnErrorThatScatterGatherDoesNotLift() {
    String missing = "insert into OrderItem (id, quantity) select i.id + 1, i.quantity"
        + " from OrderItem i where i.merchantId = :m";
    String fromNothing = "insert into OrderItem (id, merchantId, quantity) select i.id + 1,"
        + " i.quantity, i.quantity from OrderItem i where i.merchantId = :m";
    String written = "insert into OrderItem (id, merchantId, quantity) select i.id + 1,"
        + " i.merchantId, i.quantity from OrderItem i where i.merchantId = :m";
    String fromParameter = "insert into OrderItem (id, merchantId, quantity) values (:id, :m, 1)";
    Compilation c = compileHql(List.of(missing, fromNothing, written, fromParameter));
    String message = c.assertError(Tag.InsertWithoutShardKey, "app/Queries.java", missing);
    assertTrue(message.startsWith("[InsertWithoutShardKey] @HQL method"), message);
    assertTrue(message.contains("inserts into sharded entity OrderItem but does not list"
        + " merchantId among the attributes it writes"), message);
    assertTrue(message.contains("Fix: write merchantId among the inserted attributes"), message);
    c.assertError(Tag.InsertWithoutShardKey, "app/Queries.java", fromNothing);
    c.assertErrorCount(2);

    Fixtures.model().source("app/Queries.java", """
        package app;
        import io.shardwise.annotations.ScatterGather;
        import org.hibernate.annotations.processing.HQL;
        interface Queries {
          @ScatterGather
          @HQL("insert into OrderItem (id, quantity) select i.id + 1, i.quantity from OrderItem i")
          void copy();
        }
        """).compileWith(new ShardwiseProcessor())
        .assertError(Tag.InsertWithoutShardKey, "app/Queries.java", "@HQL(");
  }

  @Test
  void unparseableQueriesAreLeftToHibernate() {
    compileHql(List.of("selec o fromm PurchaseOrder o wher", "from PurchaseOrder o where ("))
        .assertClean();
  }

  @Test
  void namedQueriesAreCheckedAndScatterGatherPermitsByName() {
    Compilation c = Fixtures.model().source("app/Invoice.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @Entity
        @CoLocated(with = Merchant.class)
        @NamedQuery(name = "Invoice.open", query = "from Invoice i where i.paid = false")
        @NamedQuery(name = "Invoice.byMerchant", query = "from Invoice i where i.merchantId = :m")
        @NamedQuery(name = "Invoice.all", query = "from Invoice i")
        @ScatterGather(queries = "Invoice.all")
        public class Invoice {
          @Id Long id;
          @ShardKey Long merchantId;
          boolean paid;
        }
        """).source("app/Refund.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @Entity
        @CoLocated(with = Merchant.class)
        @NamedQuery(name = "Refund.all", query = "from Refund r")
        public class Refund {
          @Id Long id;
          @ShardKey Long merchantId;
        }
        """).compileWith(new ShardwiseProcessor());
    String message =
        c.assertError(Tag.QueryWithoutShardKey, "app/Invoice.java", "Invoice.open");
    assertTrue(message.contains("i.merchantId"), message);
    c.assertError(Tag.QueryWithoutShardKey, "app/Refund.java", "Refund.all");
    c.assertErrorCount(2);
  }

  @Test
  void aPessimisticReadOnlyNamedQueryIsAnError() {
    Compilation c = Fixtures.model().source("app/Stock.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @Entity
        @CoLocated(with = Merchant.class)
        @NamedQuery(name = "Stock.lock", query = "from Stock s where s.merchantId = :m",
            lockMode = LockModeType.PESSIMISTIC_WRITE,
            hints = @QueryHint(name = "org.hibernate.readOnly", value = "true"))
        public class Stock {
          @Id Long id;
          @ShardKey Long merchantId;
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.LockedReadOnly, "app/Stock.java", "lockMode =");
    assertTrue(message.contains("PESSIMISTIC_WRITE") && message.contains("Fix:"), message);
    c.assertErrorCount(1);
  }

  @Test
  void stringConstantsPassedToCreateQueryAreChecked() {
    Compilation c = Fixtures.model().source("app/OrderDao.java", """
        package app;
        import io.shardwise.annotations.ScatterGather;
        import org.hibernate.Session;
        class OrderDao {
          static final String OPEN = "from PurchaseOrder o where o.status = " + "'OPEN'";
          static final String MINE = "from PurchaseOrder o where o.merchantId = :m";
          @ScatterGather static final String EVERYWHERE = "from PurchaseOrder o";

          void run(Session session) {
            session.createQuery(OPEN, PurchaseOrder.class);
            session.createQuery(MINE, PurchaseOrder.class);
            session.createSelectionQuery(Queries.ALL_ITEMS, OrderItem.class);
            session.createMutationQuery(\"\"\"
                delete from OrderItem i
                where i.quantity = 0
                \"\"\");
            final String local = "from Customer c";
            session.createQuery(local, Customer.class);
            session.createQuery(EVERYWHERE, PurchaseOrder.class);
            session.createQuery("from PurchaseOrder o where o.merchantId = :m", Object.class);
          }

          @ScatterGather
          void report(Session session) {
            session.createQuery("from PurchaseOrder o", PurchaseOrder.class);
          }

          static final class Queries {
            static final String ALL_ITEMS = "from OrderItem i";
          }
        }
        """).compileWith(new ShardwiseProcessor());
    Function<String, String> at =
        line -> c.assertError(Tag.QueryWithoutShardKey, "app/OrderDao.java", line);
    assertTrue(at.apply("createQuery(OPEN").contains("status = 'OPEN'"), c.dump());
    at.apply("Queries.ALL_ITEMS");
    at.apply("createMutationQuery");
    at.apply("createQuery(local");
    c.assertErrorCount(4);
  }

  @Test
  void findMethodsNeedTheShardKeyAmongTheirParameters() {
    Compilation c = Fixtures.model().source("app/Finder.java", """
        package app;
        import io.shardwise.annotations.ScatterGather;
        import org.hibernate.annotations.processing.Find;
        import java.util.List;
        interface Finder {
          @Find List<PurchaseOrder> byStatus(String status);
          @Find List<PurchaseOrder> byMerchant(long merchantId, String status);
          @Find Customer customer(java.util.UUID id);
          @Find @ScatterGather List<PurchaseOrder> everywhere(String status);
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Finder.java", "byStatus");
    assertTrue(message.contains("add a parameter named merchantId"), message);
    c.assertErrorCount(1);
  }

  private static final String ORDERS_REPOSITORY = """
      package app;
      import io.shardwise.annotations.ScatterGather;
      import jakarta.data.repository.*;
      import java.util.List;
      import java.util.Optional;
      @Repository
      public interface Orders extends CrudRepository<PurchaseOrder, Long> {
        @Query("where status = :status") List<PurchaseOrder> byStatus(String status);
        @Query("where merchantId = :merchantId and status = :status")
        List<PurchaseOrder> mine(long merchantId, String status);
        @Query("from PurchaseOrder o where o.status = :s") List<PurchaseOrder> withFrom(String s);
        @ScatterGather @Query("where status = :s") List<PurchaseOrder> everywhere(String s);
        @Find List<PurchaseOrder> findByStatus(String status);
        @Find Optional<PurchaseOrder> findOne(@By("merchantId") long merchant, @By(By.ID) Long id);
        @Find List<OrderItem> items(long merchantId);
        @Delete void deleteByStatus(@By("status") String status);
        @Delete void deleteMine(long merchantId, String status);
        @Delete void remove(PurchaseOrder order);
      }
      """;

  @ParameterizedTest(name = "with hibernate-processor: {0}")
  @ValueSource(booleans = {false, true})
  void jakartaDataRepositoryMethodsAreCheckedAgainstTheRepositorysEntity(boolean withHibernate) {
    Compilation c = Fixtures.model().source("app/Orders.java", ORDERS_REPOSITORY)
        .compileWith(withHibernate
            ? new Processor[] {new HibernateProcessor(), new ShardwiseProcessor()}
            : new Processor[] {new ShardwiseProcessor()});
    String implicit =
        c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "byStatus(String status)");
    assertTrue(implicit.contains("Query \"where status = :status\" uses sharded entity"
        + " PurchaseOrder without pinning its shard key merchantId"), implicit);
    c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "withFrom(String s)");
    String find = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findByStatus");
    assertTrue(find.startsWith("[QueryWithoutShardKey] @Find method findByStatus finds sharded"
        + " entity PurchaseOrder without its shard key merchantId"), find);
    String delete = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "deleteByStatus");
    assertTrue(delete.contains("@Delete method deleteByStatus deletes sharded entity"
        + " PurchaseOrder without its shard key merchantId"), delete);
    assertEquals(4, c.errors().stream()
        .filter(d -> d.getMessage(Locale.ROOT).startsWith("[")).count(), c.dump());
    if (!withHibernate) {
      c.assertErrorCount(4);
    }
  }

  @Test
  void aQueryWithoutFromWhoseEntityNoContextGivesIsReported() {
    Compilation c = Fixtures.model().source("app/Reports.java", """
        package app;
        import jakarta.data.repository.*;
        import java.util.List;
        @Repository
        public interface Reports {
          @Query("where status = :status") List<Object[]> rows(String status);
          @Query("where status = :status") List<PurchaseOrder> orders(String status);
          @Query("where merchantId = :m") List<PurchaseOrder> mine(long m);
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.UnresolvedEntity, "app/Reports.java", "rows(String");
    assertTrue(message.startsWith("[UnresolvedEntity] @Query method Reports.rows has no FROM"
        + " clause, and its entity cannot be told"), message);
    assertTrue(message.contains("query \"where status = :status\" is not checked"), message);
    // Without a primary entity, the entity the method returns stands in for it.
    c.assertError(Tag.QueryWithoutShardKey, "app/Reports.java", "orders(String");
    c.assertErrorCount(2);
  }

  @Test
  void aFindMethodWhoseEntityCannotBeToldIsReported() {
    Compilation c = Fixtures.model().source("app/Finder.java", """
        package app;
        import org.hibernate.annotations.processing.Find;
        import java.util.Map;
        interface Finder {
          @Find Map<String, Object> byStatus(String status);
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.UnresolvedEntity, "app/Finder.java", "byStatus");
    assertTrue(message.contains("@Find method byStatus finds what it returns,"
        + " java.util.Map<java.lang.String,java.lang.Object>, but Shardwise cannot tell which"
        + " entity that is"), message);
    c.assertErrorCount(1);
  }

  @Test
  void createQueryWithoutFromReadsTheEntityOfItsResultClass() {
    Compilation c = Fixtures.model().source("app/Dao.java", """
        package app;
        import org.hibernate.Session;
        class Dao {
          void run(Session session) {
            session.createSelectionQuery("where status = 'NEW'", PurchaseOrder.class);
            session.createSelectionQuery("where merchantId = :m", PurchaseOrder.class);
            session.createSelectionQuery("select local date", java.time.LocalDate.class);
          }
        }
        """).compileWith(new ShardwiseProcessor());
    c.assertError(Tag.QueryWithoutShardKey, "app/Dao.java", "status = 'NEW'");
    c.assertErrorCount(1);
  }
}
