package io.shardwise.spring;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.scatter.ScatterQuery;
import jakarta.persistence.metamodel.EntityType;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;
import org.springframework.data.domain.SliceImpl;
import org.springframework.data.domain.Sort;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.core.RepositoryMetadata;
import org.springframework.data.support.PageableExecutionUtils;

/**
 * One {@code @ScatterGather} repository method, checked when the repository starts and run on
 * every shard through {@link ShardedSessions#scatter()} at each call. Rows of the root entity are
 * ordered by the method's sort (its {@code OrderBy}, its {@code Sort} or {@code Pageable} argument,
 * or its query's ORDER BY) and then by the id, so that every page of a walk holds each row exactly
 * once; an unsorted page is ordered by the id.
 */
final class ScatterQueryMethod {
  private static final Pattern SORT_PROPERTY = Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*");
  private static final Pattern NAMED = Pattern.compile("(?<![:\\w]):([A-Za-z_$][\\w$]*)");
  private static final Pattern POSITIONAL = Pattern.compile("\\?(\\d+)");

  private enum Shape { LIST, STREAM, PAGE, SLICE, SINGLE, OPTIONAL, COUNT, EXISTS }

  private final Method method;
  private final Supplier<ShardedSessions> shards;
  private final Class<?> domainType;
  private final Class<?> idType;
  private final String idAttribute;
  private final ScatterQueryText.Renderer renderer;
  private final Shape shape;
  private final Sort declaredSort;
  private final Integer declaredLimit;
  private final int pageableIndex;
  private final int sortIndex;
  private final int limitIndex;
  private final int[] bindableIndexes;

  ScatterQueryMethod(Method method, RepositoryMetadata repository, Supplier<ShardedSessions> shards) {
    this.method = method;
    this.shards = shards;
    this.domainType = repository.getDomainType();
    EntityType<?> entity = shards.get().sessionFactory().getMetamodel().entity(domainType);
    this.idType = entity.getIdType().getJavaType();
    this.idAttribute = entity.getId(idType).getName();
    refuseAnnotations(method);
    int pageable = -1;
    int sort = -1;
    int limit = -1;
    List<Integer> bindable = new ArrayList<>();
    List<Parameter> bindableParameters = new ArrayList<>();
    Parameter[] parameters = method.getParameters();
    for (int i = 0; i < parameters.length; i++) {
      Class<?> type = parameters[i].getType();
      if (Pageable.class.isAssignableFrom(type)) {
        pageable = i;
      } else if (Sort.class.isAssignableFrom(type)) {
        sort = i;
      } else if (Limit.class.isAssignableFrom(type)) {
        limit = i;
      } else if (type.getName().startsWith("org.springframework.data.domain.")) {
        throw ScatterRepositoryMethods.refused(method, "its parameter of type " + type.getSimpleName()
            + " has no scatter-gather form (Pageable, Sort and Limit do)");
      } else {
        bindable.add(i);
        bindableParameters.add(parameters[i]);
      }
    }
    this.pageableIndex = pageable;
    this.sortIndex = sort;
    this.limitIndex = limit;
    this.bindableIndexes = bindable.stream().mapToInt(Integer::intValue).toArray();
    Query query = method.getAnnotation(Query.class);
    String entityName = entity.getName();
    boolean countable;
    boolean selectsRoot;
    if (query != null) {
      DeclaredScatterQuery declared = new DeclaredScatterQuery(method, query, entityName, bindableParameters);
      this.renderer = declared;
      this.declaredSort = Sort.unsorted();
      this.declaredLimit = null;
      this.shape = shape(method, false, false);
      countable = declared.countable();
      selectsRoot = declared.render(new Object[bindable.size()]).alias() != null;
    } else {
      DerivedScatterQuery derived = new DerivedScatterQuery(method, domainType, entityName, idAttribute);
      this.renderer = derived;
      this.declaredSort = derived.tree().getSort();
      this.declaredLimit = derived.tree().isLimiting() ? derived.tree().getMaxResults() : null;
      this.shape = shape(method, derived.tree().isCountProjection(), derived.tree().isExistsProjection());
      countable = true;
      selectsRoot = true;
    }
    if (!selectsRoot && (pageable >= 0 || sort >= 0 || shape == Shape.PAGE || shape == Shape.SLICE)) {
      throw ScatterRepositoryMethods.refused(method, "it is sorted or paged, but its @Query does not select its root"
          + " entity by an alias (select o from " + entityName + " o ...), which the sort properties would name");
    }
    if (selectsRoot && shape != Shape.COUNT && shape != Shape.EXISTS
        && !repository.getReturnedDomainClass(method).isAssignableFrom(domainType)) {
      throw ScatterRepositoryMethods.refused(method, "it returns " + repository.getReturnedDomainClass(method)
          .getSimpleName() + " rows, a projection, which a scatter-gather method does not build; return "
          + domainType.getSimpleName());
    }
    if (shape == Shape.PAGE && !countable) {
      throw ScatterRepositoryMethods.refused(method, "it returns a Page, whose total needs a count: give the @Query a"
          + " countQuery");
    }
  }

