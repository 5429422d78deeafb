package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.boot.autoconfigure.shop.OrderRepository;
import io.shardwise.spring.boot.autoconfigure.shop.PurchaseOrder;
import io.shardwise.spring.boot.autoconfigure.shop.ShopTestApplication;
import io.shardwise.spring.boot.test.InShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code @ShardedPostgres} on a Spring Boot test supplies the shard settings by itself, and
 * {@link InShard} chooses the shard of a test before its test-managed transaction begins.
 */
@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(classes = ShopTestApplication.class, properties = "shardwise.schema.action=create")
@Transactional
class SpringTestSupportTest {
  private static final long KEY = 42;

  @Autowired PostgresTopology topologyBean;
  @Autowired ShardedSessions shards;
  @Autowired OrderRepository orders;
  @PersistenceContext EntityManager em;

  @Test
  void theApplicationRunsOnTheTopologyTheExtensionHandsToTests(PostgresTopology fromExtension) {
    assertSame(fromExtension, topologyBean);
    assertThat(shards.shardIds()).containsExactlyInAnyOrder("s0", "s1");
  }

  @Test
  @InShard(key = "" + KEY)
  void aTestManagedTransactionOpensOnTheShardOfTheKey(PostgresTopology pg) {
    assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
    int shardIndex = Integer.parseInt(shards.shardFor(KEY).substring(1));
    assertEquals(pg.shard(shardIndex).primary().port(), port());
    orders.save(new PurchaseOrder(4200, KEY, "NEW", 1));
    assertThat(orders.findByMerchantIdAndStatusOrderById(KEY, "NEW")).extracting(PurchaseOrder::getId)
        .containsExactly(4200L);
  }

  @Test
  @InShard(shard = "s1")
  void aShardCanBeNamed(PostgresTopology pg) {
    assertEquals(pg.shard(1).primary().port(), port());
    assertEquals("s1", ShardContext.current());
  }

  @AfterAll
  static void theContextIsClosedAfterTheTest() {
    assertThat(ShardContext.current()).isNull();
  }

  private int port() {
    return ((Number) em.createNativeQuery("select inet_server_port()").getSingleResult()).intValue();
  }
}
