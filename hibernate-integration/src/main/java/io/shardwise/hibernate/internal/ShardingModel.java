package io.shardwise.hibernate.internal;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ReferenceTable;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.routing.ShardKeyType;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.boot.Metadata;
import org.hibernate.mapping.Collection;
import org.hibernate.mapping.OneToMany;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.ToOne;
import org.hibernate.mapping.Value;

/**
 * The sharding model of a persistence unit, read from the entity annotations when the session
 * factory starts. Building it checks every rule and reports every violation at once, each naming
 * the entity and attribute and saying how to fix it.
 */
public final class ShardingModel {
  private final Map<String, ShardedEntity> byEntityName;
  private final Map<Class<?>, ShardedEntity> byClass;
  private final Map<String, String> entityOfTable;
  private final Map<String, Origin> origins;
  private final RoutingMetadata routing;
  private final List<TablePlacement> tables;
  private final List<String> tablesWithoutShardKey;
  private final Map<String, List<KeyPath>> keyPaths;

  /**
   * Where the rows of one entity live in the database: its table, and for a sharded entity the
   * column holding its shard key (what an online move filters and checksums by).
   *
   * @param keyColumn the shard key column, null for a reference table
   */
  public record TablePlacement(String entityName, String table, String keyColumn, ShardKeyType keyType,
      boolean reference, String group) {}

  /** Where the model of an entity was read from. */
  public enum Origin {
    /** The routing metadata {@code shardwise-processor} generated at build time. */
    METADATA,
    /** The entity class's annotations, by reflection (the processor did not run on it). */
    REFLECTION
  }

  /** What one entity class declares, from generated metadata or from its annotations. */
  private record Declared(boolean reference, List<String> keyNames, String keyAttribute, Class<?> keyJavaType,
      String keyTypeName, String coLocatedWith, List<String> via, String listedIn, Origin origin) {
  }

  private ShardingModel(Map<String, ShardedEntity> byEntityName, Map<String, String> entityOfTable,
      Map<String, Origin> origins, RoutingMetadata routing, List<TablePlacement> tables,
      List<String> tablesWithoutShardKey, Map<String, List<KeyPath>> keyPaths) {
    this.keyPaths = Map.copyOf(keyPaths);
    this.tables = List.copyOf(tables);
    this.tablesWithoutShardKey = List.copyOf(tablesWithoutShardKey);
    this.byEntityName = Map.copyOf(byEntityName);
    this.entityOfTable = Map.copyOf(entityOfTable);
    this.origins = Map.copyOf(origins);
    this.routing = routing;
    Map<Class<?>, ShardedEntity> classes = new HashMap<>();
    byEntityName.values().forEach(e -> classes.put(e.javaType(), e));
    this.byClass = Map.copyOf(classes);
  }

  public ShardedEntity byEntityName(String entityName) {
    return byEntityName.get(entityName);
  }