  private static void refuseAnnotations(Method method) {
    for (String annotation : List.of("Modifying", "NativeQuery", "Lock", "EntityGraph", "QueryHints", "Meta")) {
      if (java.util.Arrays.stream(method.getAnnotations()).anyMatch(a -> a.annotationType().getName()
          .equals("org.springframework.data.jpa.repository." + annotation))) {
        throw ScatterRepositoryMethods.refused(method, "it carries @" + annotation + ", which a scatter-gather query"
            + " cannot honour (it reads every shard through read-only sessions, merged in memory)");
      }
    }
    Query query = method.getAnnotation(Query.class);
    if (query != null && query.nativeQuery()) {
      throw ScatterRepositoryMethods.refused(method, "its @Query is native SQL; a scatter-gather query is HQL, which"
          + " Shardwise merges across shards. Write it in JPQL/HQL");
    }
  }

  private Shape shape(Method method, boolean count, boolean exists) {
    Class<?> returned = method.getReturnType();
    if (count) {
      if (List.of(long.class, Long.class, int.class, Integer.class).contains(returned)) {
        return Shape.COUNT;
      }
    } else if (exists) {
      if (returned == boolean.class || returned == Boolean.class) {
        return Shape.EXISTS;
      }
    } else if (Page.class.isAssignableFrom(returned)) {
      return Shape.PAGE;
    } else if (Slice.class.isAssignableFrom(returned)) {
      return Shape.SLICE;
    } else if (Stream.class.isAssignableFrom(returned)) {
      return Shape.STREAM;
    } else if (returned.isAssignableFrom(ArrayList.class)) {
      return Shape.LIST;
    } else if (returned == Optional.class) {
      return Shape.OPTIONAL;
    } else if (returned.isAssignableFrom(domainType)) {
      return Shape.SINGLE;
    }
    throw ScatterRepositoryMethods.refused(method, "it returns " + method.getGenericReturnType().getTypeName()
        + "; a scatter-gather method returns the entity, Optional, List, Collection, Iterable, Stream, Page or Slice"
        + " of it, a count (long) or an exists (boolean)");
  }

  Object invoke(Object[] arguments) {
    Object[] bindable = new Object[bindableIndexes.length];
    for (int i = 0; i < bindable.length; i++) {
      bindable[i] = arguments[bindableIndexes[i]];
    }
    ScatterQueryText text = renderer.render(bindable);
    Pageable pageable = pageableIndex >= 0 && arguments[pageableIndex] != null ? (Pageable) arguments[pageableIndex]
        : Pageable.unpaged();
    Sort sort = declaredSort.and(sortIndex >= 0 && arguments[sortIndex] != null ? (Sort) arguments[sortIndex]
        : Sort.unsorted()).and(pageable.getSort());
    Integer limit = declaredLimit;
    if (limitIndex >= 0 && arguments[limitIndex] instanceof Limit given && given.isLimited()) {
      limit = min(limit, given.max());
    }
    return switch (shape) {
      case COUNT -> {
        long count = count(text);
        yield method.getReturnType() == int.class || method.getReturnType() == Integer.class ? (Object) (int) count
            : (Object) count;
      }
      case EXISTS -> !bound(text.rows(), idType, text).setMaxResults(1).getResultList().isEmpty();
      case PAGE -> {
        List<Object> content = new ArrayList<>(rows(text, sort, pageable, 0, limit));
        yield PageableExecutionUtils.getPage(content, pageable, () -> count(text));
      }
      case SLICE -> {
        List<Object> rows = new ArrayList<>(rows(text, sort, pageable, 1, limit));
        boolean more = pageable.isPaged() && rows.size() > pageable.getPageSize();
        yield new SliceImpl<Object>(more ? rows.subList(0, pageable.getPageSize()) : rows, pageable, more);
      }
      case LIST -> rows(text, sort, pageable, 0, limit);
      case STREAM -> rows(text, sort, pageable, 0, limit).stream();
      case SINGLE -> single(text, sort, limit);
      case OPTIONAL -> Optional.ofNullable(single(text, sort, limit));
    };
  }

