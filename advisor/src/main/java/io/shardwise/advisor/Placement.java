package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Entity;
import java.util.List;

/**
 * Where one entity goes under a proposed root, and why.
 *
 * @param with the entity a co-located entity names in {@code @CoLocated(with = ...)}: the root, or
 *     the listed child its path ends at
 * @param via the to-one path to {@code with} ({@code pet.owner}), or null
 * @param listedIn the root's unidirectional {@code @OneToMany @JoinColumn} that holds it, or null
 * @param keyAttribute the attribute that carries the key: existing, or to add
 * @param keyColumn its column
 * @param keyAttributeExists whether the entity already maps {@code keyAttribute}
 * @param columnExists whether the table already has {@code keyColumn} (a join column or a mapped column)
 * @param sql the statements that add and fill the key column, when it does not exist yet
 */
record Placement(Entity entity, Kind kind, Entity with, String via, String listedIn, String keyAttribute,
    String keyColumn, boolean keyAttributeExists, boolean columnExists, List<String> sql, List<String> reasons) {

  enum Kind {
    ROOT("root"), CO_LOCATED("co-located"), REFERENCE("reference table"), UNSHARDABLE("unshardable");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  boolean sharded() {
    return kind == Kind.ROOT || kind == Kind.CO_LOCATED;
  }

  /** How the key is carried, in a few words for the report. */
  String how() {
    return switch (kind) {
      case ROOT -> "key " + keyAttribute + " (its id)";
      case CO_LOCATED -> (via != null ? "via " + via : listedIn != null ? "listedIn " + listedIn : "by column")
          + ", key " + keyAttribute + " on " + keyColumn
          + (keyAttributeExists ? " (existing attribute)" : columnExists ? " (existing column, new attribute)"
              : " (new column: add and backfill)");
      case REFERENCE, UNSHARDABLE -> "";
    };
  }
}
