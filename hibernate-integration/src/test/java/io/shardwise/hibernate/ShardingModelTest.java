package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.badmodel.BadKeyPaths;
import io.shardwise.hibernate.badmodel.BadModels;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** An invalid sharding model stops the session factory at startup, with every problem listed. */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class ShardingModelTest {

  @Test
  void everyViolationIsReportedWithItsTagAndFix(PostgresTopology pg) {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () ->
        Shardwise.configure().credentials("postgres", null)
            .shard("s0", pg.shard(0).primary().jdbcUrl())
            .entities(BadModels.Tenant.class, BadModels.Unannotated.class, BadModels.DoubleKeyed.class,
                BadModels.DecimalKeyed.class, BadModels.Customer.class, BadModels.Ticket.class,
                BadModels.WrongKeyType.class, BadModels.Currency.class, BadModels.KeyedReference.class,
                BadModels.CoLocatedWithReference.class)
            .buildSessionFactory().close());

    String m = e.getMessage();
    assertContains(m, "[ShardKeyMissing] Unannotated has no @ShardKey");
    assertContains(m, "[ShardKeyDuplicate] DoubleKeyed has @ShardKey on [id, other]");
    assertContains(m, "[ShardKeyType] DecimalKeyed.amount is a java.lang.Double");
    assertContains(m, "[AssociationAcrossShards] Ticket.reporter -> Customer");
    assertContains(m, "[CoLocatedKeyType] WrongKeyType.tenantId is a STRING key but Tenant.id");
    assertContains(m, "[ReferenceToSharded] Currency.users -> Tenant");
    assertContains(m, "[ReferenceWithShardKey] KeyedReference");
    assertContains(m, "[CoLocatedTarget] CoLocatedWithReference is @CoLocated(with = BadModels$Currency.class)");
    assertEquals(8, m.lines().filter(l -> l.startsWith("  - [")).count(), m);
  }

  @Test
  void aKeyPathThatDoesNotLeadToItsRootIsReportedAtItsHop(PostgresTopology pg) {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () ->
        Shardwise.configure().credentials("postgres", null)
            .shard("s0", pg.shard(0).primary().jdbcUrl())
            .entities(BadKeyPaths.Farm.class, BadKeyPaths.Barn.class, BadKeyPaths.Cow.class, BadKeyPaths.Hen.class,
                BadKeyPaths.Goat.class, BadKeyPaths.Pig.class, BadKeyPaths.Sheep.class)
            .buildSessionFactory().close());

    String m = e.getMessage();
    assertContains(m, "[KeyPath] Cow is @CoLocated(via = \"barn.roof\"), but hop 'roof' is not a persistent"
        + " attribute of Barn");
    assertContains(m, "[KeyPath] Hen is @CoLocated(via = \"name\"), but hop 'name' (Hen.name) is not a @ManyToOne"
        + " or @OneToOne association");
    assertContains(m, "[KeyPath] Goat is @CoLocated(via = \"barn\"), which ends at Barn, but with names Farm");
    assertContains(m, "[KeyPath] Pig is @CoLocated(listedIn = \"barns\"), but Farm.barns is not a @OneToMany of Pig"
        + " without mappedBy");
    assertContains(m, "[KeyPath] Sheep is @CoLocated(via = \"barn.roof\"), but hop 'roof' is not a persistent"
        + " attribute of Barn");
    assertEquals(5, m.lines().filter(l -> l.startsWith("  - [")).count(), m);
  }

  @Test
  void aValidModelStarts(PostgresTopology pg) {
    Shardwise.configure().credentials("postgres", null).shard("s0", pg.shard(0).primary().jdbcUrl())
        .entities(ShopFixture.ENTITIES).buildSessionFactory().close();
  }

  private static void assertContains(String message, String expected) {
    assertTrue(message.contains(expected), () -> "expected <" + expected + "> in:\n" + message);
  }

  @Test
  void theFixtureCoversEveryEntityOfTheShop() {
    assertEquals(4, Arrays.stream(ShopFixture.ENTITIES).distinct().count());
  }
}
