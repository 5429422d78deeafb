package io.shardwise.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/** Matches when shardwise.web.consistency-header or shardwise.web.consistency-cookie names where the token travels. */
final class ConsistencyTokenConfigured extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    boolean header = StringUtils.hasText(context.getEnvironment().getProperty("shardwise.web.consistency-header"));
    boolean cookie = StringUtils.hasText(context.getEnvironment().getProperty("shardwise.web.consistency-cookie"));
    return header || cookie ? ConditionOutcome.match("a consistency token header or cookie is named")
        : ConditionOutcome.noMatch("no shardwise.web.consistency-header or -cookie");
  }
}
