package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Spring Data repositories of sharded entities, against stand-ins of Spring Data's types
 * ({@link SpringDataFixtures}): derived query methods, {@code @Query}, native queries and
 * redeclared CRUD methods. {@code Merchant} is sharded by its id, {@code PurchaseOrder} and
 * {@code OrderItem} are co-located with it by {@code merchantId}, {@code Country} is a reference
 * table.
 */
class SpringDataRepositoryTest {

  /** A repository every method of which names the shard key, or is marked, or needs none. */
  private static final String PASSING = """
      package app;
      import io.shardwise.annotations.ScatterGather;
      import java.util.*;
      import java.util.stream.Stream;
      import org.springframework.data.domain.*;
      import org.springframework.data.jpa.repository.*;
      import org.springframework.data.repository.query.Param;
      interface OrderRepository extends JpaRepository<PurchaseOrder, Long> {
        List<PurchaseOrder> findByMerchantId(long merchantId);
        Page<PurchaseOrder> findByMerchantIdAndStatus(long merchantId, String status, Pageable p);
        List<PurchaseOrder> findDistinctTop3ByMerchantIdAndStatusOrderByIdDesc(long m, String s);
        List<PurchaseOrder> readByMerchantIdIn(Collection<Long> merchantIds);
        long countByMerchantIdIsAndStatusNot(long merchantId, String status);
        boolean existsByMerchantIdEquals(long merchantId);
        void deleteByMerchantIdAndStatus(long merchantId, String status);
        long removeByStatusAndMerchantId(String status, long merchantId);
        Stream<PurchaseOrder> streamByMerchant_Id(Long merchantId);
        Optional<PurchaseOrder> getFirstByMerchantIdOrderByStatusAsc(long merchantId);
        List<PurchaseOrder> queryByMerchantIdAndStatusOrMerchantIdAndStatusIsNull(
            long m1, String s, long m2);
        List<PurchaseOrder> searchByMerchantIdAndStatusIgnoreCase(long merchantId, String s);
        List<PurchaseOrder> findByMerchantIdAndStatusAllIgnoreCase(long merchantId, String s);
        @Query("select o from PurchaseOrder o where o.merchantId = :m and o.status = :s")
        List<PurchaseOrder> mine(@Param("m") long m, @Param("s") String s);
        @Query(value = "select o from #{#entityName} o where o.merchantId = :#{#f.merchantId}"
            + " and o.status like %:s%",
            countQuery = "select count(o) from PurchaseOrder o where o.merchantId = :m")
        Page<PurchaseOrder> spel(Object f, String s, Pageable p);
        @SuppressWarnings("NativeQueryUnchecked")
        @Query(value = "select * from purchase_order where merchant_id = ?1", nativeQuery = true)
        List<PurchaseOrder> nativeMine(long merchantId);
        @ScatterGather List<PurchaseOrder> findByStatus(String status);
        @ScatterGather List<PurchaseOrder> findAll();
        List<PurchaseOrder> findAll(Example<PurchaseOrder> probe);
        default List<PurchaseOrder> newOnes(long merchantId) {
          return findByMerchantIdAndStatusAllIgnoreCase(merchantId, "NEW");
        }
      }
      """;

  private static final String PASSING_OTHERS = """
      package app;
      import java.util.*;
      import org.springframework.data.jpa.repository.JpaRepository;
      import org.springframework.data.repository.Repository;
      interface MerchantRepository extends JpaRepository<Merchant, Long> {
        Optional<Merchant> findById(Long id);
        boolean existsById(Long id);
        List<Merchant> findByIdAndName(Long id, String name);
      }
      interface ItemRepository extends Repository<OrderItem, Long> {
        List<OrderItem> findByOrderMerchantIdAndQuantityGreaterThan(long merchantId, int q);
        List<OrderItem> findByOrder_MerchantId(long merchantId);
      }
      interface CountryRepository extends JpaRepository<Country, String> {
        List<Country> findByNameStartingWith(String prefix);
        List<Country> findAll();
      }
      interface CustomerRepository extends Repository<Customer, UUID> {
        Optional<Customer> findByIdAndEmail(UUID id, String email);
      }
      """;

  @Test
  void repositoriesThatNameTheShardKeyCompileClean() {
    SpringDataFixtures.model()
        .source("app/OrderRepository.java", PASSING)
        .source("app/Others.java", PASSING_OTHERS)
        .compileWith(new ShardwiseProcessor())
        .assertClean();
  }

