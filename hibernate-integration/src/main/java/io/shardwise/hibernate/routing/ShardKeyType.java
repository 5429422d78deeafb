package io.shardwise.hibernate.routing;

/**
 * The Java types a shard key may have, each with the PostgreSQL type that stores it and the
 * PostgreSQL expression that hashes it exactly as {@link #hash(Object)} does.
 *
 * <p>{@code SHORT}, {@code INT} and {@code LONG} hash by value, so a key routes the same whether an
 * entity carries it as {@code short}, {@code int} or {@code long}: widening a key column never
 * moves rows.
 *
 * <pre>{@code
 * ShardKeyType type = ShardKeyType.forJavaType(attribute.getJavaType());
 * if (type == null) throw new IllegalArgumentException(entity + "." + attribute + " ...");
 * long h = type.hash(key);
 * String sql = "SELECT ... WHERE " + type.sqlHash("tenant_id") + " = ?";
 * }</pre>
 */
public enum ShardKeyType {
  /** {@code short}/{@link Short}, stored as {@code smallint}. */
  SHORT("smallint", "hashint2extended"),
  /** {@code int}/{@link Integer}, stored as {@code integer}. */
  INT("integer", "hashint4extended"),
  /** {@code long}/{@link Long}, stored as {@code bigint}. */
  LONG("bigint", "hashint8extended"),
  /** {@link String}, stored as {@code text} (or {@code varchar}); hashed as UTF-8 bytes. */
  STRING("text", "hashtextextended"),
  /** {@link java.util.UUID}, stored as {@code uuid}. */
  UUID("uuid", "uuid_hash_extended");

  private final String sqlType;
  private final String sqlFunction;

  ShardKeyType(String sqlType, String sqlFunction) {
    this.sqlType = sqlType;
    this.sqlFunction = sqlFunction;
  }

  /**
   * The key type for a Java attribute type (primitive or wrapper), or {@code null} if Shardwise
   * cannot shard on it, so that the caller can name the entity and attribute in its error.
   */
  public static ShardKeyType forJavaType(Class<?> javaType) {
    if (javaType == long.class || javaType == Long.class) {
      return LONG;
    }
    if (javaType == int.class || javaType == Integer.class) {
      return INT;
    }
    if (javaType == short.class || javaType == Short.class) {
      return SHORT;
    }
    if (javaType == String.class) {
      return STRING;
    }
    if (javaType == java.util.UUID.class) {
      return UUID;
    }
    return null;
  }

  /**
   * The key type of a key value.
   *
   * @throws IllegalArgumentException if the key is null or of a type Shardwise cannot shard on
   */
  public static ShardKeyType of(Object key) {
    ShardKeyType type = key == null ? null : forJavaType(key.getClass());
    if (type == null) {
      throw unsupportedKey(key);
    }
    return type;
  }

  /**
   * The routing hash of a key, {@link PgHash} with seed 0. The integral types accept any
   * {@link Short}, {@link Integer} or {@link Long}, since they hash by value.
   *
   * @throws IllegalArgumentException if the key is null or not of this type
   */
  public long hash(Object key) {
    switch (this) {
      case SHORT, INT, LONG -> {
        if (key instanceof Long || key instanceof Integer || key instanceof Short) {
          return PgHash.hashLong(((Number) key).longValue());
        }
      }
      case STRING -> {
        if (key instanceof String s) {
          return PgHash.hashText(s);
        }
      }
      case UUID -> {
        if (key instanceof java.util.UUID u) {
          return PgHash.hashUuid(u);
        }
      }
    }
    throw new IllegalArgumentException("A " + this + " shard key must be a " + javaName() + ", was "
        + describe(key) + "; pass the entity's shard key value as declared");
  }

  /** The PostgreSQL column type, e.g. {@code "bigint"}. */
  public String sqlType() {
    return sqlType;
  }

  /**
   * The name of the built-in PostgreSQL function {@link #sqlHash} calls (its arguments: the value
   * and the seed 0), e.g. {@code "hashint8extended"}: for callers that spell the call themselves,
   * such as an HQL {@code function(...)}.
   */
  public String sqlHashFunction() {
    return sqlFunction;
  }

  /**
   * The PostgreSQL expression computing {@link #hash(Object)} of the given column or expression,
   * e.g. {@code hashint8extended(tenant_id, 0)}. Text is hashed under collation {@code "C"} so
   * that a non-deterministic column collation cannot change the result.
   */
  public String sqlHash(String column) {
    if (column == null || column.isBlank()) {
      throw new IllegalArgumentException("sqlHash needs a column name or SQL expression, was '" + column + "'");
    }
    if (this == STRING) {
      return sqlFunction + "((" + column + ")::text COLLATE \"C\", 0)";
    }
    return sqlFunction + "(" + column + ", 0)";
  }

  private String javaName() {
    return switch (this) {
      case SHORT, INT, LONG -> "Short, Integer or Long";
      case STRING -> "String";
      case UUID -> "java.util.UUID";
    };
  }

  static IllegalArgumentException unsupportedKey(Object key) {
    if (key == null) {
      return new IllegalArgumentException("The shard key is null; set the entity's shard key before it is routed");
    }
    return new IllegalArgumentException("Cannot route a shard key of type " + key.getClass().getName() + " ("
        + key + "); shard keys must be short, int, long (or their wrappers), String or java.util.UUID");
  }

  private static String describe(Object key) {
    return key == null ? "null" : key.getClass().getName() + " " + key;
  }
}
