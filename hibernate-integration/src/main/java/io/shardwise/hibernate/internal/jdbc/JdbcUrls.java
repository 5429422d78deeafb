package io.shardwise.hibernate.internal.jdbc;

/** Helpers for talking about JDBC URLs in messages without leaking secrets. */
public final class JdbcUrls {
  private JdbcUrls() {}

  /**
   * The URL without its query string, which may carry a password ({@code ?password=...}); safe to
   * print in logs and exception messages.
   */
  public static String redact(String jdbcUrl) {
    if (jdbcUrl == null) {
      return "null";
    }
    int query = jdbcUrl.indexOf('?');
    return query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?...";
  }

  /** {@code host:port} of a PostgreSQL JDBC URL, for pool names. */
  public static String hostPort(String jdbcUrl) {
    String rest = redact(jdbcUrl).replaceFirst("^jdbc:postgresql://", "");
    int slash = rest.indexOf('/');
    return slash < 0 ? rest : rest.substring(0, slash);
  }
}
