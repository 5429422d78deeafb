package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardingConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Startup failures caused by Shardwise settings: the problems as Shardwise listed them, and where to fix them. */
public final class ShardingConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<ShardingConfigurationException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ShardingConfigurationException cause) {
    return new FailureAnalysis("Shardwise could not start the sharded EntityManagerFactory:\n" + cause.getMessage(),
        "Correct the settings named above: shardwise.* in application.properties / application.yml (every"
            + " property is listed in docs/spring-boot.md and offered by your IDE's completion), or the entity"
            + " annotations the message names.", cause);
  }
}
