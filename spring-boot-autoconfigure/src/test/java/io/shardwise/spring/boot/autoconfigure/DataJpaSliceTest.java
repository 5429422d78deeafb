package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.spring.boot.autoconfigure.shop.CountryRepository;
import io.shardwise.spring.boot.autoconfigure.shop.OrderRepository;
import io.shardwise.spring.boot.autoconfigure.shop.PurchaseOrder;
import io.shardwise.spring.boot.autoconfigure.shop.ShopTestApplication;
import io.shardwise.spring.boot.test.InShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.EntityManager;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.test.context.ContextConfiguration;

/**
 * The JPA slice: repositories bootstrap without a shard; @InShard picks the shard of a test, and
 * without it the test's first key does.
 */
@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@DataJpaTest(properties = "shardwise.schema.action=create")
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@ContextConfiguration(classes = ShopTestApplication.class)
class DataJpaSliceTest {
  @Autowired OrderRepository orders;
  @Autowired CountryRepository countries;
  @Autowired EntityManager em;

  @Test
  @InShard(shard = "s0")
  void aSliceTestRunsInTheChosenShard(PostgresTopology pg) {
    orders.save(new PurchaseOrder(7001, KeysByShard.first("s0"), "NEW", 5));
    assertThat(orders.findByMerchantIdAndStatusOrderById(KeysByShard.first("s0"), "NEW"))
        .extracting(PurchaseOrder::getId).contains(7001L);
    assertEquals(pg.shard(0).primary().port(),
        ((Number) em.createNativeQuery("select inet_server_port()").getSingleResult()).intValue());
  }

  @Test
  void withoutInShardTheTestsFirstKeyChoosesTheShard(PostgresTopology pg) {
    assertThat(countries.findAll()).isNotNull();
    long merchant = KeysByShard.first("s1");
    orders.save(new PurchaseOrder(7101, merchant, "NEW", 5));
    assertThat(orders.findByMerchantIdAndStatusOrderById(merchant, "NEW")).extracting(PurchaseOrder::getId)
        .contains(7101L);
    assertEquals(pg.shard(1).primary().port(),
        ((Number) em.createNativeQuery("select inet_server_port()").getSingleResult()).intValue());
    InvalidDataAccessApiUsageException otherShard = org.junit.jupiter.api.Assertions.assertThrows(
        InvalidDataAccessApiUsageException.class,
        () -> orders.findByMerchantIdAndStatusOrderById(KeysByShard.first("s0"), "NEW"));
    assertThat(otherShard.getCause()).isInstanceOf(ShardKeyException.class);
    assertThat(otherShard.getMessage()).startsWith("[ShardKeyOnOtherShard]");
  }

  @Test
  void withoutAShardOrAKeyShardedSqlIsRefusedByName() {
    NoShardSelectedException e = org.junit.jupiter.api.Assertions.assertThrows(NoShardSelectedException.class,
        () -> em.find(PurchaseOrder.class, 1L)); // an order's id is not its key: nothing binds
    assertThat(e.getMessage()).startsWith("[NoShardSelected] PurchaseOrder (table purchase_order)");
  }
}
