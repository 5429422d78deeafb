package io.shardwise.spring.boot.test;

import java.util.List;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * {@code @ShardedPostgres} (Shardwise's testkit) on a Spring test class — {@code @SpringBootTest},
 * {@code @DataJpaTest} — starts the topology and gives the application context its
 * {@code shardwise.*} settings: shards {@code s0, s1, ...}, each the primary of testkit shard
 * {@code i} with its replicas, user {@code postgres}. The {@link io.shardwise.testkit.PostgresTopology}
 * is a bean of the context, and the same instance the JUnit extension hands to test methods.
 *
 * <p>Spring keeps a test's application context for later test classes, so the topology must
 * outlive the class: use {@code @ShardedPostgres(scope = RUN)}; a class-scoped one is refused.
 */
public final class ShardedPostgresContextCustomizerFactory implements ContextCustomizerFactory {
  private static final String ANNOTATION = "io.shardwise.testkit.junit.ShardedPostgres";

  @Override
  public ContextCustomizer createContextCustomizer(Class<?> testClass,
      List<ContextConfigurationAttributes> configAttributes) {
    if (!ClassUtils.isPresent(ANNOTATION, testClass.getClassLoader())) {
      return null;
    }
    return Testkit.customizerFor(testClass);
  }

  /** Touches the testkit's classes only once they are known to be present. */
  private static final class Testkit {
    static ContextCustomizer customizerFor(Class<?> testClass) {
      io.shardwise.testkit.junit.ShardedPostgres config = TestContextAnnotationUtils.findMergedAnnotation(testClass,
          io.shardwise.testkit.junit.ShardedPostgres.class);
      if (config == null) {
        return null;
      }
      if (config.scope() != io.shardwise.testkit.junit.ShardedPostgres.Scope.RUN) {
        throw new IllegalStateException("@ShardedPostgres on Spring test " + testClass.getName() + " needs"
            + " scope = ShardedPostgres.Scope.RUN: Spring keeps the application context for later test classes,"
            + " so its PostgreSQL topology must outlive this class");
      }
      return new ShardedPostgresContextCustomizer(config);
    }
  }
}
