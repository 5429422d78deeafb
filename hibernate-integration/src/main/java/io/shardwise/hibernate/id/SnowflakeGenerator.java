package io.shardwise.hibernate.id;

import io.shardwise.hibernate.internal.SnowflakeSettings;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;
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
  public static final String WORKER_ID = SnowflakeSettings.WORKER_ID;

  /** {@code system} (default): read the clock for every id; {@code ticking}: {@link Clock#ticking()}, fixed worker ids only. */
  public static final String CLOCK = SnowflakeSettings.CLOCK;
  /** Setting / system property: JDBC URL of the control database to lease a worker id from. */
  public static final String LEASE_URL = SnowflakeSettings.LEASE_URL;
  /** Setting / system property: user for {@link #LEASE_URL}. */
  public static final String LEASE_USER = SnowflakeSettings.LEASE_USER;
  /** Setting / system property: password for {@link #LEASE_URL}. */
  public static final String LEASE_PASSWORD = SnowflakeSettings.LEASE_PASSWORD;
  /** Setting / system property: lease time-to-live in seconds (default 30). */
  public static final String LEASE_TTL_SECONDS = SnowflakeSettings.LEASE_TTL_SECONDS;

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

  /** The default layout, for ids that get a Snowflake generator by {@code shardwise.ids.default}. */
  @SnowflakeId
  private static final long DEFAULTS = 0;

  /** Called by Hibernate for each attribute annotated with {@link SnowflakeId}. */
  public SnowflakeGenerator(SnowflakeId annotation, Member member, GeneratorCreationContext context) {
    this(annotation, member, context, member.getDeclaringClass().getSimpleName() + "." + member.getName());
  }

  /**
   * The generator an id without one of its own gets under {@code shardwise.ids.default = snowflake}:
   * {@code @SnowflakeId} with its defaults. Messages name the entity and the setting.
   */
  public static SnowflakeGenerator byDefault(String entity, Member member, GeneratorCreationContext context) {
    SnowflakeId defaults;
    try {
      defaults = SnowflakeGenerator.class.getDeclaredField("DEFAULTS").getAnnotation(SnowflakeId.class);
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(e);
    }
    return new SnowflakeGenerator(defaults, member, context,
        entity + "." + member.getName() + " (by shardwise.ids.default = snowflake)");
  }

  private SnowflakeGenerator(SnowflakeId annotation, Member member, GeneratorCreationContext context, String attribute) {
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

  /** Parses the worker source from {@code settings} (then system properties) and shares the generator. */
  static Snowflake generatorFor(SnowflakeLayout layout, Duration stepBack, SettingSource settings, String attribute) {
    SnowflakeSettings parsed;
    try {
      parsed = SnowflakeSettings.parse(settings::get);
    } catch (IllegalStateException e) {
      throw new IllegalStateException("@SnowflakeId on " + attribute + ": " + e.getMessage(), e);
    }
    return generatorFor(layout, stepBack, parsed, attribute);
  }

  /** The generator for a layout and worker source, shared by every attribute that names the same. */
  static Snowflake generatorFor(SnowflakeLayout layout, Duration stepBack, SnowflakeSettings settings,
      String attribute) {
    if (settings.workerId() == null && settings.leaseUrl() == null) {
      throw new IllegalStateException("@SnowflakeId on " + attribute + " needs a worker id: set " + WORKER_ID
          + " (a number unique per running instance, 0.." + layout.maxWorkerId() + ") or " + LEASE_URL
          + " (a PostgreSQL JDBC URL to lease one from), as a Hibernate setting or a system property");
    }
    String clockName = settings.ticking() ? "ticking" : "system";
    Clock clock = settings.ticking() ? Clock.ticking() : Clock.system();
    String key = layout + "/"
        + (settings.workerId() != null ? "worker=" + settings.workerId() : "lease=" + settings.leaseUrl());
    Shared shared = GENERATORS.computeIfAbsent(key, k -> {
      Snowflake.Builder builder = Snowflake.builder(layout).maxClockStepBack(stepBack).clock(clock);
      if (settings.workerId() != null) {
        try {
          builder.workerId(settings.workerId());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("@SnowflakeId on " + attribute + ": " + WORKER_ID + " = "
              + settings.workerId() + ": " + e.getMessage(), e);
        }
      } else {
        builder.workerLease(leaseFor(settings, layout.maxWorkerId()));
      }
      return new Shared(builder.build(), clockName);
    });
    if (!shared.clockName().equals(clockName)) {
      throw new IllegalStateException("@SnowflakeId on " + attribute + ": " + shared.snowflake() + " already generates"
          + " ids in this JVM on the " + shared.clockName() + " clock; a second generator on the " + clockName
          + " clock would repeat its ids. Set the same " + CLOCK + " for every persistence unit of this JVM");
    }
    return shared.snowflake();
  }

  private static WorkerLease leaseFor(SnowflakeSettings settings, int maxWorkerId) {
    return LEASES.computeIfAbsent(settings.leaseUrl() + "/" + settings.leaseUser() + "/" + maxWorkerId, k -> {
      WorkerLease.Builder builder = WorkerLease.builder(settings.leaseUrl()).user(settings.leaseUser())
          .password(settings.leasePassword()).maxWorkerId(maxWorkerId)
          .createTableIfMissing(settings.createLeaseTable());
      if (settings.leaseTtl() != null) {
        builder.ttl(settings.leaseTtl());
      }
      return builder.acquire();
    });
  }

  @FunctionalInterface
  interface SettingSource {
    Object get(String name);
  }

  /**
   * A new id, or the id the application already set: {@code @SnowflakeId} never overwrites an
   * assigned id (Shardwise's write guard then checks that it belongs to the session's shard). An id
   * of 0 counts as not set — the default of a primitive {@code long}, and never a Snowflake id.
   */
  @Override
  public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue,
      EventType eventType) {
    return isUnset(currentValue) ? snowflake.nextId(maxClockStepBackMillis) : currentValue;
  }

  /** Whether {@code id} is not set yet: null, or 0 (a primitive {@code long}'s default). */
  public static boolean isUnset(Object id) {
    return id == null || id instanceof Long value && value == 0L;
  }

  /** Ids the application set before persist are kept: Hibernate passes them to {@link #generate} as the current value. */
  @Override
  public boolean allowAssignedIdentifiers() {
    return true;
  }

  /**
   * The next id of this attribute's generator that {@code accept} accepts, e.g. one that routes to
   * the session's shard: see {@link Snowflake#nextIdMatching(LongPredicate, int)}.
   */
  public long nextIdMatching(LongPredicate accept, int maxDraws) {
    return snowflake.nextIdMatching(accept, maxDraws, maxClockStepBackMillis);
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
