package io.shardwise.hibernate.internal.query;

import io.shardwise.queryrules.NativeSqlRule;
import io.shardwise.queryrules.QueryModel;
import io.shardwise.queryrules.ShardKeyRule;
import io.shardwise.hibernate.ShardKeyMissingException;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.queryrules.ShardKeyRule.Unpinned;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The run-time half of the shard-key rule: every HQL string a session factory is asked to run is
 * held to {@link ShardKeyRule} once, when Hibernate first translates it, and refused with
 * {@link ShardKeyMissingException} before any SQL is sent when a sharded entity's key is not
 * pinned. The verdict is kept per query string, so the rule runs once per distinct query however
 * often Hibernate translates it again.
 *
 * <h2>The scatter-gather API's way through</h2>
 *
 * Queries that must run on every shard go through {@link #bypass(Supplier)}, and their text
 * through {@link #scatterGather(String)}:
 *
 * <pre>{@code
 * List<R> part = QueryGuard.bypass(() -> session
 *     .createSelectionQuery(QueryGuard.scatterGather(hql), type).getResultList());
 * }</pre>
 *
 * Both are needed because Hibernate caches what it translated under the query string: were the
 * bare text admitted inside a bypass, a later plain {@code createQuery} with the same text would
 * reuse that translation and never reach this guard. The marked text is a different string (an
 * HQL comment in front), so its translation is cached apart and the bare text stays guarded.
 * Inside a bypass, an unpinned query without the mark is a programming error
 * ({@link IllegalStateException}); outside a bypass, the mark alone permits nothing.
 *
 * <p>Queries that name only reference tables, or that pin every sharded entity, need neither.
 * Named queries whose declaring entity carries {@code @ScatterGather} are admitted by name.
 */
public final class QueryGuard {

  /** The comment {@link #scatterGather(String)} puts in front of a query. */
  public static final String SCATTER_GATHER_MARK = "/* shardwise:scatter-gather */ ";

  /** The bypass depth of a thread inside {@link #bypass}; absent outside, so that asking costs no allocation. */
  private static final ThreadLocal<int[]> BYPASS = new ThreadLocal<>();
  private static final int MAX_VERDICTS = 4096;
  private static final int QUOTED_LENGTH = 200;
  /** The tag of a refusal that no scatter-gather mark lifts. */
  private static final String INSERT_WITHOUT_KEY = "[InsertWithoutShardKey]";
  /** The verdict of a query that pins every sharded entity it names. */
  private static final String ADMITTED = "";

  private final QueryModel model;
  private final ShardKeyRule rule;
  private final NativeSqlRule nativeRule;
  private final MetadataQueryModel tables;
  private final ConcurrentHashMap<String, NativeVerdict> nativeVerdicts = new ConcurrentHashMap<>();
  private final ShardingModel sharding;
  private final ShardKeyValues keyValues;
  private final String unitName;
  private final Set<String> admittedByName;
  private final ConcurrentHashMap<String, String> refusals = new ConcurrentHashMap<>();
  private final LongAdder evaluations = new LongAdder();
  private final io.shardwise.hibernate.metrics.ShardwiseMetrics metrics;

  QueryGuard(QueryModel model, ShardingModel sharding, ShardKeyValues keyValues, String unitName,
      Set<String> admittedByName, io.shardwise.hibernate.metrics.ShardwiseMetrics metrics) {
    this.metrics = metrics;
    this.model = model;
    this.rule = new ShardKeyRule(model);
    this.tables = model instanceof MetadataQueryModel metadata ? metadata : null;
    this.nativeRule = tables == null ? null : new NativeSqlRule(tables);
    this.sharding = sharding;
    this.keyValues = keyValues;
    this.unitName = unitName;
    this.admittedByName = Set.copyOf(admittedByName);
  }

  /**
   * The named parameter {@code hql} compares the shard key of its first FROM entity with (a query
   * without FROM, as Jakarta Data writes them, reads {@code implicitEntity}), or null when there is
   * none or the query does not parse.
   */
  public String keyParameter(String hql, String implicitEntity) {
    ShardKeyRule.Analysis analysis = rule.analyze(hql, implicitEntity == null ? null : model.entity(implicitEntity));
    return analysis == null ? null : analysis.keyParameter();
  }

  ShardingModel sharding() {
    return sharding;
  }

  ShardKeyValues keyValues() {
    return keyValues;
  }

  // --- the scatter-gather API's bypass --------------------------------------------------------

  /**
   * Runs {@code work} with the guard lifted for this thread: queries it creates may leave the
   * shard key unpinned, provided their text went through {@link #scatterGather(String)}. Nests;
   * the guard is back when the outermost call returns or throws.
   */
  public static <T> T bypass(Supplier<T> work) {
    int[] depth = BYPASS.get();
    if (depth == null) {
      depth = new int[1];
      BYPASS.set(depth);
    }
    depth[0]++;
    try {
      return work.get();
    } finally {
      if (--depth[0] == 0) {
        BYPASS.remove();
      }
    }
  }

  /** The query text to create inside {@link #bypass(Supplier)} when it runs on every shard. */
  public static String scatterGather(String hql) {
    return hql.startsWith(SCATTER_GATHER_MARK) ? hql : SCATTER_GATHER_MARK + hql;
  }

  /**
   * The comment that marks a criteria query as a scatter-gather query (a criteria query has no
   * text to put {@link #SCATTER_GATHER_MARK} in front of); set it with {@link #scatterGather(org.hibernate.query.SelectionQuery)}.
   */
  public static final String SCATTER_GATHER_COMMENT = "shardwise:scatter-gather";

  /**
   * Marks a selection query created from a criteria query to run on every shard inside
   * {@link #bypass(Supplier)}: sets its comment to {@value #SCATTER_GATHER_COMMENT} and keeps its
   * plan out of Hibernate's query plan cache. Hibernate keys a cached criteria plan by the
   * query's structure, not by its comment, so a cached plan of the marked query would later serve
   * the same criteria query unmarked, past the guard. (Criteria updates and deletes cannot be
   * kept out of that cache, so they have no scatter-gather mark; one that leaves the key
   * unpinned is refused, inside a bypass too.)
   */
  public static <Q extends org.hibernate.query.SelectionQuery<?>> Q scatterGather(Q query) {
    query.setComment(SCATTER_GATHER_COMMENT);
    query.setQueryPlanCacheable(false);
    return query;
  }

  /** Whether the current thread is inside {@link #bypass(Supplier)}. */
  public static boolean bypassed() {
    int[] depth = BYPASS.get();
    return depth != null && depth[0] > 0;
  }

  // --- the check --------------------------------------------------------------------------------

  /**
   * Admits the query or throws {@link ShardKeyMissingException}. Queries that do not parse are
   * admitted here: Hibernate's translation reports them, with its own message.
   */
  void check(String hql) {
    String refusal = refusals.get(hql);
    if (refusal == null) {
      refusal = evaluate(hql);
      if (refusals.size() >= MAX_VERDICTS) {
        refusals.clear();
      }
      refusals.put(hql, refusal);
    }
    if (refusal.isEmpty()) {
      return;
    }
    if (bypassed() && !refusal.startsWith(INSERT_WITHOUT_KEY)) {
      if (hql.startsWith(SCATTER_GATHER_MARK)) {
        return;
      }
      throw new IllegalStateException("Inside QueryGuard.bypass, a query that runs on every shard must be"
          + " created from QueryGuard.scatterGather(hql), so that Hibernate caches its translation apart"
          + " from the bare text, which stays guarded. Query: \"" + quote(hql) + "\"");
    }
    metrics.refused(io.shardwise.hibernate.metrics.ShardwiseMetrics.Refusal.MISSING_KEY);
    throw new ShardKeyMissingException(refusal);
  }

  /**
   * Admits a criteria query, given as the HQL Hibernate renders from it, or throws
   * {@link ShardKeyMissingException}; a query whose comment is {@value #SCATTER_GATHER_COMMENT}
   * counts as marked.
   */
  void checkCriteria(String renderedHql, String comment) {
    check(SCATTER_GATHER_COMMENT.equals(comment) ? scatterGather(renderedHql) : renderedHql);
  }

  /** How many times the rule itself ran (a verdict found in the cache does not count). */
  public long evaluations() {
    return evaluations.sum();
  }

  private String evaluate(String hql) {
    evaluations.increment();
    if (admittedByName.contains(hql)) {
      return ADMITTED;
    }
    ShardKeyRule.Analysis analysis = rule.analyze(hql, null);
    if (analysis == null) {
      return ADMITTED;
    }
    if (analysis.insertWithoutKey() != null) {
      // refused on every shard alike, scatter-gather included: no shard may get such rows
      ShardKeyRule.InsertWithoutKey insert = analysis.insertWithoutKey();
      String key = insert.entity().shardKey();
      return INSERT_WITHOUT_KEY + " Query \"" + quote(hql) + "\" of persistence unit '" + unitName
          + "' inserts into sharded entity " + insert.entity().simpleName() + " but " + insert.problem()
          + ": its rows would get a null or unrelated shard key and sit on a shard their key does not route"
          + " to. Fix: write " + key + " among the inserted attributes, from a parameter (:" + key + ") or"
          + " from the key of the rows the insert selects (select x." + key + ", ...). Nothing was sent.";
    }
    List<Unpinned> unpinned = analysis.unpinned();
    if (unpinned.isEmpty()) {
      return ADMITTED;
    }
    return message(hql, unpinned, unitName);
  }

  static String message(String hql, List<Unpinned> unpinned, String unitName) {
    Unpinned first = unpinned.get(0);
    String key = first.entity().shardKey();
    String path = first.alias() == null ? key : first.alias() + "." + key;
    String culprits = unpinned.stream()
        .map(u -> u.describe() + " (shard key " + u.entity().shardKey() + ")")
        .collect(Collectors.joining(", "));
    return "Query \"" + quote(hql) + "\" of persistence unit '" + unitName + "' uses sharded entity "
        + culprits + " without pinning its shard key: on every branch of the WHERE clause, " + path
        + " must be compared with = or IN to a parameter or literal. Otherwise it would run on one"
        + " shard and miss the rows on the others, so it was refused before any SQL was sent."
        + " Fix: add \"" + path + " = :" + key + "\" to the WHERE clause"
        + (first.crossesGroups()
            ? " (it joins " + first.otherGroup().describe() + " of another co-location group, so both keys"
                + " must route to the session's shard; scatter-gather cannot join across groups), or split"
                + " the query into one per co-location group."
            : ", or run the query on every shard through the scatter-gather API.");
  }

  // --- native SQL -------------------------------------------------------------------------------

  /**
   * What the rule says of one native statement: the refusal (empty when admitted) and the values
   * its key columns are compared with, checked against the session's shard at every execution.
   */
  record NativeVerdict(String refusal, List<NativeSqlRule.KeyPin> pins) {}

  private static final NativeVerdict NATIVE_ADMITTED = new NativeVerdict(ADMITTED, List.of());

  /**
   * Admits a native statement or throws {@link ShardKeyMissingException}, as {@link #check} does
   * for HQL: a sharded table whose key column nothing pins is refused, as is an insert that does
   * not write the key column; SQL the parser cannot read, or that names no table of an entity, is
   * admitted (the build-time check warned about it). Returns the verdict, with its key pins.
   */
  NativeVerdict checkNative(String sql) {
    NativeVerdict verdict = nativeVerdict(sql);
    if (verdict.refusal().isEmpty()) {
      return verdict;
    }
    if (bypassed() && !verdict.refusal().startsWith(INSERT_WITHOUT_KEY)) {
      if (sql.startsWith(SCATTER_GATHER_MARK)) {
        return verdict;
      }
      throw new IllegalStateException("Inside QueryGuard.bypass, a native query that runs on every shard must"
          + " be created from QueryGuard.scatterGather(sql). Query: \"" + quote(sql) + "\"");
    }
    metrics.refused(io.shardwise.hibernate.metrics.ShardwiseMetrics.Refusal.MISSING_KEY);
    throw new ShardKeyMissingException(verdict.refusal());
  }

  /** The verdict on a native statement, from the cache or from one run of the rule. */
  NativeVerdict nativeVerdict(String sql) {
    NativeVerdict verdict = nativeVerdicts.get(sql);
    if (verdict == null) {
      verdict = evaluateNative(sql);
      if (nativeVerdicts.size() >= MAX_VERDICTS) {
        nativeVerdicts.clear();
      }
      nativeVerdicts.put(sql, verdict);
    }
    return verdict;
  }

  private NativeVerdict evaluateNative(String sql) {
    evaluations.increment();
    if (nativeRule == null || admittedByName.contains(sql)) {
      return NATIVE_ADMITTED;
    }
    NativeSqlRule.Analysis analysis = nativeRule.analyze(sql);
    if (analysis.unreadable() != null) {
      return NATIVE_ADMITTED;
    }
    if (analysis.insertWithoutKey() != null) {
      NativeSqlRule.InsertWithoutKey insert = analysis.insertWithoutKey();
      String key = insert.table().keyColumn();
      return new NativeVerdict(INSERT_WITHOUT_KEY + " Native query \"" + quote(sql) + "\" of persistence unit '"
          + unitName + "' inserts into the table of sharded entity " + insert.table().entity().simpleName()
          + " but " + insert.problem() + ": its rows would get a null or unrelated shard key and sit on a shard"
          + " their key does not route to. Fix: write " + key + " among the inserted columns, from a parameter"
          + " or from the key of the rows the insert selects. Nothing was sent.", List.of());
    }
    if (analysis.unpinned().isEmpty()) {
      return new NativeVerdict(ADMITTED, analysis.keyPins());
    }
    NativeSqlRule.UnpinnedTable first = analysis.unpinned().get(0);
    String column = (first.alias() == null ? "" : first.alias() + ".") + first.table().keyColumn();
    String culprits = analysis.unpinned().stream()
        .map(u -> u.describe() + " (entity " + u.table().entity().simpleName() + ", key column "
            + u.table().keyColumn() + ")")
        .collect(Collectors.joining(", "));
    return new NativeVerdict("Native query \"" + quote(sql) + "\" of persistence unit '" + unitName + "' reads"
        + " sharded table " + culprits + " without pinning its key column: on every branch of its WHERE and ON"
        + " conditions, " + column + " must be compared with = or IN to a parameter or literal, or equal the key"
        + " column of a pinned table of its co-location group. Otherwise it would run on one shard and miss the"
        + " rows on the others, so it was refused before any SQL was sent. Fix: add \"" + column + " = :"
        + first.table().entity().shardKey() + "\", or run the query on every shard through the scatter-gather"
        + " API.", analysis.keyPins());
  }

  /**
   * Checks every value a native select pins a key column to against the session's shard, as
   * {@link CheckedKeyParameter} does for HQL, before the statement is sent. The statement is the
   * one Hibernate sends, with a JDBC placeholder for each occurrence of a parameter.
   */
  void checkNativeValues(List<NativeSqlRule.KeyPin> pins, List<org.hibernate.query.sql.spi.ParameterOccurrence> occurrences,
      org.hibernate.query.spi.QueryParameterBindings bindings,
      org.hibernate.engine.spi.SharedSessionContractImplementor session) {
    checkPinnedValues(pins, pin -> {
      org.hibernate.query.spi.QueryParameterBinding<?> binding = pin.parameterName() != null
          ? bindings.getBinding(pin.parameterName())
          : pin.position() == null ? null : placeholderBinding(pin.position(), occurrences, bindings, session);
      if (binding == null || !binding.isBound()) {
        return null;
      }
      return binding.isMultiValued() ? binding.getBindValues() : binding.getBindValue();
    }, session);
  }

  /**
   * The binding behind the n-th JDBC placeholder of a native select as Hibernate sends it: a list
   * parameter stands for as many placeholders as Hibernate expands it to (its values, padded when
   * IN-list padding is on), every other occurrence for one.
   */
  private static org.hibernate.query.spi.QueryParameterBinding<?> placeholderBinding(int position,
      List<org.hibernate.query.sql.spi.ParameterOccurrence> occurrences,
      org.hibernate.query.spi.QueryParameterBindings bindings,
      org.hibernate.engine.spi.SharedSessionContractImplementor session) {
    org.hibernate.engine.spi.SessionFactoryImplementor factory = session.getFactory();
    int last = 0;
    for (org.hibernate.query.sql.spi.ParameterOccurrence occurrence : occurrences) {
      org.hibernate.query.spi.QueryParameterBinding<?> binding = bindings.getBinding(occurrence.parameter());
      last += binding != null && binding.isMultiValued()
          ? org.hibernate.query.sql.internal.NativeQueryImpl.determineBindValueMaxCount(
              factory.getSessionFactoryOptions().inClauseParameterPaddingEnabled(),
              factory.getJdbcServices().getDialect().getInExpressionCountLimit(), binding.getBindValues().size())
          : 1;
      if (position <= last) {
        return position >= 1 ? binding : null;
      }
    }
    return null;
  }

  /**
   * Checks every value a native UPDATE, DELETE or INSERT pins or writes a key column to against
   * the session's shard (binding a session of no shard to their shard), before it is prepared.
   * {@code sql} is the statement as sent, one JDBC placeholder per bound value, each placeholder's
   * value at the same index of {@code binders}.
   */
  void checkNativeMutationValues(String sql, List<org.hibernate.sql.exec.spi.JdbcParameterBinder> binders,
      org.hibernate.sql.exec.spi.JdbcParameterBindings bindings,
      org.hibernate.engine.spi.SharedSessionContractImplementor session) {
    List<NativeSqlRule.KeyPin> pins = nativeVerdict(sql).pins();
    if (pins.isEmpty()) {
      return;
    }
    checkPinnedValues(pins, pin -> {
      if (pin.position() == null || pin.position() < 1 || pin.position() > binders.size()
          || !(binders.get(pin.position() - 1) instanceof org.hibernate.sql.ast.tree.expression.JdbcParameter placeholder)) {
        return null;
      }
      org.hibernate.sql.exec.spi.JdbcParameterBinding binding = bindings.getBinding(placeholder);
      return binding == null ? null : binding.getBindValue();
    }, session);
  }

  /** {@code boundValue} gives the value bound to a parameter pin, or null when it has none. */
  private void checkPinnedValues(List<NativeSqlRule.KeyPin> pins,
      java.util.function.Function<NativeSqlRule.KeyPin, Object> boundValue,
      org.hibernate.engine.spi.SharedSessionContractImplementor session) {
    for (NativeSqlRule.KeyPin pin : pins) {
      ShardedEntity entity = tables.shardedOf(pin.table().entity());
      if (entity == null) {
        continue;
      }
      Object value = pin.literal() != null ? literalKey(pin.literal(), entity) : boundValue.apply(pin);
      ShardKeyValues.KeyPins single = new ShardKeyValues.KeyPins();
      single.add(entity);
      keyValues.requireQueryValue(single, entity, value, session);
    }
  }

  /** A literal as the key type routes it: {@code '7f...'} for a uuid key, {@code 42} for a long key. */
  private static Object literalKey(Object literal, ShardedEntity entity) {
    if (entity.keyType() == io.shardwise.hibernate.routing.ShardKeyType.UUID && literal instanceof String text) {
      try {
        return java.util.UUID.fromString(text);
      } catch (IllegalArgumentException notAUuid) {
        return text;
      }
    }
    if (entity.keyType() == io.shardwise.hibernate.routing.ShardKeyType.STRING && !(literal instanceof String)) {
      return String.valueOf(literal);
    }
    return literal;
  }

  private static String quote(String hql) {
    String flat = hql.strip().replaceAll("\\s+", " ");
    return flat.length() <= QUOTED_LENGTH ? flat : flat.substring(0, QUOTED_LENGTH - 3) + "...";
  }
}
