package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.sql.autoconfigure.init.ApplicationScriptDatabaseInitializer;
import org.springframework.boot.sql.autoconfigure.init.SqlInitializationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

/**
 * Seed scripts on a sharded database: {@code spring.sql.init} (Boot's own properties, in place of
 * Boot's initializer) and {@code shardwise.sql.init.locations}, both routed by the entity model.
 * Only where there is an {@code EntityManagerFactory}: a context without JPA (a web or JSON slice)
 * gets neither, and starts.
 */
@AutoConfiguration(after = {ShardwiseAutoConfiguration.class, HibernateJpaAutoConfiguration.class},
    beforeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration")
@Conditional(OnShardwiseConfiguredCondition.class)
@ConditionalOnBean(EntityManagerFactory.class)
public class ShardwiseSqlInitializationAutoConfiguration {

  /** shardwise.sql.init.locations: data scripts, routed like spring.sql.init's, whatever spring.sql.init.mode says. */
  @Bean
  @Conditional(ReferenceDataConfigured.class)
  ReferenceDataInitializer shardwiseReferenceDataInitializer(ShardedSessions shards,
      ShardwiseConnectionProvider connections, ResourceLoader resources, ShardwiseProperties properties) {
    return new ReferenceDataInitializer(new SeedScripts(shards, connections, "shardwise.sql.init.locations"), resources,
        properties.getSql().getInit().getLocations());
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.springframework.boot.sql.autoconfigure.init.ApplicationScriptDatabaseInitializer",
      "org.springframework.jdbc.datasource.init.DatabasePopulator"})
  @EnableConfigurationProperties(SqlInitializationProperties.class)
  static class SpringSqlInit {

    @Bean
    @ConditionalOnMissingBean(ApplicationScriptDatabaseInitializer.class)
    ShardedSqlInitializer shardwiseSqlInitializer(ShardedSessions shards, ShardwiseConnectionProvider connections,
        SqlInitializationProperties properties) {
      return new ShardedSqlInitializer(new SeedScripts(shards, connections, "spring.sql.init"),
          ApplicationScriptDatabaseInitializer.getSettings(properties));
    }
  }
}
