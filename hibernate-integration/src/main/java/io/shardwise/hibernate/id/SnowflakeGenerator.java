package io.shardwise.hibernate.id;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * The Hibernate generator behind {@link SnowflakeId}; Hibernate creates it, applications use the
 * annotation. See {@link SnowflakeId} for the settings that give it a worker id.
 */
public final class SnowflakeGenerator implements BeforeExecutionGenerator {
  private static final long serialVersionUID = 1L;

  /** Setting / system property: a fixed worker id for this instance. */
  public static final String WORKER_ID = "shardwise.snowflake.worker_id";

  /** {@code system} (default): read the clock for every id; {@code ticking}: {@link Clock#ticking()}, fixed worker ids only. */
  public static final String CLOCK = "shardwise.snowflake.clock";
  /** Setting / system property: JDBC URL of the control database to lease a worker id from. */
  public static final String LEASE_URL = "shardwise.snowflake.lease_url";
  /** Setting / system property: user for {@link #LEASE_URL}. */
  public static final String LEASE_USER = "shardwise.snowflake.lease_user";
  /** Setting / system property: password for {@link #LEASE_URL}. */
  public static final String LEASE_PASSWORD = "shardwise.snowflake.lease_password";
  /** Setting / system property: lease time-to-live in seconds (default 30). */
  public static final String LEASE_TTL_SECONDS = "shardwise.snowflake.lease_ttl_seconds";

  /**
   * One generator per layout and worker id in this JVM: two would repeat each other's ids. The key
   * holds nothing else — not the step-back tolerance, which each attribute applies to the shared
   * generator itself, nor the clock, which must then agree.
   */
  private static final Map<String, Shared> GENERATORS = new ConcurrentHashMap<>();

  private record Shared(Snowflake snowflake, String clockName) {}
  /** One lease per control database and worker range in this JVM, released at exit. */
  private static final Map<String, WorkerLease> LEASES = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LEASES.values().forEach(WorkerLease::close),
        "shardwise-snowflake-lease-release"));
  }

  private final transient Snowflake snowflake;
  private final long maxClockStepBackMillis;

  /** Called by Hibernate for each attribute annotated with {@link SnowflakeId}. */
  public SnowflakeGenerator(SnowflakeId annotation, Member member, GeneratorCreationContext context) {
    String attribute = member.getDeclaringClass().getSimpleName() + "." + member.getName();
    Class<?> type = member instanceof Field f ? f.getType()
        : member instanceof Method m ? m.getReturnType() : null;
    if (type != long.class && type != Long.class) {
      throw new IllegalArgumentException("@SnowflakeId on " + attribute + " of type "
          + (type == null ? "?" : type.getSimpleName()) + ": Snowflake ids are 64-bit, declare it long or Long");
    }
    SnowflakeLayout layout;
    try {
      layout = SnowflakeLayout.of(annotation);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("@SnowflakeId on " + attribute + ": " + e.getMessage(), e);
    }
    long stepBack = annotation.maxClockStepBackMillis();
    if (stepBack < 0 || stepBack > 1000) {
      throw new IllegalArgumentException("@SnowflakeId(maxClockStepBackMillis = " + stepBack + ") on " + attribute
          + ": use 0..1000");
    }
    Map<String, Object> settings = context.getServiceRegistry().requireService(ConfigurationService.class).getSettings();
    this.snowflake = generatorFor(layout, Duration.ofMillis(stepBack), settings::get, attribute);
    this.maxClockStepBackMillis = stepBack;
  }

  /** Resolves the worker source from {@code settings} (then system properties) and shares the generator. */
  static Snowflake generatorFor(SnowflakeLayout layout, Duration stepBack, SettingSource settings, String attribute) {
    String workerId = setting(settings, WORKER_ID);
    String leaseUrl = setting(settings, LEASE_URL);
    if ((workerId == null) == (leaseUrl == null)) {
      throw new IllegalStateException("@SnowflakeId on " + attribute + (workerId == null
          ? " needs a worker id: set " + WORKER_ID + " (a number unique per running instance, 0.."
              + layout.maxWorkerId() + ") or " + LEASE_URL + " (a PostgreSQL JDBC URL to lease one from), as a"
              + " Hibernate setting or a system property"
          : ": both " + WORKER_ID + "=" + workerId + " and " + LEASE_URL + " are set; choose one"));
    }
    String clockName = setting(settings, CLOCK);
    clockName = clockName == null ? "system" : clockName.trim().toLowerCase(java.util.Locale.ROOT);
    if (!clockName.equals("system") && !clockName.equals("ticking")) {
      throw new IllegalArgumentException(CLOCK + "=\"" + clockName + "\" is not system or ticking");
    }
    if (clockName.equals("ticking") && leaseUrl != null) {
      throw new IllegalStateException(CLOCK + "=ticking cannot be used with " + LEASE_URL + ": a leased worker id"
          + " must judge its lease deadline by the real clock, not a possibly stale one. Use a fixed "
          + WORKER_ID + " or the system clock.");
    }
    Clock clock = clockName.equals("ticking") ? Clock.ticking() : Clock.system();
    Integer fixedWorker = null;
    if (workerId != null) {
      try {
        fixedWorker = Integer.parseInt(workerId.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(WORKER_ID + "=\"" + workerId + "\" is not a number: use 0.."
            + layout.maxWorkerId(), e);
      }
    }
    Integer worker = fixedWorker;
    String key = layout + "/" + (worker != null ? "worker=" + worker : "lease=" + leaseUrl);
    String clockInUse = clockName;
    Shared shared = GENERATORS.computeIfAbsent(key, k -> {
      Snowflake.Builder builder = Snowflake.builder(layout).maxClockStepBack(stepBack).clock(clock);
      if (worker != null) {
        builder.workerId(worker);
      } else {
        builder.workerLease(leaseFor(leaseUrl, settings, layout.maxWorkerId()));
      }
      return new Shared(builder.build(), clockInUse);
    });
    if (!shared.clockName().equals(clockName)) {
      throw new IllegalStateException("@SnowflakeId on " + attribute + ": " + shared.snowflake() + " already generates"
          + " ids in this JVM on the " + shared.clockName() + " clock; a second generator on the " + clockName
          + " clock would repeat its ids. Set the same " + CLOCK + " for every persistence unit of this JVM");
    }
    return shared.snowflake();
  }

  private static WorkerLease leaseFor(String url, SettingSource settings, int maxWorkerId) {
    String user = setting(settings, LEASE_USER);
    String password = setting(settings, LEASE_PASSWORD);
    String ttl = setting(settings, LEASE_TTL_SECONDS);
    return LEASES.computeIfAbsent(url + "/" + user + "/" + maxWorkerId, k -> {
      WorkerLease.Builder builder = WorkerLease.builder(url).user(user).password(password).maxWorkerId(maxWorkerId);
      if (ttl != null) {
        try {
          builder.ttl(Duration.ofSeconds(Long.parseLong(ttl.trim())));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(LEASE_TTL_SECONDS + "=\"" + ttl + "\" is not a number of seconds", e);
        }
      }
      return builder.acquire();
    });
  }

  private static String setting(SettingSource settings, String name) {
    Object value = settings.get(name);
    if (value == null) {
      value = System.getProperty(name);
    }
    return value == null || value.toString().isBlank() ? null : value.toString();
  }

  @FunctionalInterface
  interface SettingSource {
    Object get(String name);
  }

  @Override
  public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue,
      EventType eventType) {
    return snowflake.nextId(maxClockStepBackMillis);
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }

  /** The shared generator this attribute draws from. */
  Snowflake snowflake() {
    return snowflake;
  }
}
