package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.spi.ShardContextResolver;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.spring.ConsistencyTokenInterceptor;
import io.shardwise.spring.ShardContextInterceptor;
import io.shardwise.spring.ShardKeyResolver;
import io.shardwise.spring.ShardwiseExceptionTranslator;
import io.shardwise.spring.ShardwiseJpaTransactionManager;
import io.shardwise.spring.WithShard;
import io.shardwise.spring.WithShardInterceptor;
import io.shardwise.spring.boot.autoconfigure.properties.WebProperties;
import jakarta.persistence.EntityManagerFactory;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import io.shardwise.spring.ScatterPages;
import java.util.List;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.support.OpenEntityManagerInViewInterceptor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizers;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionManager;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Makes the {@code EntityManagerFactory} that Spring Boot's JPA auto-configuration builds the
 * sharded one. Active when {@code shardwise.shards} or {@code shardwise.control.url} is set; an
 * application without Shardwise settings is untouched.
 *
 * <ul>
 *   <li>Boot's JPA needs a {@link DataSource}; Shardwise supplies one that hands out connections
 *       of the current {@link io.shardwise.hibernate.ShardContext}'s shard, so Boot's own
 *       DataSource auto-configuration (and its {@code spring.datasource.url}) backs off. Hibernate
 *       itself never uses it: its connections come from {@link ShardwiseConnectionProvider}.</li>
 *   <li>A {@link HibernatePropertiesCustomizer} sets the connection provider, the tenant resolver
 *       and every {@code shardwise.*} setting on Boot's factory — no second factory.</li>
 *   <li>{@link ShardwiseJpaTransactionManager}: read-only transactions on replicas.</li>
 *   <li>{@link ShardedSessions} as a bean; {@link WithShard} on service methods; a web interceptor
 *       that opens the shard context from a header, a path variable or a {@link ShardKeyResolver};
 *       {@link ShardwiseExceptionTranslator} ahead of Spring Data's translation.</li>
 * </ul>
 */
@AutoConfiguration(before = {DataSourceAutoConfiguration.class, HibernateJpaAutoConfiguration.class},
    afterName = "org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration")
@ConditionalOnClass({LocalContainerEntityManagerFactoryBean.class, SessionFactory.class, HibernatePropertiesCustomizer.class})
@Conditional(OnShardwiseConfiguredCondition.class)
@EnableConfigurationProperties(ShardwiseProperties.class)
public class ShardwiseAutoConfiguration {

  /** Handed to Hibernate as an instance, so that the DataSource below can reach the same shards. */
  @Bean
  @ConditionalOnMissingBean
  public ShardwiseConnectionProvider shardwiseConnectionProvider() {
    return new ShardwiseConnectionProvider();
  }

  @Bean
  @ConditionalOnMissingBean(DataSource.class)
  public ShardContextDataSource shardwiseDataSource(ShardwiseConnectionProvider connectionProvider) {
    return new ShardContextDataSource(connectionProvider);
  }

  @Bean
  public HibernatePropertiesCustomizer shardwiseHibernatePropertiesCustomizer(ShardwiseProperties properties,
      ShardwiseConnectionProvider connectionProvider) {
    return hibernate -> {
      hibernate.putAll(properties.toHibernateProperties());
      hibernate.put("hibernate.multi_tenant_connection_provider", connectionProvider);
      hibernate.put("hibernate.tenant_identifier_resolver", new ShardContextResolver());
    };
  }

  /**
   * Shardwise's meters (docs/operations.md) go to the application's {@code MeterRegistry} when there
   * is one; nothing here loads while Micrometer is not on the class path.
   */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  static class MetricsConfiguration {
    @Bean
    HibernatePropertiesCustomizer shardwiseMeterRegistryCustomizer(
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry) {
      return hibernate -> {
        io.micrometer.core.instrument.MeterRegistry unique = registry.getIfUnique();
        if (unique != null) {
          hibernate.put(io.shardwise.hibernate.ShardwiseSettings.METER_REGISTRY, unique);
        }
      };
    }
  }

  /**
   * Shardwise's observations (docs/operations.md, "Traces") go to the application's
   * {@code ObservationRegistry} when there is one; nothing here loads while Micrometer Observation is
   * not on the class path.
   */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
  static class ObservationConfiguration {
    @Bean
    HibernatePropertiesCustomizer shardwiseObservationRegistryCustomizer(
        ObjectProvider<io.micrometer.observation.ObservationRegistry> registry) {
      return hibernate -> registry.ifUnique(
          unique -> hibernate.put(io.shardwise.hibernate.ShardwiseSettings.OBSERVATION_REGISTRY, unique));
    }
  }

  @Bean
  @ConditionalOnMissingBean(TransactionManager.class)
  public PlatformTransactionManager transactionManager(
      ObjectProvider<TransactionManagerCustomizers> transactionManagerCustomizers, ObjectProvider<ShardedSessions> shards,
      ObjectProvider<ShardwiseConnectionProvider> connections, ShardwiseProperties properties) {
    ShardwiseJpaTransactionManager transactionManager = new ShardwiseJpaTransactionManager();
    transactionManager.setReadYourWrites(shards::getObject, connections::getObject, properties.getRyw().getPinTtlMs());
    transactionManagerCustomizers.ifAvailable(customizers -> customizers.customize(transactionManager));
    return transactionManager;
  }

