package io.shardwise.hibernate.internal;

import io.shardwise.annotations.ScatterGather;
import java.util.ArrayList;
import java.util.List;

/**
 * The one rule for which named queries may run on every shard: a named query declared on a type
 * (with Jakarta's {@code @NamedQuery} or Hibernate's, alone or repeated) may scatter when that type
 * carries {@link ScatterGather @ScatterGather} naming it, or naming no query at all. The query
 * guard admits exactly these at start-up, and {@code shards.scatter().createNamedQuery} runs exactly
 * these.
 */
public final class ScatterMarks {
  private ScatterMarks() {}

  /** Whether {@code type} declares the named query {@code queryName} and allows it to scatter. */
  public static boolean allowsScatter(Class<?> type, String queryName) {
    ScatterGather mark = type.getAnnotation(ScatterGather.class);
    if (mark == null || !namedQueriesOf(type).contains(queryName)) {
      return false;
    }
    return mark.queries().length == 0 || List.of(mark.queries()).contains(queryName);
  }

  /** The names of the named queries declared on {@code type}, Jakarta's and Hibernate's. */
  public static List<String> namedQueriesOf(Class<?> type) {
    List<String> names = new ArrayList<>();
    for (jakarta.persistence.NamedQuery q : type.getAnnotationsByType(jakarta.persistence.NamedQuery.class)) {
      names.add(q.name());
    }
    for (org.hibernate.annotations.NamedQuery q : type.getAnnotationsByType(org.hibernate.annotations.NamedQuery.class)) {
      names.add(q.name());
    }
    return names;
  }
}
