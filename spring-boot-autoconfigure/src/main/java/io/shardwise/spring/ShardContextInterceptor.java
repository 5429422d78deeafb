package io.shardwise.spring;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardedSessions;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Opens the {@link ShardContext} of a web request before its handler runs, and closes it when the
 * request completes. The key comes from a {@link ShardKeyResolver} bean when there is one, else
 * from the path variable {@code shardwise.web.key-path-variable}, else from the request header
 * {@code shardwise.web.key-header}. A request that carries no key runs without a shard (reference
 * data only); one whose key cannot be read is refused with {@link ShardKeyException} before its
 * handler runs.
 */
public final class ShardContextInterceptor implements HandlerInterceptor {
  private static final String SCOPE = ShardContextInterceptor.class.getName() + ".scope";

  private final Supplier<ShardedSessions> shards;
  private final ShardKeyResolver resolver;
  private final String keyHeader;
  private final String keyPathVariable;
  private final String keyType;
  private final String shardHeader;

  public ShardContextInterceptor(Supplier<ShardedSessions> shards, ShardKeyResolver resolver, String keyHeader,
      String keyPathVariable, String keyType, String shardHeader) {
    this.shards = shards;
    this.resolver = resolver;
    this.keyHeader = blankToNull(keyHeader);
    this.keyPathVariable = blankToNull(keyPathVariable);
    this.keyType = keyType == null ? "long" : keyType.trim().toLowerCase(Locale.ROOT);
    this.shardHeader = blankToNull(shardHeader);
    if (!this.keyType.matches("long|int|string|uuid")) {
      throw new io.shardwise.hibernate.ShardingConfigurationException("shardwise.web.key-type = '" + keyType
          + "' is not one of long, int, string, uuid (the Java type of the shard key the request carries)");
    }
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
    Object key = resolver != null ? resolver.resolveShardKey(request) : keyOf(request);
    if (key == null) {
      return true;
    }
    String shardId = shards.get().shardFor(key);
    request.setAttribute(SCOPE, ShardContext.use(shardId));
    if (shardHeader != null) {
      response.setHeader(shardHeader, shardId);
    }
    return true;
  }

  @Override
  public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception ex) {
    if (request.getAttribute(SCOPE) instanceof ShardContext.Scope scope) {
      request.removeAttribute(SCOPE);
      scope.close();
    }
  }

  private Object keyOf(HttpServletRequest request) {
    String text = null;
    String source = null;
    if (keyPathVariable != null && request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE)
        instanceof Map<?, ?> variables && variables.get(keyPathVariable) != null) {
      text = variables.get(keyPathVariable).toString();
      source = "path variable {" + keyPathVariable + "}";
    }
    if (text == null && keyHeader != null && request.getHeader(keyHeader) != null) {
      text = request.getHeader(keyHeader);
      source = "header " + keyHeader;
    }
    if (text == null) {
      return null;
    }
    try {
      return switch (keyType) {
        case "int" -> Integer.valueOf(text.trim());
        case "string" -> text;
        case "uuid" -> UUID.fromString(text.trim());
        default -> Long.valueOf(text.trim());
      };
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException("The shard key in " + source + " is '" + text + "', which is not a " + keyType
          + " (shardwise.web.key-type). The request was refused before any SQL was sent.", e);
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
