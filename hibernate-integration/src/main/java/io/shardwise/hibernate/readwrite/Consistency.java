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
 * ConsistencyScope again = shards.consistency().fromToken(shards.consistency().scope("user:" + userId),
 *     request.getHeader("X-Consistency"));
 * shards.forKey(userId).within(again).readOnly().fromSession(s -> s.find(Profile.class, userId)); // sees "Ada"
 * }</pre>
 *
 * <h2>The token</h2>
 *
 * {@code v2.<payload>.<HMAC-SHA256>}. The payload (base64url) holds the scope id, the token's
 * expiry and the scope's pins (shard, LSN, TIME window, wait bound, expiry). The MAC, keyed with
 * {@code shardwise.ryw.secret}, covers a fixed label, the version, the persistence unit's name and
 * the payload: a token verifies only in the persistence unit that issued it, and only with its
 * scope id, pins and expiry exactly as issued. {@link #fromToken(ConsistencyScope, String)} also
 * refuses a token issued for another scope, so a client cannot replay one user's token in
 * another's request. A token lives as long as its last pin, and at least
 * {@code shardwise.ryw.pin_ttl_ms} from when it was issued (so a token without pins is readable on
 * the next request). {@code shardwise.ryw.accepted_secret} names one more secret that tokens may be
 * signed with (verified, never used to sign), for rotating the secret without refusing tokens in
 * flight. A forged, altered, foreign, replayed or expired token is refused with a
 * {@link ConsistencyTokenException} saying which.
 */
public interface Consistency {

  ConsistencyScope scope(String id);

  /** The scope's live pins, by shard. */
  Map<String, Pin> pins(ConsistencyScope scope);

  PinStore store();

  /** A signed token holding the scope's current pins, for the client to send back. */
  String token(ConsistencyScope scope);

  /**
   * Verifies a token issued for {@code expected}, adds its pins to this instance's store and
   * returns the scope. Use this when the request already says whose it is (an authenticated
   * user): a token of any other scope is refused, so it cannot be replayed for this one.
   */
  ConsistencyScope fromToken(ConsistencyScope expected, String token);

  /**
   * Verifies a token, adds its pins to this instance's store and returns the scope it was issued
   * for. The scope comes from the token: when the request names its scope by other means, use
   * {@link #fromToken(ConsistencyScope, String)}, which refuses a token of another scope.
   */
  ConsistencyScope fromToken(String token);
}
