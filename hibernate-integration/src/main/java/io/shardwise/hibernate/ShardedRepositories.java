package io.shardwise.hibernate;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.internal.query.QueryGuards;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.scatter.ScatterQuery;
import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import jakarta.persistence.EntityManager;
import java.lang.annotation.Annotation;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.InvocationHandlerAdapter;
import net.bytebuddy.matcher.ElementMatchers;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;

/**
 * Shard-aware Jakarta Data repositories for applications without Spring. hibernate-processor
 * implements a {@code @Repository} interface ({@code @Find}, {@code @Query}, {@code @Insert}, ...)
 * over one session; {@link #get} returns an implementation of the same interface that runs each
 * call in its own transaction on the shard the call belongs to, through the generated class.
 *
 * <pre>{@code
 * ShardedRepositories repositories = ShardedRepositories.of(shards);
 * OrderRepository orders = repositories.get(OrderRepository.class);
 * orders.add(new PurchaseOrder(id, merchantId, "alice"));     // the order's shard
 * orders.byMerchant(merchantId);                              // @Find with a merchantId parameter
 * orders.newestEverywhere("OPEN");                            // @ScatterGather: every shard, merged
 * }</pre>
 *
 * <p>The shard of a call is read from, in this order: the argument of a parameter annotated
 * {@code @ShardKey}; the parameter the method compares with the entity's shard key (a {@code @Find}
 * parameter named like the key or {@code @By} it, the {@code :parameter} a {@code @Query} compares
 * the key with); an entity argument's key ({@code @Insert}, {@code @Save}, {@code @Update},
 * {@code @Delete}; every element of a collection must live on one shard). A method marked
 * {@link ScatterGather @ScatterGather} runs on every shard through {@link ShardedSessions#scatter()},
 * with its merge rules: a {@code @Query} as written, a {@code @Find} as the equality query its
 * parameters describe. A call whose shard cannot be known is refused with
 * {@link ShardKeyMissingException} before any SQL is sent; the annotation processor reports the
 * same methods at build time.
 */
public final class ShardedRepositories {
  private static final String DATA = "jakarta.data.repository.";
  private static final Set<String> WRITES = Set.of(DATA + "Insert", DATA + "Save", DATA + "Update", DATA + "Delete");
  private static final Set<String> SCATTER_SPECIAL_PARAMETERS = Set.of("jakarta.data.Order", "jakarta.data.Sort",
      "jakarta.data.Limit", "jakarta.data.page.PageRequest");
  private static final Pattern NAMED_PARAMETER = Pattern.compile(":([A-Za-z_][A-Za-z0-9_]*)");
  private static final Pattern POSITIONAL_PARAMETER = Pattern.compile("\\?([0-9]+)");

  private final ShardedSessions shards;
  private final ShardingModel model;
  private final QueryGuard guard;
  private final ShardwiseMetrics metrics;
  private final Map<Class<?>, Object> primaries = new ConcurrentHashMap<>();
  private final Map<Class<?>, Object> readOnlies = new ConcurrentHashMap<>();

  private ShardedRepositories(ShardedSessions shards) {
    this.shards = shards;
    this.model = shards.components().model();
    this.guard = QueryGuards.of(shards.sessionFactory());
    this.metrics = shards.components().metrics();
  }

  /** The repositories of a sharded session factory. */
  public static ShardedRepositories of(ShardedSessions shards) {
    return new ShardedRepositories(shards);
  }

  /**
   * The sharded implementation of {@code repositoryType}: each call is a transaction on the primary
   * of its shard.
   *
   * @throws ShardingConfigurationException when {@code repositoryType} is not a public interface or
   *     hibernate-processor did not generate its implementation
   */
  public <R> R get(Class<R> repositoryType) {
    return repositoryType.cast(primaries.computeIfAbsent(repositoryType, type -> create(type, false)));
  }

  /** The same with every call in a read-only transaction, served by the shard's replicas. */
  public <R> R readOnly(Class<R> repositoryType) {
    return repositoryType.cast(readOnlies.computeIfAbsent(repositoryType, type -> create(type, true)));
  }

