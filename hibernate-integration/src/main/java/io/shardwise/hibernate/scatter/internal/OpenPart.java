package io.shardwise.hibernate.scatter.internal;

import java.util.function.Consumer;
import org.hibernate.ScrollableResults;
import org.hibernate.Session;

/**
 * One shard's part of a lazily merged top-N, executed but not yet read: its session (and so its
 * pooled connection) stays open, and its rows wait in the driver's memory behind a forward-only
 * cursor that materialises an entity only when the merge asks for its row. {@link #close} gives
 * everything back; it is called exactly once, whatever happened.
 */
public final class OpenPart {
  private final Session session;
  private final ScrollableResults<Object[]> cursor;
  private final Consumer<Throwable> done;
  private int rowsRead;

  /**
   * @param done told, once the part is closed, what failed while it was read (null when nothing):
   *     the reader's per-shard timing and observation end there
   */
  public OpenPart(Session session, ScrollableResults<Object[]> cursor, Consumer<Throwable> done) {
    this.session = session;
    this.cursor = cursor;
    this.done = done;
  }

  /** The next row, materialised now; null when the part has no more. */
  Object[] next() {
    if (!cursor.next()) {
      return null;
    }
    rowsRead++;
    return cursor.get();
  }

  /** How many rows the merge took from this part. */
  int rowsRead() {
    return rowsRead;
  }

  /** Closes the cursor, then the session; {@code failure} is what went wrong while reading it, or null. */
  void close(Throwable failure) {
    try {
      try {
        cursor.close();
      } finally {
        session.close();
      }
    } catch (RuntimeException closeFailure) {
      if (failure != null) {
        failure.addSuppressed(closeFailure);
      }
      failure = failure != null ? failure : closeFailure;
    } finally {
      done.accept(failure);
    }
  }
}
