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

  /** A sharded child of the fixture model, keyed by merchantId; {@code coLocated} is what goes in @CoLocated(...). */
  private static String child(String name, String coLocated, String members) {
    return """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        import java.util.List;
        @Entity
        @CoLocated(%s)
        public class %s {
          @Id Long id;
          @ShardKey Long merchantId;
          %s
        }
        """.formatted(coLocated, name, members);
  }

  private static Compilation compile(String via, String members) {
    return Fixtures.model()
        .source("app/Shipment.java", child("Shipment", "with = Merchant.class,\n    via = \"" + via + "\"", members))
        .compileWith(new ShardwiseProcessor());
  }

  @Test
  void aPathOfToOneAssociationsToTheRootCompilesAndIsWrittenForTheRuntime() throws IOException {
    Compilation c = compile("item.order.merchant", "@ManyToOne OrderItem item;");
    c.assertClean();
    Properties routing = routingOf(c);
    assertEquals("item.order.merchant", routing.getProperty("entity.app.Shipment.keyPath"));
    assertEquals(null, routing.getProperty("entity.app.OrderItem.keyPath"), "no path declared there");
  }

  @Test
  void theRootsUnidirectionalCollectionIsAcceptedAndWrittenForTheRuntime() throws IOException {
    Compilation c = Fixtures.model().source("app/Tag.java", TAG).source("app/Merchant.java", MERCHANT_WITH_TAGS)
        .compileWith(new ShardwiseProcessor());
    c.assertClean();
    Properties routing = routingOf(c);
    assertEquals("tags", routing.getProperty("entity.app.Tag.listedIn"));
  }

  @Test
  void aCollectionOfAnotherEntityIsRefused() {
    Compilation c = Fixtures.model()
        .source("app/Shipment.java", child("Shipment", "with = PurchaseOrder.class,\n    listedIn = \"items\"", ""))
        .compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.KeyPath, "app/Shipment.java", "listedIn = ");
    assertTrue(message.contains("PurchaseOrder.items is not a @OneToMany of Shipment"), message);
    c.assertErrorCount(1);
  }

  @Test
  void aCollectionMappedByTheChildPointsToVia() {
    Compilation c = Fixtures.model()
        .source("app/Note.java", child("Note", "with = Merchant.class,\n    listedIn = \"notes\"",
            "@ManyToOne Merchant merchant;"))
        .source("app/Merchant.java", MERCHANT_WITH_TAGS.replace("List<Tag> tags;",
            "List<Tag> tags;\n  @OneToMany(mappedBy = \"merchant\") List<Note> notes;"))
        .source("app/Tag.java", TAG)
        .compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.KeyPath, "app/Note.java", "listedIn = ");
    assertTrue(message.contains("Merchant.notes is mappedBy \"merchant\", so Note has an association back."
        + " Fix: use via = \"merchant\""), message);
    c.assertErrorCount(1);
  }

  private static final String TAG = child("Tag", "with = Merchant.class, listedIn = \"tags\"", "");

  private static final String MERCHANT_WITH_TAGS = """
      package app;
      import io.shardwise.annotations.ShardKey;
      import jakarta.persistence.*;
      import java.util.List;
      @Entity
      public class Merchant {
        @Id @ShardKey Long id;
        String name;
        @OneToMany(mappedBy = "merchant") List<PurchaseOrder> orders;
        @OneToMany @JoinColumn(name = "merchant_id") List<Tag> tags;
      }
      """;

  private static Properties routingOf(Compilation c) throws IOException {
    Properties routing = new Properties();
    try (Reader in = Files.newBufferedReader(c.output(RoutingMetadataWriter.RESOURCE))) {
      routing.load(in);
    }
    return routing;
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

  // --- several paths: a row with two possible parents (a mapper of a client or of a client scope) ---

  /** Compiles Shipment with {@code via = {first,\n second}}, each path on its own line. */
  private static Compilation compilePaths(String first, String second, String members) {
    return Fixtures.model()
        .source("app/Shipment.java", child("Shipment", "with = Merchant.class,\n    via = {\"" + first + "\",\n        \""
            + second + "\"}", members))
        .compileWith(new ShardwiseProcessor());
  }

  @Test
  void twoPathsToTheRootCompileAndReachTheRuntimeInTheirOrder() throws IOException {
    Compilation c = compilePaths("item.order.merchant", "order.merchant",
        "@ManyToOne OrderItem item;\n  @ManyToOne PurchaseOrder order;");
    c.assertClean();
    assertEquals("item.order.merchant,order.merchant", routingOf(c).getProperty("entity.app.Shipment.keyPath"));
  }

  @Test
  void aBrokenSecondPathIsReportedOnItsOwnLine() {
    Compilation c = compilePaths("order.merchant", "item.parcel.merchant",
        "@ManyToOne OrderItem item;\n  @ManyToOne PurchaseOrder order;");
    String message = c.assertError(Tag.KeyPath, "app/Shipment.java", "\"item.parcel.merchant\"}");
    assertTrue(message.contains("Shipment is @CoLocated(via = {\"order.merchant\", \"item.parcel.merchant\"}), but in"
        + " path \"item.parcel.merchant\": hop 'parcel' is not an attribute of OrderItem"), message);
    c.assertErrorCount(1);
  }

  @Test
  void aSecondPathIntoAnotherGroupIsRefused() {
    Compilation c = compilePaths("order.merchant", "buyer",
        "@ManyToOne PurchaseOrder order;\n  @ManyToOne Customer buyer;");
    String message = c.assertError(Tag.KeyPath, "app/Shipment.java", "\"buyer\"}");
    assertTrue(message.contains("in path \"buyer\": hop 'buyer' (Shipment.buyer) leads to Customer, which is not in"
        + " the co-location group of Merchant"), message);
    c.assertError(Tag.AssociationAcrossShards, "app/Shipment.java", "Customer buyer");
    c.assertErrorCount(2);
  }

  @Test
  void aPathNamedTwiceIsRefused() {
    Compilation c = compilePaths("order.merchant", "order.merchant", "@ManyToOne PurchaseOrder order;");
    String message = c.assertError(Tag.KeyPath, "app/Shipment.java", "\"order.merchant\"}");
    assertTrue(message.contains("in path \"order.merchant\": it is named twice"), message);
    c.assertErrorCount(1);
  }
}
