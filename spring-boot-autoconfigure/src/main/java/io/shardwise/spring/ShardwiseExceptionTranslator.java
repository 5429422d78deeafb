package io.shardwise.spring;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardwiseException;
import org.springframework.core.Ordered;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.support.PersistenceExceptionTranslator;

/**
 * Keeps Shardwise's refusals recognisable behind Spring's exception translation. Spring Data
 * reports a query that Hibernate refused while creating it as a JPQL grammar error
 * ({@code BadJpqlGrammarException}), which would hide, say, a {@code ShardKeyMissingException}
 * behind "grammar [JPQL]". Ordered first among the translators, this one finds a
 * {@link ShardwiseException} anywhere in the cause chain and reports it as a
 * {@link DataAccessException} whose message and cause are the Shardwise exception:
 * {@link DataAccessResourceFailureException} for an unavailable shard,
 * {@link InvalidDataAccessApiUsageException} for everything else (a missing or wrong shard key,
 * no shard chosen, a row lock in a read-only transaction).
 */
public final class ShardwiseExceptionTranslator implements PersistenceExceptionTranslator, Ordered {

  @Override
  public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
    ShardwiseException shardwise = find(ex);
    if (shardwise == null) {
      return null;
    }
    if (shardwise instanceof ShardUnavailableException) {
      return new DataAccessResourceFailureException(shardwise.getMessage(), shardwise);
    }
    return new InvalidDataAccessApiUsageException(shardwise.getMessage(), shardwise);
  }

  /** The first Shardwise exception in the cause chain of {@code ex}, or null. */
  public static ShardwiseException find(Throwable ex) {
    for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ShardwiseException shardwise) {
        return shardwise;
      }
    }
    return null;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
