package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A small table copied in full to every shard: countries, currencies, tax rates. Any shard session
 * reads it locally, and sharded entities may reference it.
 *
 * <p>Writes must reach every copy atomically, so a shard session refuses to insert, update or
 * delete a reference entity; write through Shardwise's reference-table API, which applies the same
 * change to every shard in one transaction. A reference table has no {@link ShardKey} and must not
 * reference a sharded entity (which lives on one shard only).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ReferenceTable {}
