package io.shardwise.spring.boot.autoconfigure;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when shardwise.sql.init.locations lists scripts. */
final class ReferenceDataConfigured extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
    boolean any = Binder.get(context.getEnvironment()).bind("shardwise.sql.init.locations", Bindable.listOf(String.class))
        .map(List::isEmpty).map(empty -> !empty).orElse(false);
    return any ? ConditionOutcome.match("shardwise.sql.init.locations is set")
        : ConditionOutcome.noMatch("no shardwise.sql.init.locations");
  }
}
