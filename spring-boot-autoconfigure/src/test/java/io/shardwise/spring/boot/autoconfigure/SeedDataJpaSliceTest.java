package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.spring.boot.autoconfigure.seed.SeedOwner;
import io.shardwise.spring.boot.autoconfigure.seed.SeedOwnerRepository;
import io.shardwise.spring.boot.autoconfigure.seed.SeedTestApplication;
import io.shardwise.spring.boot.test.InShard;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.test.context.ContextConfiguration;

/** The JPA slice runs spring.sql.init data scripts routed by key, with no import of its own. */
@ShardedPostgres(shards = 2, replicas = 0, scope = ShardedPostgres.Scope.RUN)
@DataJpaTest(properties = {"shardwise.schema.action=update", "spring.sql.init.mode=always",
    "spring.sql.init.data-locations=classpath:seed/data.sql"})
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@ContextConfiguration(classes = SeedTestApplication.class)
class SeedDataJpaSliceTest {
  @Autowired SeedOwnerRepository owners;

  @Test
  @InShard(key = "5")
  void aSeededOwnerIsFoundOnItsShard() {
    assertThat(owners.findById(5L)).map(SeedOwner::getName).contains("Eve");
  }

  @Test
  @InShard(key = "6")
  void anotherSeededOwnerIsFoundOnItsShard() {
    assertThat(owners.findById(6L)).map(SeedOwner::getName).contains("Fay");
  }
}
