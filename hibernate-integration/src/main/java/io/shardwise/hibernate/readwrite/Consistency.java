package io.shardwise.hibernate.readwrite;

import java.util.Map;

/**
 * Read-your-writes scopes and the tokens that carry them across application instances. Obtained
 * from {@code ShardedSessions.consistency()}.
 *
 * <pre>{@code
 * ConsistencyScope scope = shards.consistency().scope("user:" + userId);
 * shards.forKey(userId).within(scope).inTransaction(s -> profile.setName("Ada"));
 * response.setHeader("X-Consistency", shards.consistency().token(scope));     // to the client
 *
 * // on any instance, on the client's next request:
 * ConsistencyScope again = shards.consistency().fromToken(request.getHeader("X-Consistency"));
 * shards.forKey(userId).within(again).readOnly().fromSession(s -> s.find(Profile.class, userId)); // sees "Ada"
 * }</pre>
 *
 * <p>A token is {@code v1.<payload>.<HMAC-SHA256>}, signed with {@code shardwise.ryw.secret}; it
 * holds the scope's pins and expires with the last of them. A forged, altered or expired token is
 * refused with a {@link ConsistencyTokenException}.
 */
public interface Consistency {

  ConsistencyScope scope(String id);

  /** The scope's live pins, by shard. */
  Map<String, Pin> pins(ConsistencyScope scope);

  PinStore store();

  /** A signed token holding the scope's current pins, for the client to send back. */
  String token(ConsistencyScope scope);

  /** Verifies a token, adds its pins to this instance's store and returns its scope. */
  ConsistencyScope fromToken(String token);
}
