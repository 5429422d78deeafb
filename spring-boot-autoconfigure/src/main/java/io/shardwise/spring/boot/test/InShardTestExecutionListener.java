package io.shardwise.spring.boot.test;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardedSessions;
import java.util.UUID;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Opens the {@link ShardContext} of {@link InShard} before Spring's
 * {@code TransactionalTestExecutionListener} (order 4000) begins a test-managed transaction, and
 * closes it after that transaction ended.
 */
public final class InShardTestExecutionListener extends AbstractTestExecutionListener {
  private static final String SCOPE = InShardTestExecutionListener.class.getName() + ".scope";

  /** Before the transactional listener, so the transaction opens on the chosen shard. */
  @Override
  public int getOrder() {
    return 3900;
  }

  @Override
  public void beforeTestMethod(TestContext testContext) {
    InShard inShard = AnnotatedElementUtils.findMergedAnnotation(testContext.getTestMethod(), InShard.class);
    if (inShard == null) {
      inShard = AnnotatedElementUtils.findMergedAnnotation(testContext.getTestClass(), InShard.class);
    }
    if (inShard == null) {
      return;
    }
    ShardedSessions shards = testContext.getApplicationContext().getBean(ShardedSessions.class);
    String shardId = shardOf(inShard, shards, testContext);
    testContext.setAttribute(SCOPE, ShardContext.use(shardId));
  }

  @Override
  public void afterTestMethod(TestContext testContext) {
    if (testContext.removeAttribute(SCOPE) instanceof ShardContext.Scope scope) {
      scope.close();
    }
  }

  private static String shardOf(InShard inShard, ShardedSessions shards, TestContext testContext) {
    boolean byKey = !inShard.key().isEmpty();
    boolean byShard = !inShard.shard().isEmpty();
    String where = testContext.getTestClass().getSimpleName() + "." + testContext.getTestMethod().getName();
    if (byKey == byShard) {
      throw new IllegalStateException("@InShard on " + where + " must name either key or shard, not "
          + (byKey ? "both" : "neither"));
    }
    if (byShard) {
      if (!shards.shardIds().contains(inShard.shard())) {
        throw new IllegalStateException("@InShard(shard = \"" + inShard.shard() + "\") on " + where
            + " names no shard of " + shards.shardIds());
      }
      return inShard.shard();
    }
    String text = inShard.key();
    Class<?> type = inShard.keyType();
    Object key;
    if (type == Long.class || type == long.class) {
      key = Long.valueOf(text);
    } else if (type == Integer.class || type == int.class) {
      key = Integer.valueOf(text);
    } else if (type == Short.class || type == short.class) {
      key = Short.valueOf(text);
    } else if (type == String.class) {
      key = text;
    } else if (type == UUID.class) {
      key = UUID.fromString(text);
    } else {
      throw new IllegalStateException("@InShard(keyType = " + type.getName() + ") on " + where
          + ": a shard key is a Long, Integer, Short, String or UUID");
    }
    return shards.shardFor(key);
  }
}
