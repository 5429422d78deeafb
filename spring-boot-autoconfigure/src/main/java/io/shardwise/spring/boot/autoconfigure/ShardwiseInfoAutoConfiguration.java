package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The shard map summary in the actuator's info endpoint (see {@link ShardMapInfoContributor}). */
@AutoConfiguration(after = ShardwiseAutoConfiguration.class)
@ConditionalOnClass({InfoContributor.class, ShardedSessions.class})
@ConditionalOnBean(ShardedSessions.class)
public class ShardwiseInfoAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "shardwiseInfoContributor")
  public InfoContributor shardwiseInfoContributor(ShardedSessions shards, ShardwiseProperties properties) {
    return new ShardMapInfoContributor(shards, properties.getStrategy());
  }
}
