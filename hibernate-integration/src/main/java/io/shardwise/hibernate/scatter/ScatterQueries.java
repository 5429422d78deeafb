package io.shardwise.hibernate.scatter;

/**
 * Queries that run on every shard at once and come back as one merged result. Obtained from
 * {@code ShardedSessions.scatter()}.
 *
 * <pre>{@code
 * List<PurchaseOrder> newest = shards.scatter()
 *     .createQuery("from PurchaseOrder o where o.status = :s order by o.placedAt desc, o.id desc", PurchaseOrder.class)
 *     .setParameter("s", Status.PENDING)
 *     .setMaxResults(20)
 *     .deadline(Duration.ofSeconds(2))
 *     .getResultList();
 * }</pre>
 *
 * <p>See {@link ScatterQuery} for what is merged and what is refused.
 */
public interface ScatterQueries {

  /**
   * A scatter query for {@code hql}. {@code resultType} is the selected type for one selection,
   * {@code Object[].class} for several.
   */
  <T> ScatterQuery<T> createQuery(String hql, Class<T> resultType);

  /**
   * A scatter query for a named query, which must be declared with {@code @NamedQuery} on an
   * entity that also carries {@link io.shardwise.annotations.ScatterGather @ScatterGather} naming
   * it (or naming none, which allows all of that entity's named queries).
   *
   * @throws UnsupportedScatterQueryException if the named query is not marked to scatter
   */
  <T> ScatterQuery<T> createNamedQuery(String name, Class<T> resultType);
}