  /** A repository whose methods each leave the shard key out (method, what the fix says). */
  private static final String FAILING = """
      package app;
      import java.util.*;
      import org.springframework.data.domain.*;
      import org.springframework.data.jpa.repository.*;
      interface Orders extends JpaRepository<PurchaseOrder, Long> {
        List<PurchaseOrder> findByStatus(String status);
        List<PurchaseOrder> findByMerchantIdOrStatus(long merchantId, String status);
        List<PurchaseOrder> findByMerchantIdGreaterThan(long merchantId);
        List<PurchaseOrder> findByMerchantIdNot(long merchantId);
        List<PurchaseOrder> findByMerchantIdNotIn(List<Long> merchantIds);
        List<PurchaseOrder> findByMerchantName(String name);
        long countByStatus(String status);
        void deleteByStatus(String status);
        List<PurchaseOrder> findTop10By();
        Optional<PurchaseOrder> findFirstByOrderByIdDesc();
        Optional<PurchaseOrder> findByIdAndStatus(Long id, String status);
        List<PurchaseOrder> findAll();
        Page<PurchaseOrder> findAll(Pageable pageable);
        long count();
      }
      """;

  /** Method name → the corrected name the message proposes. */
  private static final List<List<String>> FIXES = List.of(
      List.of("findByStatus(", "findByMerchantIdAndStatus("),
      List.of("findByMerchantIdOrStatus(", "findByMerchantIdOrMerchantIdAndStatus("),
      List.of("findByMerchantIdGreaterThan(", "findByMerchantIdAndMerchantIdGreaterThan("),
      List.of("findByMerchantIdNot(", "findByMerchantIdAndMerchantIdNot("),
      List.of("findByMerchantIdNotIn(", "findByMerchantIdAndMerchantIdNotIn("),
      List.of("findByMerchantName(", "findByMerchantIdAndMerchantName("),
      List.of("countByStatus(", "countByMerchantIdAndStatus("),
      List.of("deleteByStatus(", "deleteByMerchantIdAndStatus("),
      List.of("findTop10By(", "findTop10ByMerchantId("),
      List.of("findFirstByOrderByIdDesc(", "findFirstByMerchantIdOrderByIdDesc("),
      List.of("findByIdAndStatus(", "findByMerchantIdAndIdAndStatus("));

