package io.shardwise.spring;

import io.shardwise.hibernate.scatter.ScatterQuery;
import io.shardwise.hibernate.ShardedSessions;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageImpl;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;
import org.springframework.data.domain.SliceImpl;
import org.springframework.data.domain.Sort;

/**
 * Spring Data pages (and slices) of a query run on every shard: Shardwise's scatter-gather (each shard sorts
 * and returns at most offset + page size rows, the lists are merged k-way, the counts summed),
 * shaped as a {@link Page}. For a repository, put it in a fragment:
 *
 * <pre>{@code
 * interface OrderSearch { Page<ShopOrder> everywhereByStatus(String status, Pageable pageable); }
 *
 * class OrderSearchImpl implements OrderSearch {        // Spring Data finds it by the Impl suffix
 *   private final ScatterPages pages;
 *   public Page<ShopOrder> everywhereByStatus(String status, Pageable pageable) {
 *     return pages.find("from ShopOrder o where o.status = :status", ShopOrder.class,
 *         Map.of("status", status), pageable);
 *   }
 * }
 * interface OrderRepository extends JpaRepository<ShopOrder, Long>, OrderSearch { ... }
 * }</pre>
 *
 * <p>The query is a {@code from ... [where ...]} HQL without ORDER BY: the order is the
 * pageable's sort, each property prefixed with the query's alias. Deep pages cost every shard
 * offset + size rows; a stable sort (ending on a unique property) gives stable pages. Entities
 * come back detached, read from replicas where they are healthy. Queries the merge cannot
 * reproduce are refused with {@code UnsupportedScatterQueryException} before any SQL.
 */
public final class ScatterPages {
  private static final Pattern FROM = Pattern.compile(
      "^\\s*from\\s+([A-Za-z_$][\\w$.]*)(?:\\s+(?:as\\s+)?(?!where\\b)([A-Za-z_$][\\w$]*))?", Pattern.CASE_INSENSITIVE);
  private static final Pattern ORDER_BY = Pattern.compile("\\border\\s+by\\b", Pattern.CASE_INSENSITIVE);

  private final ShardedSessions shards;

  public ScatterPages(ShardedSessions shards) {
    this.shards = shards;
  }

  /** The page {@code pageable} asks for, of {@code hql} run on every shard, with the total across shards. */
  public <T> Page<T> find(String hql, Class<T> type, Map<String, ?> parameters, Pageable pageable) {
    Prepared<T> prepared = prepare(hql, type, parameters, pageable);
    if (pageable.isPaged()) {
      prepared.rows.setFirstResult((int) pageable.getOffset()).setMaxResults(pageable.getPageSize());
    }
    List<T> content = prepared.rows.getResultList();
    long total = prepared.count.getResultList().get(0);
    return new PageImpl<>(content, pageable, total);
  }

  /**
   * The slice {@code pageable} asks for, without counting: each shard returns at most offset +
   * size + 1 rows, and the extra row only tells whether there is a next slice.
   */
  public <T> Slice<T> findSlice(String hql, Class<T> type, Map<String, ?> parameters, Pageable pageable) {
    Prepared<T> prepared = prepare(hql, type, parameters, pageable);
    if (pageable.isUnpaged()) {
      return new SliceImpl<>(prepared.rows.getResultList(), pageable, false);
    }
    List<T> rows = prepared.rows.setFirstResult((int) pageable.getOffset())
        .setMaxResults(pageable.getPageSize() + 1).getResultList();
    boolean hasNext = rows.size() > pageable.getPageSize();
    return new SliceImpl<>(hasNext ? rows.subList(0, pageable.getPageSize()) : rows, pageable, hasNext);
  }

  private record Prepared<T>(ScatterQuery<T> rows, ScatterQuery<Long> count) {}

  private <T> Prepared<T> prepare(String hql, Class<T> type, Map<String, ?> parameters, Pageable pageable) {
    var from = FROM.matcher(hql);
    if (!from.find()) {
      throw new IllegalArgumentException("ScatterPages takes \"from Entity [alias] [where ...]\" queries, got \""
          + hql + "\"");
    }
    if (ORDER_BY.matcher(hql).find()) {
      throw new IllegalArgumentException("ScatterPages orders by the Pageable's sort: remove ORDER BY from \""
          + hql + "\"");
    }
    String alias = from.group(2);
    String body = hql;
    if (alias == null) {
      alias = "scattered";
      body = hql.substring(0, from.end()) + " " + alias + hql.substring(from.end());
    }
    ScatterQuery<T> rows = shards.scatter().createQuery(body + orderBy(alias, pageable.getSort()), type);
    ScatterQuery<Long> count = shards.scatter().createQuery("select count(" + alias + ") " + body, Long.class);
    parameters.forEach((name, value) -> {
      rows.setParameter(name, value);
      count.setParameter(name, value);
    });
    return new Prepared<>(rows, count);
  }

  private static String orderBy(String alias, Sort sort) {
    if (sort.isUnsorted()) {
      return "";
    }
    StringBuilder order = new StringBuilder(" order by ");
    String separator = "";
    for (Sort.Order o : sort) {
      if (!o.getProperty().matches("[A-Za-z_$][\\w$.]*")) {
        throw new IllegalArgumentException("Sort property '" + o.getProperty() + "' is not an attribute path");
      }
      order.append(separator).append(alias).append('.').append(o.getProperty())
          .append(o.isAscending() ? " asc" : " desc");
      separator = ", ";
    }
    return order.toString();
  }
}
