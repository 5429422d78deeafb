package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.ShardingConfigurationException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;

/** What the auto-configuration does without shards configured, and how a bad setting is reported. */
class ShardwiseAutoConfigurationConditionsTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ShardwiseAutoConfiguration.class));

  @Test
  void anApplicationWithoutShardwiseSettingsIsUntouched() {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).doesNotHaveBean(ShardedSessions.class);
      assertThat(context).doesNotHaveBean(ShardContextDataSource.class);
      assertThat(context).doesNotHaveBean(ShardwiseProperties.class);
    });
  }

  @Test
  void shardsInEitherFormOrAControlDatabaseTurnItOn() {
    assertThat(ShardwiseEnvironmentPostProcessor.configured(new MockEnvironment())).isFalse();
    assertThat(ShardwiseEnvironmentPostProcessor.configured(new MockEnvironment().withProperty("shardwise.shards", "s0,s1")))
        .isTrue();
    assertThat(ShardwiseEnvironmentPostProcessor.configured(new MockEnvironment().withProperty("shardwise.shards[0]", "s0")))
        .isTrue();
    assertThat(ShardwiseEnvironmentPostProcessor.configured(
        new MockEnvironment().withProperty("shardwise.control.url", "jdbc:postgresql://control/db"))).isTrue();
  }

  @Test
  void aShardwiseApplicationDefaultsToNoOpenInViewAndNoHibernateSchemaTool() {
    MockEnvironment environment = new MockEnvironment().withProperty("shardwise.shards", "s0")
        .withProperty("spring.jpa.hibernate.ddl-auto", "validate");
    new ShardwiseEnvironmentPostProcessor().postProcessEnvironment(environment, new org.springframework.boot.SpringApplication());
    assertThat(environment.getProperty("spring.jpa.open-in-view")).isEqualTo("false");
    assertThat(environment.getProperty("spring.jpa.hibernate.ddl-auto")).isEqualTo("validate");
    MockEnvironment plain = new MockEnvironment();
    new ShardwiseEnvironmentPostProcessor().postProcessEnvironment(plain, new org.springframework.boot.SpringApplication());
    assertThat(plain.getProperty("spring.jpa.open-in-view")).isNull();
  }

  @Test
  void aContextWithoutJpaStartsWithSeedScriptsConfigured() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ShardwiseSqlInitializationAutoConfiguration.class))
        .withBean(ShardwiseProperties.class)
        .withPropertyValues("shardwise.shards=s0", "shardwise.shard.s0.url=jdbc:postgresql://unused/0",
            "shardwise.sql.init.locations=classpath:seed/data.sql", "spring.sql.init.data-locations=classpath:seed/data.sql")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(ReferenceDataInitializer.class);
          assertThat(context).doesNotHaveBean(ShardedSqlInitializer.class);
        });
  }

  @Test
  void aConsistencyTokenWithoutASigningSecretStopsTheStartWithWhatToSet() {
    new org.springframework.boot.test.context.runner.WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ShardwiseAutoConfiguration.class))
        .withPropertyValues("shardwise.shards=s0", "shardwise.web.consistency-header=X-Consistency-Token")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).rootCause().isInstanceOf(ShardingConfigurationException.class)
              .hasMessageContaining("need shardwise.ryw.secret");
        });
  }

  @Test
  void aBadSettingIsAnalysedWithShardwisesOwnMessage() throws java.io.IOException {
    ShardingConfigurationException cause = new ShardingConfigurationException(
        "Shardwise configuration of persistence unit 'default' is invalid:\n  - shardwise.shard.s0.url = 'x' is not a PostgreSQL JDBC URL");
    FailureAnalysis analysis = new ShardingConfigurationFailureAnalyzer()
        .analyze(new IllegalStateException("Failed to build EntityManagerFactory", cause));
    assertThat(analysis.getDescription()).contains("shardwise.shard.s0.url = 'x' is not a PostgreSQL JDBC URL");
    assertThat(analysis.getAction()).contains("shardwise.*");
    java.util.Properties factories = org.springframework.core.io.support.PropertiesLoaderUtils.loadProperties(
        new org.springframework.core.io.ClassPathResource("/META-INF/spring.factories", ShardwiseAutoConfiguration.class));
    assertThat(factories.getProperty("org.springframework.boot.diagnostics.FailureAnalyzer"))
        .contains(ShardingConfigurationFailureAnalyzer.class.getName());
  }
}
