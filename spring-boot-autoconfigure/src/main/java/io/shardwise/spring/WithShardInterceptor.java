package io.shardwise.spring;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardedSessions;
import jakarta.persistence.EntityManagerFactory;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.hibernate.Session;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The advice behind {@link WithShard}: evaluates the key, opens the shard context around the call,
 * and refuses a call that would join a transaction already bound to another shard.
 */
public final class WithShardInterceptor implements MethodInterceptor {
  private final Supplier<ShardedSessions> shards;
  private final Supplier<EntityManagerFactory> entityManagerFactory;
  private final SpelExpressionParser parser = new SpelExpressionParser();
  private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
  private final Map<String, Expression> expressions = new ConcurrentHashMap<>();

  public WithShardInterceptor(Supplier<ShardedSessions> shards, Supplier<EntityManagerFactory> entityManagerFactory) {
    this.shards = shards;
    this.entityManagerFactory = entityManagerFactory;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Method method = invocation.getMethod();
    Object target = invocation.getThis();
    Method specific = target == null ? method : AopUtils.getMostSpecificMethod(method, target.getClass());
    WithShard annotation = AnnotatedElementUtils.findMergedAnnotation(specific, WithShard.class);
    if (annotation == null) {
      return invocation.proceed();
    }
    String shardId = shardOf(annotation, specific, invocation.getArguments(), target);
    refuseAnotherShardsTransaction(shardId, specific);
    try (ShardContext.Scope scope = ShardContext.use(shardId)) {
      return invocation.proceed();
    }
  }

  private String shardOf(WithShard annotation, Method method, Object[] args, Object target) {
    boolean byKey = !annotation.key().isBlank();
    boolean byShard = !annotation.shard().isBlank();
    boolean newRoot = annotation.newRoot() != void.class;
    int named = (byKey ? 1 : 0) + (byShard ? 1 : 0) + (newRoot ? 1 : 0);
    if (named != 1) {
      throw new IllegalStateException("@WithShard on " + describe(method) + " must name one of key (a SpEL"
          + " expression such as \"#merchantId\"), shard (a shard id) or newRoot (a root entity whose shard key is"
          + " its @SnowflakeId), not " + (named == 0 ? "none" : named + " of them"));
    }
    if (newRoot) {
      return shards.get().forNewRoot(annotation.newRoot()).shardId();
    }
    if (byShard) {
      if (!shards.get().shardIds().contains(annotation.shard())) {
        throw new ShardKeyException("@WithShard(shard = \"" + annotation.shard() + "\") on " + describe(method)
            + " names no shard of the shard map " + shards.get().shardIds());
      }
      return annotation.shard();
    }
    Expression expression = expressions.computeIfAbsent(annotation.key(), parser::parseExpression);
    MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, method, args, parameterNames);
    Object key = expression.getValue(context);
    if (key == null) {
      throw new ShardKeyException("@WithShard(key = \"" + annotation.key() + "\") on " + describe(method)
          + " evaluated to null: pass the shard key, it decides the shard the method runs on. Nothing was sent.");
    }
    return shards.get().shardFor(key);
  }

  private void refuseAnotherShardsTransaction(String shardId, Method method) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      return;
    }
    Object holder = TransactionSynchronizationManager.getResource(entityManagerFactory.get());
    if (holder instanceof EntityManagerHolder emHolder) {
      // null: the transaction opened without a shard and used no key yet; the method's first key binds it
      String bound = ShardedSessions.shardOf(emHolder.getEntityManager());
      if (bound != null && !shardId.equals(bound)) {
        throw new ShardKeyException("[ShardKeyMismatch] " + describe(method) + " runs on shard '" + shardId
            + "' (@WithShard) but was called inside a transaction already bound to shard '" + bound + "': it would"
            + " join that transaction and read or write the wrong shard. Call it outside the transaction, or with"
            + " @Transactional(propagation = REQUIRES_NEW) so that its own transaction opens on its shard."
            + " Nothing was sent.");
      }
    }
  }

  private static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }
}
