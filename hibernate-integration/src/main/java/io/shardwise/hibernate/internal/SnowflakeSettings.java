package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Where {@code @SnowflakeId} generators get their worker id, parsed from the
 * {@code shardwise.snowflake.*} settings (each falling back to the system property of the same
 * name). {@link ShardwiseConfig} parses them with the rest of a sharded unit's settings; the
 * generator parses them the same way in session factories that are not sharded.
 *
 * @param workerId a fixed worker id, or null
 * @param leaseUrl the control database to lease a worker id from, or null
 * @param leaseUser the lease's user, or null
 * @param leasePassword the lease's password, or null
 * @param leaseTtl how long a lease lives without renewal, or null for the lease's default
 * @param ticking read the time from a ticking clock instead of the system clock per id
 * @param createLeaseTable {@code shardwise.ddl = create}: the lease creates its table if missing
 */
public record SnowflakeSettings(Integer workerId, String leaseUrl, String leaseUser, String leasePassword,
    Duration leaseTtl, boolean ticking, boolean createLeaseTable) {

  public static final String WORKER_ID = "shardwise.snowflake.worker_id";
  public static final String CLOCK = "shardwise.snowflake.clock";
  public static final String LEASE_URL = "shardwise.snowflake.lease_url";
  public static final String LEASE_USER = "shardwise.snowflake.lease_user";
  public static final String LEASE_PASSWORD = "shardwise.snowflake.lease_password";
  public static final String LEASE_TTL_SECONDS = "shardwise.snowflake.lease_ttl_seconds";

  /** Every key read here. */
  public static final List<String> KEYS = List.of(WORKER_ID, CLOCK, LEASE_URL, LEASE_USER, LEASE_PASSWORD,
      LEASE_TTL_SECONDS);

  /** The largest worker id of any layout (20 worker bits); the layout of each generator narrows it. */
  private static final int MAX_WORKER_ID = (1 << 20) - 1;

  /**
   * Reads the settings from {@code settings}, then system properties; adds one line per problem to
   * {@code problems}. {@code shardwise.ddl} is parsed by the caller.
   */
  public static SnowflakeSettings parse(Function<String, Object> settings, List<String> problems,
      boolean createLeaseTable) {
    String workerText = setting(settings, WORKER_ID);
    String leaseUrl = setting(settings, LEASE_URL);
    Integer workerId = null;
    if (workerText != null) {
      try {
        workerId = Integer.parseInt(workerText.trim());
      } catch (NumberFormatException e) {
        workerId = -1;
      }
      if (workerId < 0 || workerId > MAX_WORKER_ID) {
        problems.add(WORKER_ID + " = '" + workerText + "' is not a worker id: use a whole number from 0 to the"
            + " layout's largest (1023 with the default layout)");
      }
    }
    if (workerText != null && leaseUrl != null) {
      problems.add("both " + WORKER_ID + " = " + workerText + " and " + LEASE_URL + " are set; choose one");
    }
    if (leaseUrl != null && !leaseUrl.startsWith("jdbc:postgresql:")) {
      problems.add(LEASE_URL + " = '" + JdbcUrls.redact(leaseUrl) + "' is not a PostgreSQL JDBC URL"
          + " (jdbc:postgresql://host:port/database)");
    }
    String clock = setting(settings, CLOCK);
    clock = clock == null ? "system" : clock.trim().toLowerCase(Locale.ROOT);
    if (!clock.equals("system") && !clock.equals("ticking")) {
      problems.add(CLOCK + " = '" + clock + "' is not system or ticking");
    }
    boolean ticking = clock.equals("ticking");
    if (ticking && leaseUrl != null) {
      problems.add(CLOCK + "=ticking cannot be used with " + LEASE_URL + ": a leased worker id must judge its"
          + " lease deadline by the real clock, not a possibly stale one. Use a fixed " + WORKER_ID
          + " or the system clock.");
    }
    String ttlText = setting(settings, LEASE_TTL_SECONDS);
    Duration ttl = null;
    if (ttlText != null) {
      long seconds;
      try {
        seconds = Long.parseLong(ttlText.trim());
      } catch (NumberFormatException e) {
        seconds = -1;
      }
      if (seconds < 1 || seconds > 86_400) {
        problems.add(LEASE_TTL_SECONDS + " = '" + ttlText + "' is not a number of seconds from 1 to 86400"
            + " (default 30)");
      } else {
        ttl = Duration.ofSeconds(seconds);
      }
    }
    return new SnowflakeSettings(workerId, leaseUrl, setting(settings, LEASE_USER), setting(settings, LEASE_PASSWORD),
        ttl, ticking, createLeaseTable);
  }

  /**
   * {@link #parse(Function, List, boolean)} for a generator on its own.
   *
   * @throws IllegalStateException listing every problem
   */
  public static SnowflakeSettings parse(Function<String, Object> settings) {
    List<String> problems = new ArrayList<>();
    SnowflakeSettings parsed = parse(settings, problems,
        ShardwiseConfig.parseDdl(setting(settings, io.shardwise.hibernate.ShardwiseSettings.DDL), problems));
    if (!problems.isEmpty()) {
      throw new IllegalStateException("Snowflake id settings are invalid: " + String.join("; ", problems));
    }
    return parsed;
  }

  private static String setting(Function<String, Object> settings, String name) {
    Object value = settings.apply(name);
    if (value == null) {
      value = System.getProperty(name);
    }
    return value == null || value.toString().isBlank() ? null : value.toString().trim();
  }

  @Override
  public String toString() {
    return "SnowflakeSettings[workerId=" + workerId + ", leaseUrl=" + (leaseUrl == null ? null : JdbcUrls.redact(leaseUrl))
        + ", leaseUser=" + leaseUser + ", leasePassword=" + (leasePassword == null ? null : JdbcUrls.MASK)
        + ", leaseTtl=" + leaseTtl + ", ticking=" + ticking + ", createLeaseTable=" + createLeaseTable + "]";
  }
}
