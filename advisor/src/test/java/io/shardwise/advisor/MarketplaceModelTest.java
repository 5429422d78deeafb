package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.QueryVerdict.Kind;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A marketplace ({@code io.shardwise.advisor.marketplace}: buyers, sellers, products, orders with
 * lines and payments, reviews, categories), by shape only, where the root is not obvious: sellers
 * hold the whole model together (buyers become a reference table by their shape), buyers make more
 * of the queries single-shard but leave products without a place. The two are shown side by side.
 */
class MarketplaceModelTest {
  static Advice advice;

  @BeforeAll
  static void advise() {
    advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES),
        List.of("io.shardwise.advisor.marketplace"), null, null);
  }

  @Test
  void sellerAndBuyerAreCloseAndShownSideBySide() {
    List<Proposal> close = advice.close();
    assertEquals(List.of("Seller", "Buyer"), close.stream().map(p -> p.root.name).toList(), advice.text());
    Proposal seller = close.get(0);
    Proposal buyer = close.get(1);
    assertEquals(1.0, seller.coverage);
    assertEquals(4.0 / 13, seller.singleShardShare, 1e-9);
    assertEquals(0.5 + 0.5 * 6 / 13, seller.score(), 1e-9, "OrderLine.ofOrder and Review.ofProduct need one predicate");
    assertEquals(6.0 / 8, buyer.coverage);
    assertEquals(6.0 / 13, buyer.singleShardShare, 1e-9);
    assertEquals(0.375 + 0.5 * 7 / 13, buyer.score(), 1e-9, "OrderLine.ofOrder needs one predicate");
    String text = advice.text();
    assertTrue(text.contains("Close call: 2 roots within 0.10 of the best. Side by side:"), text);
    assertTrue(text.contains("  single-shard                30.8%             46.2%\n"), text);
    assertTrue(text.contains("  unshardable                 0                 2\n"), text);
  }

  @Test
  void underSellerTheBuyersAreAReferenceTableByShapeOnly() {
    Proposal seller = advice.close().get(0);
    Placement buyer = Sources.placement(seller, "Buyer");
    assertEquals(Placement.Kind.REFERENCE, buyer.kind());
    assertTrue(buyer.reasons().get(0).endsWith("a reference table by its shape (give --jdbc-url to check its size"
        + " and writes)"), buyer.reasons().toString());
    assertEquals("order.seller", Sources.placement(seller, "OrderLine").via(), "the mandatory order, not the product");
    assertEquals("product.seller", Sources.placement(seller, "Review").via());
    assertEquals(Kind.SCATTER_GATHER, verdict(seller, "PurchaseOrder.ofBuyer").kind());
    assertEquals(Kind.SINGLE_SHARD, verdict(seller, "Buyer.byEmail").kind(), "a reference table reads locally");
    assertEquals(Kind.NEEDS_PREDICATE, verdict(seller, "Review.ofProduct").kind());
  }

  @Test
  void underBuyerTheProductsHaveNoPlaceAndTheirAssociationsCrossGroups() {
    Proposal buyer = advice.close().get(1);
    Placement product = Sources.placement(buyer, "Product");
    assertEquals(Placement.Kind.UNSHARDABLE, product.kind());
    assertTrue(product.reasons().get(0).startsWith("read by OrderLine.product, Review.product but it belongs to"
        + " something"), product.reasons().toString());
    assertEquals(Placement.Kind.REFERENCE, Sources.placement(buyer, "Seller").kind());
    assertEquals(2, buyer.crossings.size(), buyer.crossings.toString());
    assertTrue(buyer.crossings.get(0).startsWith("Review.product leads to Product, outside Buyer's group"
        + " ([AssociationAcrossShards])"), buyer.crossings.toString());
    assertEquals(Kind.UNSHARDABLE, verdict(buyer, "Product.ofSeller").kind());
    assertEquals(Kind.SINGLE_SHARD, verdict(buyer, "Payment.ofBuyer").kind(), "the join carries the pin");
    assertEquals(Kind.GLOBAL_INDEX, verdict(buyer, "Buyer.byEmail").kind());
  }

  private static QueryVerdict verdict(Proposal proposal, String name) {
    return proposal.verdicts.stream().filter(v -> v.query().name().equals(name)).findFirst().orElseThrow();
  }
}
