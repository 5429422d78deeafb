package io.shardwise.hibernate.readwrite;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A pessimistic row lock ({@code FOR UPDATE}, {@code FOR NO KEY UPDATE}, {@code FOR SHARE},
 * {@code FOR KEY SHARE}) was asked for in a read-only session. Read-only sessions may be served by
 * a hot-standby replica, which cannot lock rows, and a lock taken on stale data protects nothing:
 * lock in a read-write session, which runs on the primary. Raised before the statement is sent.
 */
public class RowLockInReadOnlySessionException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public RowLockInReadOnlySessionException(String message) {
    super(message);
  }
}
