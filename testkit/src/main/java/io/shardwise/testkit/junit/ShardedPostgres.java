package io.shardwise.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class a real PostgreSQL topology: {@code shards} primaries, each with
 * {@code replicas} streaming replicas. Test methods, constructors and lifecycle methods receive it
 * as a {@link io.shardwise.testkit.PostgresTopology} parameter, or a single server as a
 * {@link javax.sql.DataSource}, JDBC URL {@code String} or {@link io.shardwise.testkit.PostgresNode}
 * parameter annotated with {@link Node}.
 *
 * <pre>{@code
 * @ShardedPostgres(shards = 2, replicas = 1)
 * class ReplicaReadTest {
 *   @Test
 *   void seesCommittedRows(@Node(shard = 0) DataSource primary, @Node(shard = 0, replica = 0) DataSource replica) { ... }
 * }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(ShardedPostgresExtension.class)
public @interface ShardedPostgres {

  int shards() default 1;

  int replicas() default 0;

  /** Extra postgresql.conf lines for every instance, as {@code "name=value"}. */
  String[] settings() default {};

  /**
   * {@link Scope#CLASS}: the topology belongs to this test class and stops after it; tests may
   * kill, pause or delay its servers. {@link Scope#RUN}: one topology per distinct configuration is
   * shared by every class of the test run that asks for the same one, and stops when the run ends;
   * tests must leave it as they found it.
   */
  Scope scope() default Scope.CLASS;

  enum Scope { CLASS, RUN }
}
