package io.shardwise.hibernate.id;

/**
 * The generator's leased worker id is no longer certainly its own: the lease was taken over or
 * deleted in the control database, or it could not be renewed in time. Another instance may be
 * using the same worker id, so no id is issued. The message says which worker, which control
 * database and what the heartbeat last saw; restart the generator (or the application) to lease a
 * worker id again.
 */
public final class WorkerLeaseLostException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  WorkerLeaseLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