  @Test
  void eachMethodWithoutTheShardKeyGetsAnErrorOnItsLineWithTheNameToUseInstead() {
    Compilation c = SpringDataFixtures.model().source("app/Orders.java", FAILING)
        .compileWith(new ShardwiseProcessor());
    List<Executable> checks = new ArrayList<>();
    for (List<String> fix : FIXES) {
      checks.add(() -> {
        String message = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", fix.get(0));
        assertTrue(message.contains(" as in " + fix.get(1) + "long merchantId, ...)"), message);
      });
    }
    checks.add(() -> c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findAll();"));
    checks.add(() -> c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findAll(Page"));
    checks.add(() -> c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "count();"));
    checks.add(() -> c.assertErrorCount(FIXES.size() + 3));
    assertAll(checks);
  }

  /**
   * Selective CRUD exposure, as Spring Data's reference recommends: CrudRepository's methods
   * redeclared on a {@code Repository<T, ID>} run Spring Data's own implementation, so they are
   * treated as the inherited ones are (routed or refused at run time), not as derived queries. A
   * method of the same name whose parameter Spring Data's would not accept is still a derived query.
   */
  @Test
  void selectiveCrudExposureIsTreatedLikeTheInheritedCrudMethods() {
    Compilation c = SpringDataFixtures.model().source("app/Orders.java", """
        package app;
        import java.util.*;
        import org.springframework.data.repository.*;
        interface Orders extends Repository<PurchaseOrder, Long> {
          Optional<PurchaseOrder> findById(Long id);
          boolean existsById(long id);
          void deleteById(Long id);
          List<PurchaseOrder> findAllById(Iterable<Long> ids);
          List<PurchaseOrder> findAllById(List<Long> ids);
          PurchaseOrder getReferenceById(Long id);
          PurchaseOrder save(PurchaseOrder order);
          <S extends PurchaseOrder> List<S> saveAll(Iterable<S> orders);
          PurchaseOrder saveAndFlush(PurchaseOrder order);
          void delete(PurchaseOrder order);
          void deleteAll(Iterable<? extends PurchaseOrder> orders);
          void deleteAllById(Iterable<? extends Long> ids);
          void deleteAllInBatch(Iterable<PurchaseOrder> orders);
          void deleteAllByIdInBatch(Iterable<Long> ids);
          Optional<PurchaseOrder> findById(String notTheId);
          List<PurchaseOrder> findAll();
          void deleteAll();
        }
        """).compileWith(new ShardwiseProcessor());
    c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findById(String");
    c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findAll();");
    c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "deleteAll();");
    c.assertErrorCount(3);
  }

  @Test
  void theMessageNamesTheMethodTheMissingKeyTheDerivedQueryAndTheFix() {
    Compilation c = SpringDataFixtures.model().source("app/Orders.java", FAILING)
        .compileWith(new ShardwiseProcessor());
    assertEquals("[QueryWithoutShardKey] Derived query method Orders.findByStatus reads sharded"
        + " entity PurchaseOrder without its shard key merchantId (as HQL: \"from PurchaseOrder e"
        + " where e.status = ?1\"): the name must compare MerchantId with Is, Equals or In, so the"
        + " query would run on every shard. Fix: add the key to the name and a parameter for it,"
        + " as in findByMerchantIdAndStatus(long merchantId, ...), or mark the method"
        + " @ScatterGather to run it on every shard.",
        c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findByStatus("));
    assertEquals("[QueryWithoutShardKey] Derived query method Orders.findByMerchantIdOrStatus"
        + " reads sharded entity PurchaseOrder without its shard key merchantId (as HQL: \"from"
        + " PurchaseOrder e where (e.merchantId = ?1) or (e.status = ?2)\"): every Or branch of"
        + " the name must compare MerchantId with Is, Equals or In, so the query would run on"
        + " every shard. Fix: add the key to the name and a parameter for it, as in"
        + " findByMerchantIdOrMerchantIdAndStatus(long merchantId, ...), or mark the method"
        + " @ScatterGather to run it on every shard.",
        c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findByMerchantIdOrStatus("));
    assertEquals("[QueryWithoutShardKey] Repository method Orders.findAll reads every"
        + " PurchaseOrder with no condition, so it would run on every shard without its shard key"
        + " merchantId. Fix: declare a derived query with the key instead, as in"
        + " findByMerchantId(long merchantId), or mark the method @ScatterGather to run it on"
        + " every shard.",
        c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findAll();"));
  }

  @Test
  void queryAnnotationsAreHeldToTheSameRuleAsNamedQueries() {
    Compilation c = SpringDataFixtures.model().source("app/Orders.java", """
        package app;
        import java.util.List;
        import org.springframework.data.domain.*;
        import org.springframework.data.jpa.repository.*;
        interface Orders extends JpaRepository<PurchaseOrder, Long> {
          @Query("select o from PurchaseOrder o where o.status = :s")
          List<PurchaseOrder> byStatus(String s);
          @Query(value = "select o from PurchaseOrder o where o.merchantId = :m",
              countQuery = "select count(o) from PurchaseOrder o")
          Page<PurchaseOrder> paged(long m, Pageable p);
          @Query("select o from Shipment o where o.merchantId = :m")
          List<PurchaseOrder> unknown(long m);
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "o.status = :s");
    assertEquals("[QueryWithoutShardKey] " + QueryChecks.message(
        "select o from PurchaseOrder o where o.status = :s",
        new io.shardwise.queryrules.ShardKeyRule.Unpinned(
            new QueryModelStub("PurchaseOrder", "merchantId"), "o")), message);
    String count = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "countQuery");
    assertTrue(count.contains("\"select count(o) from PurchaseOrder o\""), count);
    String unresolved = c.assertError(Tag.UnresolvedEntity, "app/Orders.java", "Shipment");
    assertTrue(unresolved.startsWith("[UnresolvedEntity] @Query method Orders.unknown names"
        + " entity Shipment"), unresolved);
    c.assertErrorCount(3);
  }

  @Test
  void aNativeQueryIsCheckedAsSqlAndWhatCannotBeReadIsAWarning() {
    Compilation c = SpringDataFixtures.model().source("app/Orders.java", """
        package app;
        import io.shardwise.annotations.ScatterGather;
        import java.util.List;
        import org.springframework.data.jpa.repository.*;
        interface Orders extends JpaRepository<PurchaseOrder, Long> {
          @Query(value = "select * from purchase_order where status = ?1", nativeQuery = true)
          List<PurchaseOrder> byStatus(String status);
          @NativeQuery("select * from purchase_order where merchant_id = ?1")
          List<PurchaseOrder> mine(long merchantId);
          @NativeQuery("select * from purchase_order o where o.merchant_id = :#{#filter.merchantId}")
          List<PurchaseOrder> spel(Object filter);
          @SuppressWarnings("NativeQueryUnchecked")
          @NativeQuery("select * from purchase_order o where o.merchant_id = ?#{[0]}")
          List<PurchaseOrder> checkedByHand(long merchantId);
          @ScatterGather
          @NativeQuery("select * from purchase_order")
          List<PurchaseOrder> everywhere();
        }
        """).compileWith(new ShardwiseProcessor());
    String error = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "status = ?1");
    assertTrue(error.startsWith("[QueryWithoutShardKey] Native query method Orders.byStatus reads table"
        + " purchase_order of sharded entity PurchaseOrder without pinning its key column merchant_id"), error);
    assertTrue(error.contains("Fix: add \"merchant_id = :merchantId\""), error);
    c.assertErrorCount(1);
    String warning = c.assertWarning(Tag.NativeQueryUnchecked, "app/Orders.java", "#filter");
    assertTrue(warning.startsWith("[NativeQueryUnchecked] Native query method Orders.spel is SQL that"
        + " Shardwise's parser cannot read ("), warning);
    assertEquals(1, c.warnings(Tag.NativeQueryUnchecked).size(), c.dump());
  }

  @Test
  void methodsInheritedFromTheUsersOwnBaseAndRepositoryDefinitionsAreChecked() {
    Compilation c = SpringDataFixtures.model().source("app/Repos.java", """
        package app;
        import java.util.List;
        import org.springframework.data.repository.*;
        @NoRepositoryBean
        interface StatusLookups<T> extends Repository<T, Long> {
          List<T> findByStatus(String status);
          @org.springframework.data.jpa.repository.Query("where status = 'NEW'")
          List<T> newOnes();
        }
        interface Orders extends StatusLookups<PurchaseOrder> {
        }
        @io.shardwise.annotations.ScatterGather
        interface EveryShard extends StatusLookups<PurchaseOrder> {
          List<PurchaseOrder> findByStatusNot(String status);
        }
        @RepositoryDefinition(domainClass = PurchaseOrder.class, idClass = Long.class)
        interface Defined {
          List<PurchaseOrder> readByStatusOrderById(String status);
        }
        """).compileWith(new ShardwiseProcessor());
    String inherited = c.assertError(Tag.QueryWithoutShardKey, "app/Repos.java", "findByStatus");
    assertTrue(inherited.startsWith("[QueryWithoutShardKey] Derived query method"
        + " Orders.findByStatus reads"), inherited);
    String defined = c.assertError(Tag.QueryWithoutShardKey, "app/Repos.java", "readByStatus");
    assertTrue(defined.contains("as in readByMerchantIdAndStatusOrderById(long merchantId"),
        defined);
    // The query without FROM reads the entity of each repository that inherits it.
    String query = c.assertError(Tag.QueryWithoutShardKey, "app/Repos.java", "status = 'NEW'");
    assertTrue(query.contains("uses sharded entity PurchaseOrder without pinning"), query);
    c.assertErrorCount(3);
  }

  @Test
  void aDerivedQueryBackedByANamedQueryIsLeftToTheNamedQuerysCheck() {
    Compilation c = new Compilation()
        .source("app/Merchant.java", Fixtures.MERCHANT)
        .source("app/PurchaseOrder.java", Fixtures.ORDER.replace("@Entity\n",
            "@Entity\n@NamedQuery(name = \"PurchaseOrder.findByStatus\","
                + " query = \"from PurchaseOrder o where o.merchantId = :m and o.status = :s\")\n"))
        .source("app/OrderItem.java", Fixtures.ITEM)
        .source("app/Customer.java", Fixtures.CUSTOMER)
        .source("app/Country.java", Fixtures.COUNTRY)
        .source("app/Orders.java", """
            package app;
            import java.util.List;
            import org.springframework.data.repository.Repository;
            interface Orders extends Repository<PurchaseOrder, Long> {
              List<PurchaseOrder> findByStatus(long m, String s);
            }
            """);
    SpringDataFixtures.STAND_INS.forEach(c::source);
    c.compileWith(new ShardwiseProcessor()).assertClean();
  }

  /** Just enough of a query-model entity to render the expected message. */
  private record QueryModelStub(String simpleName, String shardKey)
      implements io.shardwise.queryrules.QueryModel.Entity {
    @Override
    public Object group() {
      return this;
    }

    @Override
    public boolean hasAttribute(String attribute) {
      return false;
    }

    @Override
    public io.shardwise.queryrules.QueryModel.Entity associationTarget(String attribute) {
      return null;
    }
  }
}
