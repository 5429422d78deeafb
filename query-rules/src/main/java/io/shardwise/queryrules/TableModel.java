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
   * @param parent the foreign key of the first hop of the entity's {@code @CoLocated(via)} path,
   *     or null when it has none (or one the model cannot read)
   */
  record MappedTable(QueryModel.Entity entity, java.util.List<String> keyColumns, ParentLink parent) {

    public MappedTable {
      keyColumns = java.util.List.copyOf(keyColumns);
    }

    /** A table without a co-location foreign key. */
    public MappedTable(QueryModel.Entity entity, java.util.List<String> keyColumns) {
      this(entity, keyColumns, null);
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

  /**
   * The association a co-located entity's key follows to its parent ({@code user} of
   * {@code @CoLocated(via = "user.realm")}), as columns: a row whose foreign key column equals a
   * parent row's referenced column has that parent's shard key, so it sits on that parent's shard.
   *
   * @param foreignKeyColumns the names the child's foreign key column may have, in lower case
   * @param parent the entity the association leads to
   * @param referencedColumns the names of the parent's column the foreign key holds (its id
   *     column, unless the join column names another), in lower case
   */
  record ParentLink(java.util.List<String> foreignKeyColumns, QueryModel.Entity parent,
      java.util.List<String> referencedColumns) {

    public ParentLink {
      foreignKeyColumns = java.util.List.copyOf(foreignKeyColumns);
      referencedColumns = java.util.List.copyOf(referencedColumns);
    }
  }
}
