package io.shardwise.hibernate.readwrite;

/**
 * Whose writes a read must see: a user, a session, a request chain. Reads in a scope see the
 * scope's own earlier writes of {@code @ReadYourWrites} entities, even when replicas serve them.
 * Obtained from {@link Consistency#scope(String)} or {@link Consistency#fromToken(String)}.
 */
public record ConsistencyScope(String id) {

  public ConsistencyScope {
    if (id == null || id.isBlank() || id.indexOf('\n') >= 0 || id.length() > 256) {
      throw new IllegalArgumentException("A consistency scope id is 1-256 characters without line breaks, was '"
          + id + "'");
    }
  }
}