  private Object single(ScatterQueryText text, Sort sort, Integer limit) {
    if (limit != null) {
      List<?> first = rows(text, sort, Pageable.unpaged(), 0, 1);
      return first.isEmpty() ? null : first.get(0);
    }
    return bound(text.rows() + orderBy(text, sort), resultType(text), text).getSingleResultOrNull();
  }

  private Class<?> resultType(ScatterQueryText text) {
    return text.alias() != null ? domainType : Object.class;
  }

  private List<?> rows(ScatterQueryText text, Sort sort, Pageable pageable, int extra, Integer limit) {
    ScatterQuery<?> query = bound(text.rows() + orderBy(text, sort), resultType(text), text);
    Integer max = limit;
    if (pageable.isPaged()) {
      query.setFirstResult(Math.toIntExact(pageable.getOffset()));
      max = min(max, pageable.getPageSize() + extra);
    }
    if (max != null) {
      query.setMaxResults(max);
    }
    return query.getResultList();
  }

  private static Integer min(Integer a, Integer b) {
    return a == null ? b : b == null ? a : Math.min(a, b);
  }

  private long count(ScatterQueryText text) {
    Number n = (Number) bound(text.count(), Long.class, text).getSingleResult();
    return n.longValue();
  }

  /** {@code order by} the sort's properties, then the id; nothing when the query does not select its root. */
  private String orderBy(ScatterQueryText text, Sort sort) {
    if (text.alias() == null) {
      return "";
    }
    StringBuilder order = new StringBuilder(text.ordered() ? ", " : " order by ");
    boolean byId = false;
    for (Sort.Order o : sort) {
      if (!SORT_PROPERTY.matcher(o.getProperty()).matches()) {
        throw new IllegalArgumentException("Sort property '" + o.getProperty() + "' of " + ScatterRepositoryMethods
            .describe(method) + " is not an attribute path");
      }
      if (o.isIgnoreCase() || o.getNullHandling() != Sort.NullHandling.NATIVE) {
        throw new IllegalArgumentException("The sort of " + ScatterRepositoryMethods.describe(method) + " orders "
            + o.getProperty() + " ignoring case or with a null handling, which a scatter-gather merge does not"
            + " reproduce; sort by the attribute itself");
      }
      order.append(text.alias()).append('.').append(o.getProperty()).append(o.isAscending() ? " asc" : " desc")
          .append(", ");
      byId |= o.getProperty().equals(idAttribute);
    }
    if (!byId) {
      order.append(text.alias()).append('.').append(idAttribute).append(" asc, ");
    }
    return order.substring(0, order.length() - 2);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private ScatterQuery<?> bound(String hql, Class<?> type, ScatterQueryText text) {
    ScatterQuery query = shards.get().scatter().createQuery(hql, type);
    Matcher named = NAMED.matcher(hql);
    while (named.find()) {
      if (text.named().containsKey(named.group(1))) {
        query.setParameter(named.group(1), text.named().get(named.group(1)));
      }
    }
    Matcher positional = POSITIONAL.matcher(hql);
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    while (positional.find()) {
      int position = Integer.parseInt(positional.group(1));
      if (seen.add(position) && position <= text.positional().size()) {
        query.setParameter(position, text.positional().get(position - 1));
      }
    }
    return query;
  }

  Method method() {
    return method;
  }
}
