package io.shardwise.spring;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Finds the shard key of a web request, for requests whose key is not simply a header or a path
 * variable (a session attribute, a JWT claim, a sub-domain). Declare one as a bean and the
 * starter's interceptor uses it instead of {@code shardwise.web.key-header} /
 * {@code shardwise.web.key-path-variable}.
 */
@FunctionalInterface
public interface ShardKeyResolver {

  /** The shard key of the request, or null when the request has none (it then runs without a shard). */
  Object resolveShardKey(HttpServletRequest request);
}
