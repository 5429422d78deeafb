package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * Actuator health of a Shardwise application: one entry per shard under {@code db}, in place of
 * Boot's DataSource check (which would ask the shard-context DataSource for a connection outside
 * any shard context, and report the database down).
 */
@AutoConfiguration(after = ShardwiseAutoConfiguration.class,
    beforeName = "org.springframework.boot.jdbc.autoconfigure.health.DataSourceHealthContributorAutoConfiguration")
@ConditionalOnClass({HealthContributor.class, ShardedSessions.class})
@ConditionalOnBean(ShardwiseConnectionProvider.class)
@ConditionalOnEnabledHealthIndicator("db")
public class ShardwiseHealthAutoConfiguration {

  @Bean(name = "dbHealthContributor")
  @ConditionalOnMissingBean(name = "dbHealthContributor")
  public CompositeHealthContributor dbHealthContributor(ShardwiseConnectionProvider connections, ShardedSessions shards) {
    Map<String, ShardHealthIndicator> perShard = new LinkedHashMap<>();
    for (String shardId : shards.shardIds()) {
      perShard.put(shardId, new ShardHealthIndicator(shardId, connections, shards));
    }
    return CompositeHealthContributor.fromMap(perShard);
  }
}