  /** The entity model of a class or its nearest mapped superclass. */
  public ShardedEntity byClass(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      ShardedEntity e = byClass.get(c);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  /**
   * How a co-located entity reaches the entity whose key it holds: its {@code @CoLocated(via)}
   * paths in the declared order, or its one {@code listedIn} collection; empty when it declares none.
   */
  public List<KeyPath> keyPaths(String entityName) {
    return keyPaths.getOrDefault(entityName, List.of());
  }

  /** The simple name of the entity mapped to a table (lower-case, without schema), or null. */
  public String entityOfTable(String table) {
    return entityOfTable.get(table);
  }

  public java.util.Collection<ShardedEntity> entities() {
    return byEntityName.values();
  }

  /** The table of every entity (one per table), with its shard key column where it is sharded. */
  public List<TablePlacement> tables() {
    return tables;
  }

  /**
   * Tables of sharded entities that hold no shard key column (joined-inheritance subclass tables,
   * collection tables): their rows cannot be selected by bucket, so an online move cannot carry them.
   */
  public List<String> tablesWithoutShardKey() {
    return tablesWithoutShardKey;
  }

  /** Whether an entity's model came from generated routing metadata or from reflection; null if unknown. */
  Origin origin(String entityName) {
    return origins.get(entityName);
  }

  /**
   * The parameter of a named query that carries the shard key, as the processor found it
   * ({@code key = :parameter}); null when it could not tell or did not run.
   */
  public String shardKeyParameter(String namedQuery) {
    return routing.shardKeyParameter(namedQuery);
  }

  /**
   * Builds the model, reading each entity from the routing metadata {@code shardwise-processor}
   * generated ({@link RoutingMetadata#RESOURCE} on the entity classes' class loaders) and, for
   * entities it does not list, from their annotations by reflection.
   */
  public static ShardingModel build(Metadata metadata, String unitName) {
    Set<ClassLoader> loaders = new LinkedHashSet<>();
    metadata.getEntityBindings().forEach(pc -> {
      if (pc.getMappedClass() != null) {
        loaders.add(pc.getMappedClass().getClassLoader());
      }
    });
    return build(metadata, unitName, RoutingMetadata.load(loaders));
  }

  static ShardingModel build(Metadata metadata, String unitName, RoutingMetadata routing) {
    List<String> problems = new ArrayList<>();
    Map<String, PersistentClass> bindings = new LinkedHashMap<>();
    metadata.getEntityBindings().forEach(pc -> bindings.put(pc.getEntityName(), pc));
    Map<String, Origin> origins = new HashMap<>();

    Map<String, ShardedEntity> entities = new LinkedHashMap<>();
    Map<String, String> coLocatedWith = new HashMap<>();
    Map<String, Declared> withPaths = new LinkedHashMap<>();
    for (PersistentClass pc : bindings.values()) {
      Class<?> type = pc.getMappedClass();
      if (type == null) {
        problems.add(pc.getEntityName() + ": dynamic-map entities cannot be sharded; map it to a Java class");
        continue;
      }
      String name = type.getSimpleName();
      Declared declared = routing.lists(type) ? fromMetadata(type, routing) : byReflection(type);
      origins.put(pc.getEntityName(), declared.origin());
      boolean reference = declared.reference();
      List<String> keys = declared.keyNames();
      String coLocated = declared.coLocatedWith();
      if (reference) {
        if (!keys.isEmpty()) {
          problems.add("[ReferenceWithShardKey] " + name + " is a @ReferenceTable (copied to every shard) but "
              + keys.get(0) + " carries @ShardKey: remove one of the two");
        }
        if (coLocated != null) {
          problems.add("[ReferenceCoLocated] " + name + " is a @ReferenceTable and cannot be @CoLocated: it is on every shard");
        }
        entities.put(pc.getEntityName(), ShardedEntity.reference(pc.getEntityName(), type));
        continue;
      }
      if (keys.isEmpty()) {
        problems.add("[ShardKeyMissing] " + name + " has no @ShardKey: mark the attribute that picks its shard (e.g. "
            + "the merchant id), or annotate the class @ReferenceTable if it is small and belongs on every shard");
        continue;
      }
      if (keys.size() > 1) {
        problems.add("[ShardKeyDuplicate] " + name + " has @ShardKey on " + keys
            + ": exactly one attribute picks the shard");
        continue;
      }
      String attribute = declared.keyAttribute();
      ShardKeyType keyType = declared.keyJavaType() == null ? null : ShardKeyType.forJavaType(declared.keyJavaType());
      if (keyType == null) {
        problems.add("[ShardKeyType] " + name + "." + attribute + " is a " + declared.keyTypeName()
            + "; a shard key must be long, int, short, String or UUID (or a wrapper)");
        continue;
      }
      boolean isId = pc.getIdentifierProperty() != null && pc.getIdentifierProperty().getName().equals(attribute);
      if (!isId && !hasProperty(pc, attribute)) {
        problems.add("[ShardKeyNotMapped] " + name + "." + attribute + " carries @ShardKey but is not a mapped"
            + " persistent attribute; the key must be stored in the row");
        continue;
      }
      if (coLocated != null) {
        coLocatedWith.put(pc.getEntityName(), coLocated);
        boolean via = !declared.via().isEmpty();
        boolean listed = declared.listedIn() != null && !declared.listedIn().isEmpty();
        if (via && listed) {
          problems.add("[KeyPath] " + name + " is @CoLocated with both via and listedIn: keep the one that"
              + " leads to " + simpleClass(coLocated));
        } else if (via || listed) {
          withPaths.put(pc.getEntityName(), declared);
        }
      }
      entities.put(pc.getEntityName(), new ShardedEntity(pc.getEntityName(), type, false, attribute, isId, keyType,
          pc.getEntityName()));
    }

    // co-location groups: follow @CoLocated to the root; the root's key type must match
    Map<String, String> entityNameOfClass = new HashMap<>();
    entities.values().forEach(e -> entityNameOfClass.put(e.javaType().getName(), e.entityName()));
    for (Map.Entry<String, String> link : coLocatedWith.entrySet()) {
      ShardedEntity entity = entities.get(link.getKey());
      String root = link.getKey();
      List<String> seen = new ArrayList<>();
      String problem = null;
      while (coLocatedWith.containsKey(root)) {
        seen.add(root);
        String targetClass = coLocatedWith.get(root);
        String target = entityNameOfClass.get(targetClass);
        if (target == null || entities.get(target).reference()) {
          problem = "[CoLocatedTarget] " + simple(entities, root) + " is @CoLocated(with = " + simpleClass(targetClass)
              + ".class), which is not a sharded entity of this persistence unit: name an entity with a @ShardKey";
          break;
        }
        if (seen.contains(target)) {
          problem = "[CoLocatedCycle] @CoLocated forms a cycle through " + seen + ": one entity of the group must"
              + " be the root (no @CoLocated)";
          break;
        }
        root = target;
      }
      if (problem != null) {
        if (!problems.contains(problem)) {
          problems.add(problem);
        }
        continue;
      }
      ShardedEntity rootEntity = entities.get(root);
      if (rootEntity.keyType() != entity.keyType()) {
        problems.add("[CoLocatedKeyType] " + entity.simpleName() + "." + entity.keyAttribute() + " is a "
            + entity.keyType() + " key but " + rootEntity.simpleName() + "." + rootEntity.keyAttribute()
            + ", whose shard it shares, is " + rootEntity.keyType() + ": co-located keys must have the same type");
      }
      entities.put(entity.entityName(), new ShardedEntity(entity.entityName(), entity.javaType(), false,
          entity.keyAttribute(), entity.keyIsIdentifier(), entity.keyType(), root));
    }

    Map<String, List<KeyPath>> keyPaths = new HashMap<>();
    withPaths.forEach((entityName, declared) -> {
      String with = entityNameOfClass.get(coLocatedWith.get(entityName));
      PersistentClass start = bindings.get(entityName);
      if (with == null) {
        return;
      }
      List<KeyPath> paths = new ArrayList<>();
      if (declared.via().isEmpty()) {
        paths.add(KeyPath.listedIn(start, declared.listedIn(), bindings.get(with), problems));
      } else {
        for (String via : declared.via()) {
          paths.add(KeyPath.resolve(start, via, with, bindings, problems));
        }
      }
      if (!paths.contains(null)) {
        keyPaths.put(entityName, List.copyOf(paths));
      }
    });

    // associations
    for (PersistentClass pc : bindings.values()) {
      ShardedEntity from = entities.get(pc.getEntityName());
      if (from == null) {
        continue;
      }
      for (Property property : pc.getPropertyClosure()) {
        String target = associatedEntity(property.getValue());
        ShardedEntity to = target == null ? null : entities.get(target);
        if (to == null || to.reference()) {
          continue;
        }
        String where = from.simpleName() + "." + property.getName() + " -> " + to.simpleName();
        if (from.reference()) {
          problems.add("[ReferenceToSharded] " + where + ": a @ReferenceTable is on every shard but "
              + to.simpleName() + " lives on one; store its key as a plain column instead of an association");
        } else if (!from.group().equals(to.group())) {
          problems.add("[AssociationAcrossShards] " + where + ": " + from.simpleName() + " and " + to.simpleName()
              + " are not co-located, so the association could point to another shard. Add @CoLocated(with = "
              + simple(entities, to.group()) + ".class) with the same key, or store the id as a plain column");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new ShardingConfigurationException("Sharding model of persistence unit '" + unitName + "' is invalid:\n  - "
          + String.join("\n  - ", problems));
    }
    Map<String, String> tables = new HashMap<>();
    for (PersistentClass pc : bindings.values()) {
      if (pc.getTable() != null && pc.getMappedClass() != null) {
        String table = pc.getTable().getName().replace("\"", "").replace("`", "").toLowerCase(java.util.Locale.ROOT);
        tables.putIfAbsent(table, pc.getMappedClass().getSimpleName());
      }
    }
    List<TablePlacement> placements = new ArrayList<>();
    List<String> withoutKey = new ArrayList<>();
    Set<String> placed = new java.util.HashSet<>();
    for (PersistentClass pc : bindings.values()) {
      ShardedEntity entity = entities.get(pc.getEntityName());
      if (entity == null || pc.getTable() == null) {
        continue;
      }
      String table = physicalName(pc.getTable().getName(), pc.getTable().isQuoted());
      if (entity.reference()) {
        if (placed.add(table)) {
          placements.add(new TablePlacement(entity.entityName(), table, null, null, true, null));
        }
        continue;
      }
      org.hibernate.mapping.Value keyValue = entity.keyIsIdentifier() ? pc.getIdentifier()
          : pc.getProperty(entity.keyAttribute()).getValue();
      List<org.hibernate.mapping.Column> keyColumns = keyValue.getColumns();
      if (keyColumns.size() != 1) {
        withoutKey.add(table + " (the shard key of " + entity.simpleName() + " spans " + keyColumns.size() + " columns)");
        continue;
      }
      org.hibernate.mapping.Column column = keyColumns.get(0);
      if (placed.add(table)) {
        placements.add(new TablePlacement(entity.entityName(), table, physicalName(column.getName(), column.isQuoted()),
            entity.keyType(), false, entity.group()));
      }
      if (pc.getRootTable() != pc.getTable() && pc.getRootTable() != null) {
        withoutKey.add(table + " (a joined subclass table of " + entity.simpleName() + ")");
      }
    }
    metadata.getCollectionBindings().forEach(collection -> {
      ShardedEntity owner = entities.get(collection.getOwnerEntityName());
      if (owner != null && !owner.reference() && collection.getCollectionTable() != null
          && !(collection.getElement() instanceof OneToMany)) {
        withoutKey.add(physicalName(collection.getCollectionTable().getName(), collection.getCollectionTable().isQuoted())
            + " (collection " + collection.getRole() + ")");
      }
    });
    return new ShardingModel(entities, tables, origins, routing, placements, withoutKey, keyPaths);
  }

  /** The name as PostgreSQL stores it: unquoted identifiers fold to lower case. */
  private static String physicalName(String name, boolean quoted) {
    String bare = name.replace("\"", "").replace("`", "");
    return quoted ? bare : bare.toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether the entity maps this attribute ({@link PersistentClass#getProperty} throws when it does not). */
  private static boolean hasProperty(PersistentClass pc, String attribute) {
    try {
      return pc.getProperty(attribute) != null;
    } catch (org.hibernate.MappingException e) {
      return false;
    }
  }

  private static Declared byReflection(Class<?> type) {
    List<AnnotatedElement> members = shardKeyMembers(type);
    List<String> keys = members.stream().map(ShardingModel::memberName).toList();
    AnnotatedElement key = members.size() == 1 ? members.get(0) : null;
    Class<?> keyJavaType = key == null ? null
        : key instanceof Field f ? f.getType() : ((Method) key).getReturnType();
    CoLocated coLocated = type.getAnnotation(CoLocated.class);
    return new Declared(type.isAnnotationPresent(ReferenceTable.class), keys, key == null ? null : attributeName(key),
        keyJavaType, keyJavaType == null ? null : keyJavaType.getName(),
        coLocated == null ? null : coLocated.with().getName(), coLocated == null ? List.of() : viaPaths(coLocated.via()),
        coLocated == null ? null : coLocated.listedIn(), Origin.REFLECTION);
  }

  private static Declared fromMetadata(Class<?> type, RoutingMetadata routing) {
    String key = routing.shardKey(type);
    String keyTypeName = routing.keyType(type);
    return new Declared(routing.reference(type), key == null ? List.of() : List.of(key), key,
        keyTypeName == null ? null : KEY_TYPES.get(keyTypeName), keyTypeName, routing.coLocatedWith(type),
        viaPaths(routing.keyPath(type) == null ? new String[0] : routing.keyPath(type).split(",")),
        routing.listedIn(type), Origin.METADATA);
  }

  /** The declared paths, in order; none for {@code via = ""}, as a single String element used to say it. */
  private static List<String> viaPaths(String[] declared) {
    return declared.length == 1 && declared[0].isEmpty() ? List.of() : List.of(declared);
  }

  /** The key type names the processor writes, as the Java types the runtime hashes. */
  private static final Map<String, Class<?>> KEY_TYPES = Map.of("long", long.class, "int", int.class,
      "short", short.class, "String", String.class, "UUID", java.util.UUID.class);

  /** The entity an association points to (to-one, or the element of a collection), or null for a plain value. */
  public static String associatedEntity(Value value) {
    if (value instanceof ToOne toOne) {
      return toOne.getReferencedEntityName();
    }
    if (value instanceof Collection collection) {
      Value element = collection.getElement();
      if (element instanceof OneToMany oneToMany) {
        return oneToMany.getReferencedEntityName();
      }
      if (element instanceof ToOne toOne) {
        return toOne.getReferencedEntityName();
      }
    }
    return null;
  }

  private static List<AnnotatedElement> shardKeyMembers(Class<?> type) {
    List<AnnotatedElement> found = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (f.isAnnotationPresent(ShardKey.class)) {
          found.add(f);
        }
      }
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(ShardKey.class) && !m.isBridge()) {
          found.add(m);
        }
      }
    }
    return found;
  }

  private static String attributeName(AnnotatedElement member) {
    if (member instanceof Field f) {
      return f.getName();
    }
    String n = ((Method) member).getName();
    String bare = n.startsWith("get") ? n.substring(3) : n.startsWith("is") ? n.substring(2) : n;
    return bare.isEmpty() ? n : Character.toLowerCase(bare.charAt(0)) + bare.substring(1);
  }

  private static String memberName(AnnotatedElement member) {
    return member instanceof Field f ? f.getName() : ((Method) member).getName() + "()";
  }

  private static String simple(Map<String, ShardedEntity> entities, String entityName) {
    ShardedEntity e = entities.get(entityName);
    return e == null ? entityName : e.simpleName();
  }

  private static String simpleClass(String className) {
    return className.substring(className.lastIndexOf('.') + 1);
  }
}
