package io.shardwise.hibernate;

import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.harness.ShardedUnit;

/** What every case class of {@link CoreMatrixTest} sees: the layout's unit, its sessions and the layout. */
abstract class MatrixCases {
  protected final ShardedUnit unit = CoreMatrixTest.unit;
  protected final ShardedSessions shards = unit.shards();
  protected final Layout layout = unit.layout();
}
