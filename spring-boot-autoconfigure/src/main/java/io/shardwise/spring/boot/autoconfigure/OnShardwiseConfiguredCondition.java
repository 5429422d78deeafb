package io.shardwise.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when the environment configures shards: {@code shardwise.shards} or {@code shardwise.control.url}. */
final class OnShardwiseConfiguredCondition extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    return ShardwiseEnvironmentPostProcessor.configured(context.getEnvironment())
        ? ConditionOutcome.match("shardwise.shards or shardwise.control.url is set")
        : ConditionOutcome.noMatch("neither shardwise.shards nor shardwise.control.url is set");
  }
}