  private Object create(Class<?> repositoryType, boolean readOnly) {
    if (!repositoryType.isInterface() || !Modifier.isPublic(repositoryType.getModifiers())) {
      throw new ShardingConfigurationException(repositoryType.getName() + " is not a public interface; Shardwise"
          + " implements Jakarta Data repository interfaces (annotated @jakarta.data.repository.Repository).");
    }
    Constructor<?> generated = generatedImplementation(repositoryType);
    Map<Method, Call> calls = new HashMap<>();
    for (Method method : repositoryType.getMethods()) {
      if (Modifier.isAbstract(method.getModifiers())) {
        calls.put(method, plan(repositoryType, method, generated, readOnly));
      }
    }
    InvocationHandler handler = (proxy, method, args) -> calls.get(method).invoke(args == null ? new Object[0] : args);
    try {
      return new ByteBuddy()
          .subclass(Object.class)
          .implement(repositoryType)
          .name(repositoryType.getName() + (readOnly ? "$ShardwiseReadOnly" : "$Shardwise"))
          .method(ElementMatchers.isAbstract())
          .intercept(InvocationHandlerAdapter.of(handler))
          .make()
          .load(repositoryType.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER)
          .getLoaded()
          .getConstructor()
          .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Could not instantiate the sharded implementation of "
          + repositoryType.getName(), e);
    }
  }

  private static Constructor<?> generatedImplementation(Class<?> repositoryType) {
    String name = repositoryType.getName() + "_";
    Class<?> implementation;
    try {
      implementation = Class.forName(name, true, repositoryType.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new ShardingConfigurationException("No implementation of " + repositoryType.getName() + " was generated"
          + " (looked for " + name + "). Put org.hibernate.orm:hibernate-processor on the annotation processor"
          + " path and annotate the interface with @jakarta.data.repository.Repository.");
    }
    for (Constructor<?> constructor : implementation.getConstructors()) {
      Class<?>[] parameters = constructor.getParameterTypes();
      if (parameters.length == 1 && (parameters[0] == StatelessSession.class
          || parameters[0].isAssignableFrom(Session.class))) {
        return constructor;
      }
    }
    throw new ShardingConfigurationException(name + " has no public constructor taking a StatelessSession, Session"
        + " or EntityManager; Shardwise opens one per call on the call's shard.");
  }

  // ---- planning each method once --------------------------------------------------------------

  private Call plan(Class<?> repository, Method method, Constructor<?> generated, boolean readOnly) {
    String signature = repository.getSimpleName() + "." + method.getName();
    if (method.getParameterCount() == 0 && (method.getReturnType() == StatelessSession.class
        || EntityManager.class.isAssignableFrom(method.getReturnType()))) {
      return args -> {
        throw new UnsupportedOperationException(signature + "() would hand out one session, but a sharded repository"
            + " opens a session per call on the call's shard. Open one with shards.forKey(key).openSession().");
      };
    }
    Class<?> entityType = entityType(repository, method);
    if (method.isAnnotationPresent(ScatterGather.class)) {
      return scatter(signature, method, entityType);
    }
    ShardedEntity entity = entityType == null ? null : model.byClass(entityType);
    if (entity != null && entity.reference()) {
      return args -> runWithoutShard(generated, method, args, readOnly);
    }
    Parameter[] parameters = method.getParameters();
    int keyed = keyParameter(method, entity);
    if (keyed >= 0) {
      String described = "argument " + parameters[keyed].getName();
      return args -> {
        Object key = args[keyed];
        if (key == null) {
          metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
          throw new ShardKeyMissingException(signature + " was called with a null shard key (" + described + "); a"
              + " null key routes nowhere. Nothing was sent.");
        }
        return run(shards.forKey(key), generated, method, args, readOnly);
      };
    }
    for (int i = 0; i < parameters.length; i++) {
      if (isWrite(method) && model.byClass(elementType(parameters[i].getParameterizedType())) != null) {
        int index = i;
        return args -> run(routeOfEntities(signature, args[index]), generated, method, args, readOnly);
      }
    }
    String key = entity == null ? "its shard key" : entity.simpleName() + "." + entity.keyAttribute();
    return args -> {
      metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
      throw new ShardKeyMissingException(signature + " does not say which shard to ask: none of its parameters"
          + " carries " + key + ". Add the key as a parameter (named like the attribute, or annotated @ShardKey), or"
          + " mark the method @ScatterGather to run it on every shard. Nothing was sent.");
    };
  }

  /** The index of the parameter carrying the shard key of {@code entity}, or -1. */
  private int keyParameter(Method method, ShardedEntity entity) {
    Parameter[] parameters = method.getParameters();
    for (int i = 0; i < parameters.length; i++) {
      if (parameters[i].isAnnotationPresent(ShardKey.class)) {
        return i;
      }
    }
    String query = annotationValue(method, DATA + "Query");
    if (entity == null && query == null) {
      return -1;
    }
    String boundName = query == null ? entity.keyAttribute() : guard == null ? null
        : guard.keyParameter(query, entity == null ? null : entity.entityName());
    for (int i = 0; i < parameters.length; i++) {
      String by = annotationValue(parameters[i], DATA + "By");
      if (query == null && entity.keyAttribute().equals(by)) {
        return i;
      }
      if (boundName != null && by == null && boundName.equals(parameterName(parameters[i]))) {
        return i;
      }
    }
    return -1;
  }

  private Call scatter(String signature, Method method, Class<?> entityType) {
    ShardedEntity entity = entityType == null ? null : model.byClass(entityType);
    Parameter[] parameters = method.getParameters();
    String query = annotationValue(method, DATA + "Query");
    String hql;
    Map<String, Integer> named = new HashMap<>();
    Map<Integer, Integer> positional = new HashMap<>();
    if (query != null) {
      hql = withRoot(query, entity, signature);
      Matcher names = NAMED_PARAMETER.matcher(hql);
      while (names.find()) {
        named.put(names.group(1), -1);
      }
      for (int i = 0; i < parameters.length; i++) {
        if (named.containsKey(parameterName(parameters[i]))) {
          named.put(parameterName(parameters[i]), i);
        }
      }
      Matcher positions = POSITIONAL_PARAMETER.matcher(hql);
      while (positions.find()) {
        int position = Integer.parseInt(positions.group(1));
        positional.put(position, position - 1);
      }
    } else if (method.isAnnotationPresent(annotationType(DATA + "Find")) && entity != null) {
      StringBuilder where = new StringBuilder();
      for (int i = 0; i < parameters.length; i++) {
        if (SCATTER_SPECIAL_PARAMETERS.contains(parameters[i].getType().getName())) {
          return refusedScatter(signature, "takes a " + parameters[i].getType().getSimpleName() + " parameter; merge"
              + " order and limits across shards need them in the query: write it as @Query(\"... order by ...\")"
              + " and page with the scatter-gather API");
        }
        String by = annotationValue(parameters[i], DATA + "By");
        String attribute = by != null ? by : parameterName(parameters[i]);
        where.append(where.length() == 0 ? " where " : " and ").append(attribute).append(" = :p").append(i);
        named.put("p" + i, i);
      }
      hql = "from " + entity.entityName() + where;
    } else {
      return refusedScatter(signature, "is neither a @Query nor a @Find of a sharded entity; only reads run on"
          + " every shard");
    }
    Class<?> resultType = resultType(method, entityType);
    for (Map.Entry<String, Integer> binding : named.entrySet()) {
      if (binding.getValue() < 0) {
        return refusedScatter(signature, "binds :" + binding.getKey() + ", which none of its parameters is named"
            + " (compile with -parameters or annotate the parameter with @jakarta.data.repository.Param)");
      }
    }
    return args -> {
      ScatterQuery<?> scatter = shards.scatter().createQuery(hql, resultType);
      named.forEach((name, index) -> scatter.setParameter(name, args[index]));
      positional.forEach((position, index) -> scatter.setParameter(position, args[index]));
      return scatterResult(signature, method, scatter);
    };
  }

  private static Call refusedScatter(String signature, String why) {
    return args -> {
      throw new UnsupportedScatterQueryException(signature + " is marked @ScatterGather but " + why + ". Nothing was"
          + " sent.");
    };
  }

  private static Object scatterResult(String signature, Method method, ScatterQuery<?> scatter) {
    Class<?> returns = method.getReturnType();
    if (returns == List.class || returns == Collection.class || returns == Iterable.class) {
      return scatter.getResultList();
    }
    if (returns == Set.class) {
      return new LinkedHashSet<>(scatter.getResultList());
    }
    if (returns == Stream.class) {
      return scatter.getResultList().stream();
    }
    if (returns.isArray()) {
      List<?> rows = scatter.getResultList();
      Object array = Array.newInstance(returns.getComponentType(), rows.size());
      for (int i = 0; i < rows.size(); i++) {
        Array.set(array, i, rows.get(i));
      }
      return array;
    }
    if (returns == Optional.class) {
      return Optional.ofNullable(scatter.getSingleResultOrNull());
    }
    if (returns.getName().startsWith("jakarta.data.page.")) {
      throw new UnsupportedScatterQueryException(signature + " returns a " + returns.getSimpleName() + "; pages"
          + " across shards are read with the scatter-gather API (ScatterQuery.after(...)). Nothing was sent.");
    }
    Object single = scatter.getSingleResult();
    if (returns == long.class || returns == Long.class) {
      return ((Number) single).longValue();
    }
    if (returns == int.class || returns == Integer.class) {
      return Math.toIntExact(((Number) single).longValue());
    }
    return single;
  }

  /** A Jakarta Data query without FROM reads the repository's entity; the scatter-gather API needs it named. */
  private static String withRoot(String query, ShardedEntity entity, String signature) {
    String trimmed = query.strip();
    String lower = trimmed.toLowerCase(java.util.Locale.ROOT);
    if (lower.startsWith("from ") || lower.matches("(?s)^select\\s.*\\sfrom\\s.*")) {
      return trimmed;
    }
    if (entity == null || lower.startsWith("select")) {
      throw new ShardingConfigurationException(signature + " is marked @ScatterGather and its query names no"
          + " entity (" + trimmed + "); add its FROM clause.");
    }
    return "from " + entity.entityName() + " " + trimmed;
  }

  // ---- running one call ----------------------------------------------------------------------

  @FunctionalInterface
  private interface Call {
    Object invoke(Object[] args) throws Throwable;
  }

  private ShardRoute routeOfEntities(String signature, Object argument) {
    List<Object> entities = new ArrayList<>();
    if (argument instanceof Iterable<?> iterable) {
      iterable.forEach(entities::add);
    } else if (argument != null && argument.getClass().isArray()) {
      for (int i = 0; i < Array.getLength(argument); i++) {
        entities.add(Array.get(argument, i));
      }
    } else {
      entities.add(argument);
    }
    Object firstKey = null;
    String shard = null;
    for (Object entity : entities) {
      Object key = entity == null ? null : shardKeyOf(entity);
      if (key == null) {
        metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
        throw new ShardKeyMissingException(signature + " was given " + (entity == null ? "a null entity"
            : "a " + entity.getClass().getSimpleName() + " whose shard key is null") + "; set the key before saving it."
            + " Nothing was sent.");
      }
      String owner = shards.shardFor(key);
      if (shard == null) {
        shard = owner;
        firstKey = key;
      } else if (!shard.equals(owner)) {
        metrics.refused(ShardwiseMetrics.Refusal.TWO_SHARDS);
        throw new ShardKeyException(signature + " was given entities of two shards (key " + firstKey + " on '" + shard
            + "', key " + key + " on '" + owner + "'); a repository call is one transaction on one shard. Call it"
            + " once per shard, or write them together with shards.atomically(...). Nothing was sent.");
      }
    }
    if (shard == null) {
      metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
      throw new ShardKeyMissingException(signature + " was given no entity, so no shard can be chosen. Nothing was"
          + " sent.");
    }
    return shards.forKey(firstKey);
  }

  private Object shardKeyOf(Object entity) {
    ShardedEntity sharded = model.byClass(entity.getClass());
    if (sharded == null || sharded.reference()) {
      return null;
    }
    SessionFactory factory = shards.sessionFactory();
    if (sharded.keyIsIdentifier()) {
      return factory.getPersistenceUnitUtil().getIdentifier(entity);
    }
    return factory.unwrap(org.hibernate.engine.spi.SessionFactoryImplementor.class).getMappingMetamodel()
        .getEntityDescriptor(sharded.entityName()).getPropertyValue(entity, sharded.keyAttribute());
  }

  private static Object run(ShardRoute route, Constructor<?> generated, Method method, Object[] args,
      boolean readOnly) throws Throwable {
    ShardRoute chosen = readOnly ? route.readOnly() : route;
    try {
      return chosen.fromTransaction(session -> {
        try {
          return invokeGenerated(generated, session, method, args);
        } catch (RuntimeException | Error e) {
          throw e;
        } catch (Throwable checked) {
          throw new CheckedFailure(checked);
        }
      });
    } catch (CheckedFailure e) {
      throw e.getCause();
    }
  }

  /** A checked exception of a repository method, carried out of the transaction (which it rolls back). */
  private static final class CheckedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CheckedFailure(Throwable cause) {
      super(cause);
    }
  }

  private Object runWithoutShard(Constructor<?> generated, Method method, Object[] args, boolean readOnly)
      throws Throwable {
    try (Session session = shards.sessionFactory().withOptions().readOnly(readOnly).openSession()) {
      org.hibernate.Transaction tx = session.beginTransaction();
      try {
        Object result = invokeGenerated(generated, session, method, args);
        tx.commit();
        return result;
      } catch (Throwable e) {
        if (tx.isActive()) {
          tx.rollback();
        }
        throw e;
      }
    }
  }

  private static Object invokeGenerated(Constructor<?> generated, Session session, Method method, Object[] args)
      throws Throwable {
    boolean stateless = generated.getParameterTypes()[0] == StatelessSession.class;
    StatelessSession sharing = stateless ? ShardSessions.openStatelessSharing(session) : null;
    try {
      Object implementation = generated.newInstance(stateless ? sharing : session);
      Object result = method.invoke(implementation, args);
      return result instanceof Stream<?> stream ? stream.toList().stream() : result;
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } finally {
      if (sharing != null) {
        sharing.close();
      }
    }
  }

  // ---- reading the interface -----------------------------------------------------------------

  private static boolean isWrite(Method method) {
    for (Annotation annotation : method.getAnnotations()) {
      if (WRITES.contains(annotation.annotationType().getName())) {
        return true;
      }
    }
    return false;
  }

  /** The entity a method reads or writes: its result's, its entity parameter's, or the repository's. */
  private Class<?> entityType(Class<?> repository, Method method) {
    Class<?> returned = elementType(method.getGenericReturnType());
    if (returned != null && model.byClass(returned) != null) {
      return returned;
    }
    for (Parameter parameter : method.getParameters()) {
      Class<?> type = elementType(parameter.getParameterizedType());
      if (type != null && model.byClass(type) != null) {
        return type;
      }
    }
    Class<?> primary = primaryEntity(repository);
    return primary != null && model.byClass(primary) != null ? primary : null;
  }

  private static Class<?> resultType(Method method, Class<?> entityType) {
    Class<?> element = elementType(method.getGenericReturnType());
    if (element == null || element == Object.class) {
      return entityType != null ? entityType : Object.class;
    }
    if (element == long.class) {
      return Long.class;
    }
    return element == int.class ? Long.class : element == Integer.class ? Long.class : element;
  }

  /** {@code T} of {@code List<T>}, {@code Optional<T>}, {@code Stream<T>}, {@code T[]}, a page of T, or the type. */
  private static Class<?> elementType(Type type) {
    if (type instanceof Class<?> c) {
      return c.isArray() ? c.getComponentType() : c;
    }
    if (type instanceof ParameterizedType p) {
      Type[] arguments = p.getActualTypeArguments();
      Class<?> raw = (Class<?>) p.getRawType();
      if (arguments.length == 1 && (Iterable.class.isAssignableFrom(raw) || raw == Optional.class
          || raw == Stream.class || raw.getName().startsWith("jakarta.data.page."))) {
        return elementType(arguments[0]);
      }
      return raw;
    }
    return null;
  }

  /** The {@code T} of a repository that extends {@code DataRepository<T, K>} (directly or not). */
  private static Class<?> primaryEntity(Class<?> repository) {
    for (Type parent : repository.getGenericInterfaces()) {
      if (parent instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
        if (raw.getName().startsWith(DATA) && p.getActualTypeArguments().length > 0
            && p.getActualTypeArguments()[0] instanceof Class<?> entity) {
          return entity;
        }
        if (!(p.getActualTypeArguments()[0] instanceof TypeVariable<?>)) {
          Class<?> nested = primaryEntity(raw);
          if (nested != null) {
            return nested;
          }
        }
      } else if (parent instanceof Class<?> raw) {
        Class<?> nested = primaryEntity(raw);
        if (nested != null) {
          return nested;
        }
      }
    }
    return null;
  }

  private static String parameterName(Parameter parameter) {
    String param = annotationValue(parameter, DATA + "Param");
    return param != null ? param : parameter.isNamePresent() ? parameter.getName() : null;
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends Annotation> annotationType(String name) {
    try {
      return (Class<? extends Annotation>) Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new ShardingConfigurationException("jakarta.data-api is not on the class path; Jakarta Data"
          + " repositories need it.");
    }
  }

  /** The {@code value()} of the annotation named {@code type}, read by name (Jakarta Data is optional), or null. */
  private static String annotationValue(java.lang.reflect.AnnotatedElement element, String type) {
    for (Annotation annotation : element.getAnnotations()) {
      if (annotation.annotationType().getName().equals(type)) {
        try {
          Object value = annotation.annotationType().getMethod("value").invoke(annotation);
          return value instanceof String s ? s : null;
        } catch (ReflectiveOperationException e) {
          // an unreadable @Query or @By would make the method route as if it had none
          throw new IllegalStateException("Cannot read " + type + ".value() on " + element, e);
        }
      }
    }
    return null;
  }
}
