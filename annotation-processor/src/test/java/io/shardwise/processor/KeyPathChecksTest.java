package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** {@code @CoLocated(via)}: a good path compiles and reaches the routing metadata; a bad one names its hop. */
class KeyPathChecksTest {

  private static Compilation compile(String via, String members) {
    return Fixtures.model().source("app/Shipment.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        import java.util.List;
        @Entity
        @CoLocated(with = Merchant.class,
            via = "%s")
        public class Shipment {
          @Id Long id;
          @ShardKey Long merchantId;
          %s
        }
        """.formatted(via, members)).compileWith(new ShardwiseProcessor());
  }

  @Test
  void aPathOfToOneAssociationsToTheRootCompilesAndIsWrittenForTheRuntime() throws IOException {
    Compilation c = compile("item.order.merchant", "@ManyToOne OrderItem item;");
    c.assertClean();
    Properties routing = new Properties();
    try (Reader in = Files.newBufferedReader(c.output(RoutingMetadataWriter.RESOURCE))) {
      routing.load(in);
    }
    assertEquals("item.order.merchant", routing.getProperty("entity.app.Shipment.keyPath"));
    assertEquals(null, routing.getProperty("entity.app.OrderItem.keyPath"), "no path declared there");
  }

  @Test
  void aOneToOneHopIsAccepted() {
    compile("order.merchant", "@OneToOne PurchaseOrder order;").assertClean();
  }

  /** Compiles a path that must fail with one [KeyPath] error on the via line, and returns its message. */
  private static String pathError(String via, String members, String expected) {
    Compilation c = compile(via, members);
    String message = c.assertError(Tag.KeyPath, "app/Shipment.java", "via = ");
    assertTrue(message.contains(expected), message);
    c.assertErrorCount(1);
    return message;
  }

  @Test
  void aHopThatIsNoAttributeIsNamed() {
    pathError("item.parcel.merchant", "@ManyToOne OrderItem item;", "hop 'parcel' is not an attribute of OrderItem");
  }

  @Test
  void aHopThatIsAPlainValueIsNamed() {
    pathError("label", "String label;", "hop 'label' (Shipment.label) is not an association");
  }

  @Test
  void aCollectionHopIsRefused() {
    pathError("orders", "@OneToMany List<PurchaseOrder> orders;", "hop 'orders' (Shipment.orders) is a collection");
  }

  @Test
  void aPathThatEndsBeforeTheRootIsRefused() {
    pathError("order", "@ManyToOne PurchaseOrder order;",
        "the path ends at PurchaseOrder, not at Merchant (named by with)");
  }

  @Test
  void aHopIntoAnotherGroupIsNamed() {
    Compilation c = compile("buyer", "@ManyToOne Customer buyer;");
    String message = c.assertError(Tag.KeyPath, "app/Shipment.java", "via = ");
    assertTrue(message.contains("hop 'buyer' (Shipment.buyer) leads to Customer, which is not in the co-location"
        + " group of Merchant"), message);
    c.assertError(Tag.AssociationAcrossShards, "app/Shipment.java", "Customer buyer");
    c.assertErrorCount(2);
  }
}
