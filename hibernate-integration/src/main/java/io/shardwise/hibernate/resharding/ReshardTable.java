package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.routing.ShardKeyType;
import java.util.Locale;

/**
 * A table an online move carries: a sharded table (whose rows of the moving buckets move, selected by
 * its shard key column) or a reference table (copied whole to a target that lacks it).
 *
 * @param name the table's name as PostgreSQL stores it (schema {@code public} unless qualified)
 * @param keyColumn the shard key column; null for a reference table
 * @param keyType how the key is hashed; null for a reference table
 */
public record ReshardTable(String name, String keyColumn, ShardKeyType keyType) {

  public ReshardTable {
    if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?")) {
      throw new IllegalArgumentException("A table to move needs a plain name such as purchase_order or"
          + " app.purchase_order, was '" + name + "'");
    }
    if ((keyColumn == null) != (keyType == null)) {
      throw new IllegalArgumentException("Table " + name + ": give both the shard key column and its type, or neither"
          + " (a reference table)");
    }
    if (keyColumn != null && !keyColumn.matches("[A-Za-z_][A-Za-z0-9_$]*")) {
      throw new IllegalArgumentException("Table " + name + ": the shard key column must be a plain column name, was '"
          + keyColumn + "'");
    }
  }

  public static ReshardTable sharded(String name, String keyColumn, ShardKeyType keyType) {
    return new ReshardTable(name, keyColumn, keyType);
  }

  public static ReshardTable reference(String name) {
    return new ReshardTable(name, null, null);
  }

  /** Whether the table is copied whole (a {@code @ReferenceTable}) rather than moved by bucket. */
  public boolean isReference() {
    return keyColumn == null;
  }

  /**
   * Parses {@code name:keyColumn:type} (type {@code long}, {@code int}, {@code short},
   * {@code string} or {@code uuid}) or {@code name} alone for a reference table: the command line's form.
   */
  public static ReshardTable parse(String spec) {
    String[] parts = spec.trim().split(":");
    if (parts.length == 1) {
      return reference(parts[0]);
    }
    if (parts.length != 3) {
      throw new IllegalArgumentException("'" + spec + "' is not table:keyColumn:type (e.g. purchase_order:merchant_id:long)"
          + " or a reference table's name");
    }
    ShardKeyType type = switch (parts[2].toLowerCase(Locale.ROOT)) {
      case "long", "bigint" -> ShardKeyType.LONG;
      case "int", "integer" -> ShardKeyType.INT;
      case "short", "smallint" -> ShardKeyType.SHORT;
      case "string", "text" -> ShardKeyType.STRING;
      case "uuid" -> ShardKeyType.UUID;
      default -> throw new IllegalArgumentException("'" + parts[2] + "' in '" + spec + "' is not a shard key type;"
          + " use long, int, short, string or uuid");
    };
    return sharded(parts[0], parts[1], type);
  }

  /** The command line's form, {@code name:keyColumn:type} or {@code name}. */
  public String spec() {
    return isReference() ? name : name + ":" + keyColumn + ":" + keyType.name().toLowerCase(Locale.ROOT);
  }
}
