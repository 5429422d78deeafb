package io.shardwise.spring;

import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.ShardedSessions;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.UUID;
import java.util.function.Supplier;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;

/**
 * Carries read-your-writes across requests: binds the {@link ConsistencyScopes consistency scope}
 * of the request's signed token (header {@code shardwise.web.consistency-header}, else cookie
 * {@code shardwise.web.consistency-cookie}), or a new scope; and, through {@link TokenAdvice},
 * hands the client the scope's token with a response body once the request wrote something.
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
    request.setAttribute(BINDING, ConsistencyScopes.use(scope));
    return true;
  }

  @Override
  public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
      Exception ex) {
    if (request.getAttribute(BINDING) instanceof ConsistencyScopes.Binding binding) {
      request.removeAttribute(BINDING);
      binding.close();
    }
  }

  /** Adds the scope's token to a response whose request wrote something, before its body is written. */
  @ControllerAdvice
  public static final class TokenAdvice implements ResponseBodyAdvice<Object> {
    private final Supplier<ShardedSessions> shards;
    private final String header;
    private final String cookie;

    public TokenAdvice(Supplier<ShardedSessions> shards, String header, String cookie) {
      this.shards = shards;
      this.header = header == null || header.isBlank() ? null : header.trim();
      this.cookie = cookie == null || cookie.isBlank() ? null : cookie.trim();
    }

    @Override
    public boolean supports(MethodParameter returnType, Class<? extends HttpMessageConverter<?>> converterType) {
      return true;
    }

    @Override
    public Object beforeBodyWrite(Object body, MethodParameter returnType, MediaType selectedContentType,
        Class<? extends HttpMessageConverter<?>> selectedConverterType, ServerHttpRequest request,
        ServerHttpResponse response) {
      ConsistencyScope scope = ConsistencyScopes.current();
      if (scope == null || shards.get().consistency().pins(scope).isEmpty()) {
        return body;
      }
      String token = shards.get().consistency().token(scope);
      if (header != null) {
        response.getHeaders().set(header, token);
      }
      if (cookie != null) {
        response.getHeaders().add(HttpHeaders.SET_COOKIE,
            ResponseCookie.from(cookie, token).path("/").httpOnly(true).sameSite("Lax").build().toString());
      }
      return body;
    }
  }
}