  @Bean
  @ConditionalOnMissingBean
  public ShardedSessions shardedSessions(EntityManagerFactory entityManagerFactory) {
    ShardedSessions shards = ShardedSessions.of(entityManagerFactory);
    // scatter queries inside @Transactional join its transaction (its shard's part sees its writes)
    shards.joinTransactionsFrom(() -> {
      Object holder = org.springframework.transaction.support.TransactionSynchronizationManager.getResource(
          entityManagerFactory);
      return holder instanceof org.springframework.orm.jpa.EntityManagerHolder em && em.getEntityManager() != null
          ? em.getEntityManager().unwrap(org.hibernate.Session.class) : null;
    });
    return shards;
  }

  @Bean
  public static ShardwiseExceptionTranslator shardwiseExceptionTranslator() {
    return new ShardwiseExceptionTranslator();
  }

  /**
   * {@link WithShard}: ordered first, so the shard context is open before a {@code @Transactional}
   * interceptor on the same method begins the transaction. An infrastructure advisor, so Spring's
   * own auto-proxy creator applies it without AspectJ.
   */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static Advisor shardwiseWithShardAdvisor(ObjectProvider<ShardedSessions> shards,
      ObjectProvider<EntityManagerFactory> entityManagerFactory) {
    DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, WithShard.class, true),
        new WithShardInterceptor(shards::getObject, entityManagerFactory::getObject));
    advisor.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return advisor;
  }

  /**
   * Keeps Boot's open-in-view interceptor out unless the application asked for it by name: it
   * opens an EntityManager when a request starts, before the request's shard is known, and every
   * transaction of the request would join it — on no shard, and never on a replica. The
   * environment default {@code spring.jpa.open-in-view=false} does the same when the shard
   * settings are in the environment at startup; this covers settings added later (e.g. a test's
   * {@code @DynamicPropertySource}).
   */
  @Bean
  public static BeanFactoryPostProcessor shardwiseNoOpenInView(Environment environment) {
    return beanFactory -> {
      if (Boolean.TRUE.equals(environment.getProperty("spring.jpa.open-in-view", Boolean.class))) {
        return;
      }
      if (beanFactory instanceof BeanDefinitionRegistry registry) {
        for (String name : beanFactory.getBeanNamesForType(OpenEntityManagerInViewInterceptor.class, false, false)) {
          registry.removeBeanDefinition(name);
        }
        for (String name : List.of("openEntityManagerInViewInterceptorConfigurer")) {
          if (registry.containsBeanDefinition(name)) {
            registry.removeBeanDefinition(name);
          }
        }
      }
    };
  }

  /** Spring Data pages of queries run on every shard (scatter-gather), for repository fragments. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.data.domain.Page")
  static class ScatterPagesConfiguration {

    /** Lazy: a context without JPA (no EntityManagerFactory, so no ShardedSessions) starts without it. */
    @Bean
    @ConditionalOnMissingBean
    @org.springframework.context.annotation.Lazy
    ScatterPages scatterPages(ShardedSessions shards) {
      return new ScatterPages(shards);
    }
  }

  /** {@code @ScatterGather} on Spring Data JPA repository methods: run on every shard. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.data.jpa.repository.support.JpaRepositoryFactoryBean")
  static class ScatterRepositoryConfiguration {

    @Bean
    static io.shardwise.spring.ScatterRepositoryMethods shardwiseScatterRepositoryMethods(
        ObjectProvider<ShardedSessions> shards) {
      return new io.shardwise.spring.ScatterRepositoryMethods(shards::getObject);
    }
  }

  /** The shard of a web request, from a header, a path variable or a {@link ShardKeyResolver}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(WebMvcConfigurer.class)
  static class WebConfiguration {

    @Bean
    ShardContextInterceptor shardContextInterceptor(ObjectProvider<ShardedSessions> shards,
        ObjectProvider<ShardKeyResolver> resolver, ShardwiseProperties properties) {
      WebProperties web = properties.getWeb();
      return new ShardContextInterceptor(shards::getObject, resolver.getIfUnique(), web.getKeyHeader(),
          web.getKeyPathVariable(), web.getKeyType(), web.getShardHeader());
    }

    @Bean
    WebMvcConfigurer shardContextInterceptorConfigurer(ShardContextInterceptor interceptor,
        ObjectProvider<ConsistencyTokenInterceptor> consistency) {
      return new WebMvcConfigurer() {
        @Override
        public void addInterceptors(InterceptorRegistry registry) {
          registry.addInterceptor(interceptor).order(Ordered.HIGHEST_PRECEDENCE);
          consistency.ifAvailable(c -> registry.addInterceptor(c).order(Ordered.HIGHEST_PRECEDENCE + 1));
        }
      };
    }

    /** Read-your-writes across requests, when a consistency header or cookie is named. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(ConsistencyTokenConfigured.class)
    static class ConsistencyTokenConfiguration {

      @Bean
      ConsistencyTokenInterceptor consistencyTokenInterceptor(ObjectProvider<ShardedSessions> shards,
          ShardwiseProperties properties) {
        if (properties.getRyw().getSecret() == null || properties.getRyw().getSecret().isBlank()) {
          throw new io.shardwise.hibernate.ShardingConfigurationException("shardwise.web.consistency-header / -cookie"
              + " hand out signed consistency tokens, which need shardwise.ryw.secret: set it to 32+ random"
              + " characters, the same on every instance");
        }
        return new ConsistencyTokenInterceptor(shards::getObject, properties.getWeb().getConsistencyHeader(),
            properties.getWeb().getConsistencyCookie());
      }
    }
  }
}
