package io.shardwise.spring;

import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.ShardedSessions;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.UUID;
import java.util.function.Supplier;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseCookie;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Carries read-your-writes across requests: binds the {@link ConsistencyScopes consistency scope}
 * of the request's signed token (header {@code shardwise.web.consistency-header}, else cookie
 * {@code shardwise.web.consistency-cookie}), or a new scope; and hands the client the scope's token
 * when a transaction of the request commits a write, in whatever response follows (redirect, view,
 * body, error page).
 * A forged, altered or expired token is refused with {@code ConsistencyTokenException} before
 * the handler runs.
 */
public final class ConsistencyTokenInterceptor implements HandlerInterceptor {
  private static final String BINDING = ConsistencyTokenInterceptor.class.getName() + ".binding";

  private final Supplier<ShardedSessions> shards;
  private final String header;
  private final String cookie;

  public ConsistencyTokenInterceptor(Supplier<ShardedSessions> shards, String header, String cookie) {
    this.shards = shards;
    this.header = header == null || header.isBlank() ? null : header.trim();
    this.cookie = cookie == null || cookie.isBlank() ? null : cookie.trim();
  }

  @Override
  public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
    String token = header == null ? null : request.getHeader(header);
    if (token == null && cookie != null && request.getCookies() != null) {
      for (Cookie c : request.getCookies()) {
        if (c.getName().equals(cookie)) {
          token = c.getValue();
        }
      }
    }
    ConsistencyScope scope = token != null ? shards.get().consistency().fromToken(token)
        : shards.get().consistency().scope("request:" + UUID.randomUUID());
    request.setAttribute(BINDING, ConsistencyScopes.use(scope, pinned -> handOut(pinned, response)));
    return true;
  }

  /**
   * Adds the scope's token to the response, at the commit of a write: whatever the handler returns
   * (a redirect, a view, a body, an error) has not been sent yet. A later commit in the same request
   * hands out a newer token, which replaces the earlier one at the client.
   */
  private void handOut(ConsistencyScope scope, HttpServletResponse response) {
    if (response.isCommitted()) {
      return; // a body already streaming: the headers are gone, the next write's request carries the pin
    }
    String token = shards.get().consistency().token(scope);
    if (header != null) {
      response.setHeader(header, token);
    }
    if (cookie != null) {
      response.addHeader(HttpHeaders.SET_COOKIE,
          ResponseCookie.from(cookie, token).path("/").httpOnly(true).sameSite("Lax").build().toString());
    }
  }

  @Override
  public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception ex) {
    if (request.getAttribute(BINDING) instanceof ConsistencyScopes.Binding binding) {
      request.removeAttribute(BINDING);
      binding.close();
    }
  }
}
