package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.hibernate.processor.HibernateProcessor;
import org.junit.jupiter.api.Test;

/** Shardwise next to hibernate-processor: both see the same elements, no error is reported twice. */
class WithHibernateProcessorTest {

  private static final String INVOICE = """
      package app;
      import io.shardwise.annotations.*;
      import jakarta.persistence.*;
      @Entity
      @CoLocated(with = Merchant.class)
      @NamedQuery(name = "Invoice.open", query = "from Invoice i where i.paid = false")
      @NamedQuery(name = "Invoice.broken", query = "from Invoice i wher i.paid")
      @NamedQuery(name = "Invoice.mine", query = "from Invoice i where i.merchantId = :m")
      public class Invoice {
        @Id Long id;
        @ShardKey Long merchantId;
        boolean paid;
      }
      """;

  @Test
  void bothProcessorsRunAndEachProblemIsReportedOnce() {
    Compilation c = Fixtures.model().source("app/Invoice.java", INVOICE)
        .compileWith(new HibernateProcessor(), new ShardwiseProcessor());
    c.assertError(Tag.QueryWithoutShardKey, "app/Invoice.java", "Invoice.open");
    assertEquals(1, c.errors(Tag.QueryWithoutShardKey).size(), c.dump());
    // The unparseable query is hibernate-processor's to report; Shardwise adds nothing to it.
    long shardwiseErrors = c.errors().stream()
        .filter(d -> d.getMessage(Locale.ROOT).startsWith("["))
        .count();
    assertEquals(1, shardwiseErrors, c.dump());
    assertEquals(1, c.errors().stream()
        .filter(d -> d.getMessage(Locale.ROOT).contains("illegal HQL syntax"))
        .count(), c.dump());
  }

  @Test
  void aValidModelIsCleanUnderBothProcessors() {
    Fixtures.model().compileWith(new ShardwiseProcessor(), new HibernateProcessor())
        .assertClean();
  }

  /**
   * hibernate-processor implements a Jakarta Data repository in a generated class
   * ({@code Orders_}) whose methods pass the query to Hibernate in their bodies; each keeps the
   * {@code @ScatterGather} of the interface method it implements (or of the interface).
   */
  @Test
  void aGeneratedRepositoryKeepsItsInterfaceMethodsScatterGather() {
    Compilation c = Fixtures.model().source("app/Orders.java", """
        package app;
        import io.shardwise.annotations.ScatterGather;
        import jakarta.data.repository.*;
        import java.util.List;
        @Repository
        public interface Orders {
          @ScatterGather
          @Query("from PurchaseOrder o where o.status = :status")
          List<PurchaseOrder> everywhere(String status);
          @ScatterGather
          @Find
          List<PurchaseOrder> byStatus(String status);
          @Query("from PurchaseOrder o where o.merchantId = :merchantId and o.status = :status")
          List<PurchaseOrder> pinned(long merchantId, String status);
        }
        """).source("app/Audits.java", """
        package app;
        import io.shardwise.annotations.ScatterGather;
        import jakarta.data.repository.*;
        import java.util.List;
        @Repository
        @ScatterGather
        public interface Audits {
          @Query("select o.id from PurchaseOrder o where o.status = :status")
          List<Long> ids(String status);
        }
        """).writingClasses().compileWith(new HibernateProcessor(), new ShardwiseProcessor());
    c.assertClean();
    assertTrue(java.nio.file.Files.exists(c.output("app/Orders_.java")), c.dump());
  }

  @Test
  void javacFindsTheProcessorThroughMetaInfServices() {
    Compilation c = Fixtures.model().source("app/Invoice.java", INVOICE).compileDiscovering();
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Invoice.java", "Invoice.open");
    assertTrue(message.contains("i.merchantId"), message);
    assertEquals(1, c.errors(Tag.QueryWithoutShardKey).size(), c.dump());
  }
}
