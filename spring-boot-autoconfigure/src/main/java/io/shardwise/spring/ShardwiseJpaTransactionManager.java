package io.shardwise.spring;

import jakarta.persistence.EntityManager;
import org.hibernate.SessionFactory;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.TransactionDefinition;

/**
 * Spring's {@link JpaTransactionManager}, with {@code @Transactional(readOnly = true)} served by a
 * replica of the current shard.
 *
 * <p>Spring's JPA dialect turns a read-only transaction into {@code FlushMode.MANUAL} and
 * {@code Connection.setReadOnly(true)} on an ordinary session, which Hibernate has already bound
 * to the shard's primary. Hibernate decides primary or replica when a session opens
 * ({@code sessionFactory.withOptions().readOnly(true)} draws its connection from the connection
 * provider's {@code getReadOnlyConnection}), so this manager opens the transaction's session that
 * way when the transaction is read-only. The shard is the {@link io.shardwise.hibernate.ShardContext}
 * open at that moment: choose it before the transaction begins ({@link WithShard}, the web
 * interceptor). A read-write transaction runs on the primary, as before.
 *
 * <p>The session of a read-only transaction is a read-only session: writes are refused by
 * Hibernate, row locks by Shardwise before any SQL. A transaction that joins an existing one (an
 * inner {@code @Transactional} with the default propagation) uses the outer one's session.
 */
public class ShardwiseJpaTransactionManager extends JpaTransactionManager {
  private static final long serialVersionUID = 1L;

  private static final ThreadLocal<Boolean> BEGINNING_READ_ONLY = new ThreadLocal<>();

  public ShardwiseJpaTransactionManager() {}

  @Override
  protected void doBegin(Object transaction, TransactionDefinition definition) {
    Boolean outer = BEGINNING_READ_ONLY.get();
    BEGINNING_READ_ONLY.set(definition.isReadOnly());
    try {
      super.doBegin(transaction, definition);
    } finally {
      if (outer == null) {
        BEGINNING_READ_ONLY.remove();
      } else {
        BEGINNING_READ_ONLY.set(outer);
      }
    }
  }

  @Override
  protected EntityManager createEntityManagerForTransaction() {
    if (Boolean.TRUE.equals(BEGINNING_READ_ONLY.get())) {
      SessionFactory sessionFactory = obtainEntityManagerFactory().unwrap(SessionFactory.class);
      return sessionFactory.withOptions().readOnly(true).openSession();
    }
    return super.createEntityManagerForTransaction();
  }
}
