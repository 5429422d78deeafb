package io.shardwise.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Picks one server of the {@link ShardedPostgres} topology for a {@code DataSource}, {@code String}
 * (JDBC URL) or {@code PostgresNode} parameter: the primary of {@code shard} by default, or its
 * replica number {@code replica} (from 0).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface Node {

  int shard() default 0;

  /** -1 for the primary, otherwise the replica's index. */
  int replica() default -1;
}
