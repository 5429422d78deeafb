package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Native SQL in {@code @NamedNativeQuery} and {@code createNativeQuery} string constants, held to
 * the shard-key rule on the tables of {@link Fixtures}: PurchaseOrder (purchase_order, key
 * merchant_id), OrderItem, Merchant, Customer, Country (a reference table).
 */
class NativeQueryChecksTest {

  private static final List<String> PINNED = List.of(
      "select * from purchase_order where merchant_id = :m",
      "select * from purchase_order o where o.merchant_id in (?1, ?2) and o.status = 'NEW'",
      "select o.* from purchase_order o join order_item i on i.merchant_id = o.merchant_id"
          + " where o.merchant_id = :m",
      "select * from purchaseorder o where o.merchantid = :m",
      "select * from country where name like 'A%'",
      "update purchase_order set status = 'DONE' where merchant_id = :m and id = :id",
      "insert into order_item (id, merchant_id, quantity) values (:id, :m, 1)",
      "select * from merchant where id = :m");

  private static final List<String> UNPINNED = List.of(
      "select * from purchase_order where status = :s",
      // the key column of another table
      "select o.* from purchase_order o join customer c on c.id = :c where c.id = :c",
      // OR with a non-key predicate
      "select * from purchase_order o where o.merchant_id = :m or o.status = 'NEW'",
      // the key compared with another column
      "select * from purchase_order o where o.merchant_id = o.id",
      "delete from order_item where quantity = 0");

  private static Compilation compileNamed(List<String> queries, String annotations) {
    StringBuilder source = new StringBuilder("""
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        """).append(annotations).append("""
        @Entity
        @CoLocated(with = Merchant.class)
        public class Shipment {
          @Id Long id;
          @ShardKey long merchantId;
        }
        """);
    StringBuilder named = new StringBuilder();
    for (int i = 0; i < queries.size(); i++) {
      named.append("@NamedNativeQuery(name = \"q").append(i).append("\", query = \"")
          .append(queries.get(i)).append("\")\n");
    }
    String text = source.toString().replace("@Entity\n", named + "@Entity\n");
    return Fixtures.model().source("app/Shipment.java", text).compileWith(new ShardwiseProcessor());
  }

  @Test
  void pinnedNativeQueriesCompileClean() {
    compileNamed(PINNED, "").assertClean();
  }

  @Test
  void eachUnpinnedNativeQueryGetsAnErrorOnItsLine() {
    Compilation c = compileNamed(UNPINNED, "");
    List<Executable> checks = new ArrayList<>();
    for (String query : UNPINNED) {
      checks.add(() -> c.assertError(Tag.QueryWithoutShardKey, "app/Shipment.java", query));
    }
    checks.add(() -> c.assertErrorCount(UNPINNED.size()));
    assertAll(checks);
  }

  @Test
  void scatterGatherPermitsThemAndTheMessageSaysTheFix() {
    compileNamed(UNPINNED.subList(0, 1), "@ScatterGather(queries = \"q0\")\n").assertClean();
    Compilation c = compileNamed(UNPINNED.subList(0, 1), "");
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Shipment.java", "status = :s");
    assertEquals("[QueryWithoutShardKey] Named native query q0 reads table purchase_order of sharded"
        + " entity PurchaseOrder without pinning its key column merchant_id (query \"select * from"
        + " purchase_order where status = :s\"): on every branch of its WHERE and ON conditions,"
        + " merchant_id must be compared with = or IN to a parameter or literal, or equal the key"
        + " column of a pinned table of its co-location group; otherwise it runs on the session's"
        + " shard only and misses the rows on the others. Fix: add \"merchant_id = :merchantId\", or"
        + " mark the query @ScatterGather to run it on every shard.", message);
  }

  @Test
  void whatTheParserCannotReadIsAWarningThatNamesIt() {
    Compilation c = compileNamed(List.of(
        "select {o.*} from purchase_order o where o.merchant_id = :m",
        "select * from user_roles where user_id = :u"), "");
    assertTrue(c.succeeded(), c.dump());
    String unreadable = c.assertWarning(Tag.NativeQueryUnchecked, "app/Shipment.java", "{o.*}");
    assertTrue(unreadable.contains("cannot read (") && unreadable.contains("\"{\""), unreadable);
    String unknown = c.assertWarning(Tag.NativeQueryUnchecked, "app/Shipment.java", "user_roles");
    assertTrue(unknown.contains("names only tables that no entity Shardwise knows is stored in"
        + " (user_roles)"), unknown);
    compileNamed(List.of("select {o.*} from purchase_order o"),
        "@SuppressWarnings(\"NativeQueryUnchecked\")\n").assertClean();
  }

  @Test
  void anInsertThatDoesNotWriteTheKeyColumnIsAnErrorScatterGatherOrNot() {
    Compilation c = compileNamed(List.of("insert into order_item (id, quantity) values (:id, 1)"),
        "@ScatterGather\n");
    String message = c.assertError(Tag.InsertWithoutShardKey, "app/Shipment.java", "order_item");
    assertTrue(message.contains("does not list its key column merchant_id"), message);
  }

  @Test
  void aJoinOnTheViaPathsDefaultForeignKeyToAPinnedParentPinsTheChild() {
    String pinned1 = "select p.* from parcel p join purchase_order o on p.order_id = o.id where o.merchant_id = :m";
    String pinned2 = "delete from parcel where order_id in (select id from purchase_order where merchant_id = :m)";
    String otherColumn = "select p.* from parcel p join purchase_order o on p.order_id = o.merchant_id"
        + " where o.merchant_id = :m";
    String withoutVia = "select i.* from order_item i join purchase_order o on i.order_id = o.id"
        + " where o.merchant_id = :m";
    Compilation c = Fixtures.model().source("app/Parcel.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @NamedNativeQuery(name = "q0", query = "%s")
        @NamedNativeQuery(name = "q1", query = "%s")
        @NamedNativeQuery(name = "q2", query = "%s")
        @NamedNativeQuery(name = "q3", query = "%s")
        @Entity
        @CoLocated(with = Merchant.class, via = "order.merchant")
        public class Parcel {
          @Id Long id;
          @ShardKey Long merchantId;
          @ManyToOne PurchaseOrder order;
        }
        """.formatted(pinned1, pinned2, otherColumn, withoutVia)).compileWith(new ShardwiseProcessor());
    c.assertError(Tag.QueryWithoutShardKey, "app/Parcel.java", "o.merchant_id where");
    c.assertError(Tag.QueryWithoutShardKey, "app/Parcel.java", "order_item i");
    c.assertErrorCount(2);
  }

  @Test
  void createNativeQueryConstantsAreChecked() {
    Compilation c = Fixtures.model().source("app/Dao.java", """
        package app;
        import jakarta.persistence.EntityManager;
        class Dao {
          static final String BY_STATUS = "select * from purchase_order where status = ?1";
          void run(EntityManager em, long m) {
            em.createNativeQuery(BY_STATUS).getResultList();
            em.createNativeQuery("select * from purchase_order where merchant_id = ?1")
                .setParameter(1, m).getResultList();
          }
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Dao.java", "createNativeQuery(BY_STATUS)");
    assertTrue(message.startsWith("[QueryWithoutShardKey] createNativeQuery in Dao.run reads table"
        + " purchase_order"), message);
    c.assertErrorCount(1);
  }
}
