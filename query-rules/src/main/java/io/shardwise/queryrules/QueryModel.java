package io.shardwise.queryrules;

/**
 * What the {@link ShardKeyRule} needs to know about the entities a query names, and nothing more.
 * The annotation processor answers from source elements, the runtime from Hibernate's mapping
 * metadata; neither depends on the other's model.
 */
public interface QueryModel {

  /**
   * The entity a query names in a FROM or JOIN, by entity name or fully qualified class name;
   * null when the name is not an entity of this model.
   */
  Entity entity(String queryName);

  /** One entity, as the rule sees it. */
  interface Entity {

    /** The class's simple name, for messages. */
    String simpleName();

    /**
     * The name of the attribute that carries the shard key; null for a reference table, an
     * entity that is not sharded, or a sharded entity whose key is missing or ambiguous (the
     * model checks report those).
     */
    String shardKey();

    /**
     * A value equal for every entity of one co-location group (the group's root), or null when
     * the group cannot be told (a broken {@code @CoLocated} chain).
     */
    Object group();

    /** Whether the entity has a persistent attribute of this name. */
    boolean hasAttribute(String attribute);

    /** The entity an association attribute leads to; null for any other attribute. */
    Entity associationTarget(String attribute);

    /**
     * The name of the identifier attribute ({@code @Id}); null when the model cannot tell (an
     * embedded or composite id). An entity compared as a whole ({@code x.realm = :realm}) is
     * compared by this attribute.
     */
    default String identifier() {
      return null;
    }
  }
}
