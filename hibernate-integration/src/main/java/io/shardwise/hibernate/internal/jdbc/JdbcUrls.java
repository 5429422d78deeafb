package io.shardwise.hibernate.internal.jdbc;

import java.util.Locale;

/**
 * Talking about JDBC URLs without leaking secrets: every URL that reaches an exception message, a
 * log line, a {@code toString()} or a pool name goes through {@link #redact(String)} first.
 */
public final class JdbcUrls {
  public static final String MASK = "***";

  private JdbcUrls() {}

  /**
   * The URL with its secrets masked and everything else kept, so that a message still says which
   * server and which options: the password of {@code user:password@host} and the value of every
   * parameter whose name mentions a password, secret or token ({@code password}, {@code sslpassword},
   * ...) become {@value #MASK}. {@code jdbc:postgresql://app:s3cret@db:5432/shop?password=x&connectTimeout=2}
   * reads {@code jdbc:postgresql://app:***@db:5432/shop?password=***&connectTimeout=2}.
   */
  public static String redact(String jdbcUrl) {
    if (jdbcUrl == null) {
      return "null";
    }
    int query = jdbcUrl.indexOf('?');
    String base = query < 0 ? jdbcUrl : jdbcUrl.substring(0, query);
    StringBuilder out = new StringBuilder(jdbcUrl.length()).append(withoutUserPassword(base));
    if (query >= 0) {
      out.append('?');
      String[] parameters = jdbcUrl.substring(query + 1).split("&", -1);
      for (int i = 0; i < parameters.length; i++) {
        if (i > 0) {
          out.append('&');
        }
        String parameter = parameters[i];
        int equals = parameter.indexOf('=');
        String name = equals < 0 ? parameter : parameter.substring(0, equals);
        out.append(equals >= 0 && isSecret(name) ? name + "=" + MASK : parameter);
      }
    }
    return out.toString();
  }

  /** {@code host:port} of a PostgreSQL JDBC URL, for pool and thread names. */
  public static String hostPort(String jdbcUrl) {
    String rest = redact(jdbcUrl);
    int scheme = rest.indexOf("//");
    rest = scheme < 0 ? rest : rest.substring(scheme + 2);
    int end = indexOfAny(rest, "/?");
    rest = end < 0 ? rest : rest.substring(0, end);
    return rest.substring(rest.lastIndexOf('@') + 1);
  }

  /**
   * The database a PostgreSQL JDBC URL names ({@code shop} in {@code jdbc:postgresql://db:5432/shop?ssl=true}),
   * or null when it names none (the driver then uses the user name).
   */
  public static String database(String jdbcUrl) {
    int scheme = jdbcUrl.indexOf("//");
    String rest = scheme < 0 ? jdbcUrl : jdbcUrl.substring(scheme + 2);
    int query = rest.indexOf('?');
    rest = query < 0 ? rest : rest.substring(0, query);
    rest = rest.substring(rest.lastIndexOf('@') + 1);
    int slash = rest.indexOf('/');
    return slash < 0 || slash == rest.length() - 1 ? null : rest.substring(slash + 1);
  }

  private static String withoutUserPassword(String base) {
    int scheme = base.indexOf("//");
    if (scheme < 0) {
      return base;
    }
    int authorityStart = scheme + 2;
    int authorityEnd = base.indexOf('/', authorityStart);
    authorityEnd = authorityEnd < 0 ? base.length() : authorityEnd;
    int at = base.lastIndexOf('@', authorityEnd - 1);
    if (at < authorityStart) {
      return base;
    }
    int colon = base.indexOf(':', authorityStart);
    if (colon < 0 || colon > at) {
      return base;
    }
    return base.substring(0, colon + 1) + MASK + base.substring(at);
  }

  private static boolean isSecret(String parameterName) {
    String name = parameterName.toLowerCase(Locale.ROOT);
    return name.contains("password") || name.contains("secret") || name.contains("token");
  }

  private static int indexOfAny(String text, String characters) {
    for (int i = 0; i < text.length(); i++) {
      if (characters.indexOf(text.charAt(i)) >= 0) {
        return i;
      }
    }
    return -1;
  }
}
