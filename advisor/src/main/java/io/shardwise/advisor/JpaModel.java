package io.shardwise.advisor;

import io.shardwise.queryrules.ShardKeyRule;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An application's entities as the advisor sees them: names, tables, ids, associations and the
 * queries they declare. Read from compiled classes by {@link JpaModelReader}; nothing here knows
 * sharding.
 */
final class JpaModel {

  /** How an attribute is mapped. */
  enum Kind { BASIC, TO_ONE, ONE_TO_MANY, MANY_TO_MANY }

  /**
   * One persistent attribute.
   *
   * @param target for an association, the entity class name it leads to, else null
   * @param column the column of a basic attribute, the join column of an owning to-one or of a
   *     unidirectional {@code @OneToMany @JoinColumn} (a column of the target's table), else null
   * @param mappedBy the inverse side's {@code mappedBy}, else null
   * @param mandatory whether the mapping says it is never null ({@code optional = false},
   *     {@code nullable = false}, or an id)
   */
  record Attribute(String name, Kind kind, Class<?> javaType, String target, String column,
      String mappedBy, boolean unique, boolean mandatory) {

    boolean owningToOne() {
      return kind == Kind.TO_ONE && mappedBy == null;
    }

    boolean listsWithJoinColumn() {
      return kind == Kind.ONE_TO_MANY && mappedBy == null && column != null;
    }
  }

  /**
   * A query the application declares; {@code implicitRoot} is the entity a query without FROM
   * clause reads (a repository's), or null.
   */
  static final class DeclaredQuery {
    private final String name;
    private final String text;
    private final boolean nativeSql;
    private final Entity implicitRoot;
    private ShardKeyRule.Parsed parsed;
    private boolean parseTried;

    DeclaredQuery(String name, String text, boolean nativeSql, Entity implicitRoot) {
      this.name = name;
      this.text = text;
      this.nativeSql = nativeSql;
      this.implicitRoot = implicitRoot;
    }

    String name() {
      return name;
    }

    String text() {
      return text;
    }

    boolean nativeSql() {
      return nativeSql;
    }

    Entity implicitRoot() {
      return implicitRoot;
    }

    /** The query parsed once for every candidate root; null when it does not parse. */
    ShardKeyRule.Parsed parsed() {
      if (!parseTried) {
        parsed = nativeSql ? null : ShardKeyRule.parsed(text);
        parseTried = true;
      }
      return parsed;
    }
  }

  /** One {@code @Entity} class. */
  static final class Entity {
    final String className;
    final String name;
    final String table;
    final Attribute id;
    final Map<String, Attribute> attributes;
    final List<DeclaredQuery> queries = new ArrayList<>();

    Entity(String className, String name, String table, Attribute id, Map<String, Attribute> attributes) {
      this.className = className;
      this.name = name;
      this.table = table;
      this.id = id;
      this.attributes = attributes;
    }

    String simpleName() {
      return className.substring(Math.max(className.lastIndexOf('.'), className.lastIndexOf('$')) + 1);
    }

    Attribute attribute(String attribute) {
      return attributes.get(attribute);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private final Map<String, Entity> byClass = new LinkedHashMap<>();
  private final Map<String, Entity> byName = new LinkedHashMap<>();
  private final List<DeclaredQuery> queries = new ArrayList<>();

  void add(Entity entity) {
    byClass.put(entity.className, entity);
    byName.put(entity.name, entity);
  }

  void addQuery(Entity declaredOn, DeclaredQuery query) {
    if (declaredOn != null) {
      declaredOn.queries.add(query);
    }
    queries.add(query);
  }

  Collection<Entity> entities() {
    return byClass.values();
  }

  List<DeclaredQuery> queries() {
    return queries;
  }

  /** By entity name, by fully qualified class name, or null. */
  Entity entity(String name) {
    Entity entity = byName.get(name);
    return entity != null ? entity : byClass.get(name);
  }

  Entity target(Attribute attribute) {
    return attribute.target() == null ? null : byClass.get(attribute.target());
  }

  /** {@code lastName} → {@code last_name}: Spring Boot's physical naming, tried after the name as given. */
  static String snakeCase(String name) {
    return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }
}
