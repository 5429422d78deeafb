package io.shardwise.queryrules;

/**
 * What the {@link NativeSqlRule} needs to know about the tables native SQL names: which entity a
 * table holds and which of its columns is the shard key. The processor answers from {@code @Table},
 * {@code @Column} and the naming conventions, the runtime from Hibernate's mapping.
 */
public interface TableModel {

  /**
   * The entity stored in a table, by the table's name without schema or quotes, in lower case;
   * null when no entity of the model is stored there (a join table, a collection table, a table
   * the application maps nowhere).
   */
  MappedTable table(String lowerCaseName);

  /**
   * One entity's table.
   *
   * @param entity the entity, as the HQL rule sees it (its group, its shard key attribute)
   * @param keyColumns the names the shard key's column may have, in lower case: one at run time,
   *     where Hibernate's naming strategy has spoken; at build time, without an explicit
   *     {@code @Column(name)}, both the attribute name and its snake_case form. Empty for a
   *     reference table or an entity that is not sharded.
   */
  record MappedTable(QueryModel.Entity entity, java.util.List<String> keyColumns) {

    public MappedTable {
      keyColumns = java.util.List.copyOf(keyColumns);
    }

    public boolean sharded() {
      return !keyColumns.isEmpty();
    }

    public boolean isKeyColumn(String lowerCaseName) {
      return keyColumns.contains(lowerCaseName);
    }

    /** The key column's name for messages; null when not sharded. */
    public String keyColumn() {
      return keyColumns.isEmpty() ? null : keyColumns.get(keyColumns.size() - 1);
    }
  }
}
