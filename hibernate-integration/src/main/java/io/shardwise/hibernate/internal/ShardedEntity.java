package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.routing.ShardKeyType;

/**
 * What Shardwise knows of one entity: sharded (with its key attribute and co-location group) or a
 * reference table.
 *
 * @param keyAttribute the {@code @ShardKey} attribute's name, null for reference tables
 * @param keyIsIdentifier whether the shard key is the entity's id
 * @param group the entity name at the root of its co-location group (itself when not co-located)
 */
public record ShardedEntity(String entityName, Class<?> javaType, boolean reference, String keyAttribute,
    boolean keyIsIdentifier, ShardKeyType keyType, String group) {

  public static ShardedEntity reference(String entityName, Class<?> javaType) {
    return new ShardedEntity(entityName, javaType, true, null, false, null, null);
  }

  /** The entity's {@code @ReadYourWrites}, or null. */
  public io.shardwise.annotations.ReadYourWrites readYourWrites() {
    return javaType.getAnnotation(io.shardwise.annotations.ReadYourWrites.class);
  }

  public String simpleName() {
    return javaType.getSimpleName();
  }
}
