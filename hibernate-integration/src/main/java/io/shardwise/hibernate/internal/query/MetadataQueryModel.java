package io.shardwise.hibernate.internal.query;

import io.shardwise.queryrules.QueryModel;
import io.shardwise.queryrules.TableModel;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.boot.Metadata;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;

/**
 * The {@link QueryModel} of a persistence unit at run time: shard keys, groups and reference
 * tables from the checked {@link ShardingModel}; names, attributes and associations from
 * Hibernate's mapping metadata. Built once when the session factory starts; immutable after.
 */
final class MetadataQueryModel implements QueryModel, TableModel {

  private final Map<String, MappedEntity> byName = new HashMap<>();
  /** Each entity's table by its lower-case name, for native SQL. */
  private final Map<String, MappedTable> tables = new HashMap<>();
  private final Map<Entity, ShardedEntity> sharded = new java.util.IdentityHashMap<>();

  MetadataQueryModel(Metadata metadata, ShardingModel sharding) {
    Map<String, MappedEntity> byEntityName = new HashMap<>();
    for (PersistentClass pc : metadata.getEntityBindings()) {
      ShardedEntity sharded = sharding.byEntityName(pc.getEntityName());
      String simple = pc.getMappedClass() != null
          ? pc.getMappedClass().getSimpleName()
          : pc.getEntityName().substring(pc.getEntityName().lastIndexOf('.') + 1);
      MappedEntity entity = new MappedEntity(simple,
          sharded == null || sharded.reference() ? null : sharded.keyAttribute(),
          sharded == null ? null : sharded.group(),
          pc.getIdentifierProperty() == null ? null : pc.getIdentifierProperty().getName());
      if (pc.getIdentifierProperty() != null) {
        entity.attributes.add(pc.getIdentifierProperty().getName());
      }
      for (Property property : pc.getPropertyClosure()) {
        entity.attributes.add(property.getName());
      }
      byEntityName.put(pc.getEntityName(), entity);
      byName.put(pc.getEntityName(), entity);
      if (pc.getJpaEntityName() != null) {
        byName.put(pc.getJpaEntityName(), entity);
      }
      if (pc.getMappedClass() != null) {
        byName.put(pc.getMappedClass().getName(), entity);
      }
    }
    metadata.getImports().forEach((imported, entityName) -> {
      MappedEntity entity = byEntityName.get(entityName);
      if (entity != null) {
        byName.putIfAbsent(imported, entity);
      }
    });
    for (ShardingModel.TablePlacement placement : sharding.tables()) {
      MappedEntity entity = byEntityName.get(placement.entityName());
      if (entity != null) {
        boolean keyed = !placement.reference() && placement.keyColumn() != null;
        tables.put(lower(placement.table()), new MappedTable(entity,
            keyed ? List.of(lower(placement.keyColumn())) : List.of(),
            keyed ? parentLink(metadata, sharding, placement.entityName(), byEntityName) : null));
        sharded.put(entity, sharding.byEntityName(placement.entityName()));
      }
    }
    for (PersistentClass pc : metadata.getEntityBindings()) {
      MappedEntity from = byEntityName.get(pc.getEntityName());
      for (Property property : pc.getPropertyClosure()) {
        String target = ShardingModel.associatedEntity(property.getValue());
        if (target != null && byEntityName.containsKey(target)) {
          from.associations.put(property.getName(), byEntityName.get(target));
        }
      }
    }
  }

  /**
   * The foreign key of the first hop of the entity's only {@code @CoLocated(via)} path, as mapped: a
   * to-one association with one column, referring to one column of its target. Null otherwise.
   */
  private static ParentLink parentLink(Metadata metadata, ShardingModel sharding, String entityName,
      Map<String, MappedEntity> byEntityName) {
    // a row with several possible parents follows none of them: which one holds it is per row
    List<io.shardwise.hibernate.internal.KeyPath> paths = sharding.keyPaths(entityName);
    io.shardwise.hibernate.internal.KeyPath path = paths.size() == 1 ? paths.get(0) : null;
    PersistentClass child = metadata.getEntityBinding(entityName);
    if (path == null || path.hops().isEmpty() || child == null) {
      return null;
    }
    org.hibernate.mapping.Value hop;
    try {
      hop = child.getProperty(path.hops().get(0)).getValue();
    } catch (org.hibernate.MappingException notMapped) {
      return null;
    }
    if (!(hop instanceof org.hibernate.mapping.ToOne toOne) || hop.getColumns().size() != 1) {
      return null;
    }
    PersistentClass parent = metadata.getEntityBinding(toOne.getReferencedEntityName());
    MappedEntity parentEntity = parent == null ? null : byEntityName.get(parent.getEntityName());
    if (parentEntity == null) {
      return null;
    }
    List<org.hibernate.mapping.Column> referenced = toOne.getReferencedPropertyName() == null
        ? parent.getIdentifier().getColumns()
        : parent.getReferencedProperty(toOne.getReferencedPropertyName()).getValue().getColumns();
    if (referenced.size() != 1) {
      return null;
    }
    return new ParentLink(List.of(lower(hop.getColumns().get(0).getName())), parentEntity,
        List.of(lower(referenced.get(0).getName())));
  }

  @Override
  public Entity entity(String queryName) {
    return byName.get(queryName);
  }

  @Override
  public MappedTable table(String lowerCaseName) {
    return tables.get(lowerCaseName);
  }

  /** The sharding model's entity behind a table's entity, for the value checks. */
  ShardedEntity shardedOf(Entity entity) {
    return sharded.get(entity);
  }

  private static String lower(String name) {
    String bare = name.startsWith("\"") && name.endsWith("\"") && name.length() > 1
        ? name.substring(1, name.length() - 1) : name;
    return bare.toLowerCase(java.util.Locale.ROOT);
  }

  private static final class MappedEntity implements Entity {
    private final String simpleName;
    private final String shardKey;
    private final String group;
    private final Set<String> attributes = new HashSet<>();
    private final Map<String, MappedEntity> associations = new HashMap<>();
    private final String identifier;

    MappedEntity(String simpleName, String shardKey, String group, String identifier) {
      this.simpleName = simpleName;
      this.shardKey = shardKey;
      this.group = group;
      this.identifier = identifier;
    }

    @Override
    public String identifier() {
      return identifier;
    }

    @Override
    public String simpleName() {
      return simpleName;
    }

    @Override
    public String shardKey() {
      return shardKey;
    }

    @Override
    public Object group() {
      return group;
    }

    @Override
    public boolean hasAttribute(String attribute) {
      return attributes.contains(attribute);
    }

    @Override
    public Entity associationTarget(String attribute) {
      return associations.get(attribute);
    }
  }
}
