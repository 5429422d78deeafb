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

  @Test
  void javacFindsTheProcessorThroughMetaInfServices() {
    Compilation c = Fixtures.model().source("app/Invoice.java", INVOICE).compileDiscovering();
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Invoice.java", "Invoice.open");
    assertTrue(message.contains("i.merchantId"), message);
    assertEquals(1, c.errors(Tag.QueryWithoutShardKey).size(), c.dump());
  }
}
