package io.shardwise.hibernate.internal.query;

import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.query.ShardKeyValues.KeyPins;
import java.util.List;
import java.util.function.BiConsumer;
import org.hibernate.engine.spi.LoadQueryInfluencers;
import org.hibernate.metamodel.mapping.MappingModelExpressible;
import org.hibernate.metamodel.model.domain.EntityDomainType;
import org.hibernate.query.sqm.ComparisonOperator;
import org.hibernate.query.spi.QueryOptions;
import org.hibernate.query.spi.QueryParameterBindings;
import org.hibernate.query.sqm.SqmPathSource;
import org.hibernate.query.sqm.internal.DomainParameterXref;
import org.hibernate.query.sqm.sql.internal.SqmParameterInterpretation;
import org.hibernate.query.sqm.sql.internal.StandardSqmTranslator;
import org.hibernate.query.sqm.tree.SqmStatement;
import org.hibernate.query.sqm.tree.domain.SqmPath;
import org.hibernate.query.sqm.tree.expression.SqmExpression;
import org.hibernate.query.sqm.tree.expression.SqmHqlNumericLiteral;
import org.hibernate.query.sqm.tree.expression.SqmLiteral;
import org.hibernate.query.sqm.tree.expression.SqmParameter;
import org.hibernate.query.sqm.tree.predicate.SqmComparisonPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmInListPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmNegatedPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmPredicate;
import org.hibernate.query.sqm.tree.select.SqmOrderByClause;
import org.hibernate.query.sqm.tree.select.SqmSelectClause;
import org.hibernate.query.sqm.tree.select.SqmSubQuery;
import org.hibernate.query.sqm.tree.update.SqmAssignment;
import org.hibernate.query.sqm.tree.update.SqmSetClause;
import org.hibernate.sql.ast.spi.SqlAstCreationContext;
import org.hibernate.sql.ast.tree.Statement;
import org.hibernate.sql.ast.tree.expression.Expression;
import org.hibernate.sql.ast.tree.expression.JdbcParameter;
import org.hibernate.sql.ast.tree.expression.Literal;
import org.hibernate.sql.ast.tree.predicate.ComparisonPredicate;
import org.hibernate.sql.ast.tree.predicate.NegatedPredicate;
import org.hibernate.sql.ast.tree.predicate.Predicate;
import org.hibernate.sql.ast.tree.select.SelectClause;
import org.hibernate.sql.ast.tree.select.SelectStatement;
import org.hibernate.sql.ast.tree.update.Assignment;
import org.hibernate.sql.exec.internal.SqlTypedMappingJdbcParameter;

/**
 * Hibernate's SQM-to-SQL translation, with every shard key pin made checkable at execution.
 *
 * <h2>Why at the JDBC parameter</h2>
 *
 * Hibernate translates a query once and keeps the translation for every later execution, in any
 * session, on any shard; the values arrive per execution, bound into the JDBC parameters of that
 * one translation. So the place that sees every value of every execution, with the session that
 * runs it, is the JDBC parameter's own {@code bindParameterValue}. This translator replaces the
 * JDBC parameters of each pin — {@code key = :p}, {@code key in (:p, ...)} and their literal forms —
 * by ones that check the value against the session's shard before binding it ({@link CheckedKeyParameter});
 * a literal pin becomes such a parameter with its value fixed ({@link CheckedKeyLiteral}), since a
 * literal rendered into the SQL text would never be seen again.
 *
 * <p>A pin is an equality on a sharded entity's key path ({@code o.merchantId}, or the implicit
 * join {@code o.merchant.id} when {@code id} is Merchant's key, or {@code o.merchant = :merchant},
 * whose JDBC parameter binds the merchant's id) in a WHERE or ON clause, at any
 * depth of AND/OR and in subqueries, not under NOT. Comparisons in SELECT, GROUP BY, HAVING and
 * ORDER BY restrict no rows and are left alone. A bulk update that assigns a shard key is refused
 * here: it would move rows to keys owned by other shards without moving the rows.
 *
 * <p>Replacing a parameter means replacing it in the list that Hibernate's translation keeps per
 * query parameter, which is the list the SQL AST holds too: the execution binds values to exactly
 * the parameter objects in that list.
 */
final class KeyPinTranslator<T extends Statement> extends StandardSqmTranslator<T> {

  private final ShardingModel sharding;
  private final ShardKeyValues values;
  private final KeyPins pins = new KeyPins();
  /** The entity whose key the predicate being translated pins; null outside a pin. */
  private ShardedEntity pinning;
  /** Above zero inside NOT, or inside a clause that restricts no rows. */
  private int notFiltering;

  KeyPinTranslator(SqmStatement<?> statement, QueryOptions queryOptions, DomainParameterXref xref,
      QueryParameterBindings bindings, LoadQueryInfluencers influencers, SqlAstCreationContext context,
      boolean deduplicateSelectionItems, ShardingModel sharding, ShardKeyValues values) {
    super(statement, queryOptions, xref, bindings, influencers, context, deduplicateSelectionItems);
    this.sharding = sharding;
    this.values = values;
  }

  // --- pins ------------------------------------------------------------------------------------

  @Override
  public ComparisonPredicate visitComparisonPredicate(SqmComparisonPredicate predicate) {
    ShardedEntity pinned = null;
    if (notFiltering == 0 && !predicate.isNegated() && predicate.getSqmOperator() == ComparisonOperator.EQUAL) {
      ShardedEntity left = keyOwner(predicate.getLeftHandExpression());
      ShardedEntity right = keyOwner(predicate.getRightHandExpression());
      if (left != null && isValue(predicate.getRightHandExpression())) {
        pinned = left;
      } else if (right != null && isValue(predicate.getLeftHandExpression())) {
        pinned = right;
      }
    }
    if (pinned == null) {
      return super.visitComparisonPredicate(predicate);
    }
    return withPin(pinned, () -> super.visitComparisonPredicate(predicate));
  }

  @Override
  public Predicate visitInListPredicate(SqmInListPredicate<?> predicate) {
    ShardedEntity pinned = notFiltering == 0 && !predicate.isNegated()
        ? keyOwner(predicate.getTestExpression()) : null;
    if (pinned == null || !predicate.getListExpressions().stream().allMatch(KeyPinTranslator::isValue)) {
      return super.visitInListPredicate(predicate);
    }
    return withPin(pinned, () -> super.visitInListPredicate(predicate));
  }

  private <R> R withPin(ShardedEntity entity, java.util.function.Supplier<R> translation) {
    ShardedEntity outer = pinning;
    pinning = entity;
    pins.add(entity);
    try {
      return translation.get();
    } finally {
      pinning = outer;
    }
  }

  @Override
  protected Expression consumeSqmParameter(SqmParameter<?> parameter, MappingModelExpressible<?> valueMapping,
      BiConsumer<Integer, JdbcParameter> consumer) {
    Expression expression = super.consumeSqmParameter(parameter, valueMapping, consumer);
    ShardedEntity entity = pinning;
    if (entity != null && expression instanceof SqmParameterInterpretation) {
      // the last list registered for this parameter is the one the interpretation holds
      List<List<JdbcParameter>> registered = getJdbcParamsBySqmParam().get(parameter);
      List<JdbcParameter> jdbcParameters = registered.get(registered.size() - 1);
      if (jdbcParameters.size() == 1 && jdbcParameters.get(0) instanceof SqlTypedMappingJdbcParameter typed) {
        jdbcParameters.set(0, new CheckedKeyParameter(typed, entity, pins, values));
      }
    }
    return expression;
  }

  @Override
  public Expression visitLiteral(SqmLiteral<?> literal) {
    return checkedIfPinned(super.visitLiteral(literal));
  }

  /** HQL's numeric literals ({@code = 42}) have a visit of their own. */
  @Override
  public <N extends Number> Expression visitHqlNumericLiteral(SqmHqlNumericLiteral<N> literal) {
    return checkedIfPinned(super.visitHqlNumericLiteral(literal));
  }

  private Expression checkedIfPinned(Expression expression) {
    if (pinning != null && expression instanceof Literal literal && literal.getLiteralValue() != null
        && literal.getJdbcMapping() != null && literal.getJdbcMapping().getValueConverter() == null) {
      return new CheckedKeyLiteral(literal.getJdbcMapping(), literal.getLiteralValue(), pinning, pins, values);
    }
    return expression;
  }

  // --- where a comparison is not a pin ------------------------------------------------------------

  @Override
  public NegatedPredicate visitNegatedPredicate(SqmNegatedPredicate predicate) {
    notFiltering++;
    try {
      return super.visitNegatedPredicate(predicate);
    } finally {
      notFiltering--;
    }
  }

  @Override
  public SelectClause visitSelectClause(SqmSelectClause selectClause) {
    notFiltering++;
    try {
      return super.visitSelectClause(selectClause);
    } finally {
      notFiltering--;
    }
  }

  @Override
  public List<Expression> visitGroupByClause(List<SqmExpression<?>> groupByClauseExpressions) {
    notFiltering++;
    try {
      return super.visitGroupByClause(groupByClauseExpressions);
    } finally {
      notFiltering--;
    }
  }

  @Override
  public Predicate visitHavingClause(SqmPredicate sqmPredicate) {
    notFiltering++;
    try {
      return super.visitHavingClause(sqmPredicate);
    } finally {
      notFiltering--;
    }
  }

  @Override
  public Void visitOrderByClause(SqmOrderByClause orderByClause) {
    notFiltering++;
    try {
      return super.visitOrderByClause(orderByClause);
    } finally {
      notFiltering--;
    }
  }

  /** A subquery restricts its own rows wherever it appears: its pins count, even under NOT EXISTS. */
  @Override
  public SelectStatement visitSubQueryExpression(SqmSubQuery<?> subquery) {
    int outerNotFiltering = notFiltering;
    ShardedEntity outerPin = pinning;
    notFiltering = 0;
    pinning = null;
    try {
      return super.visitSubQueryExpression(subquery);
    } finally {
      notFiltering = outerNotFiltering;
      pinning = outerPin;
    }
  }

  @Override
  public List<Assignment> visitSetClause(SqmSetClause setClause) {
    for (SqmAssignment<?> assignment : setClause.getAssignments()) {
      ShardedEntity owner = keyAttributeOwner(assignment.getTargetPath());
      if (owner != null) {
        throw new ShardKeyException("[ShardKeyChanged] An update sets " + owner.simpleName() + "."
            + owner.keyAttribute() + ": a shard key is immutable, because the row lives on the shard of its key;"
            + " changing it in place would leave the row where lookups by the new key never look. Insert the rows"
            + " under the new key through a session on its shard and delete the old ones instead. Nothing was sent.");
      }
    }
    notFiltering++;
    try {
      return super.visitSetClause(setClause);
    } finally {
      notFiltering--;
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * The sharded entity whose shard key this expression is, or null: a key attribute
   * ({@code o.merchantId}, {@code o.merchant.id}), or an entity compared as a whole whose id is its
   * key ({@code o.merchant}, or a root alias {@code m}), whose parameter binds that id.
   */
  private ShardedEntity keyOwner(SqmExpression<?> expression) {
    if (!(expression instanceof SqmPath<?> path)) {
      return null;
    }
    ShardedEntity whole = entityKeyedById(path.getReferencedPathSource());
    return whole != null ? whole : keyAttributeOwner(path);
  }

  /** The sharded entity whose key attribute this path names ({@code o.merchantId}), or null. */
  private ShardedEntity keyAttributeOwner(SqmExpression<?> expression) {
    if (!(expression instanceof SqmPath<?> path) || path.getLhs() == null) {
      return null;
    }
    String entityName = entityName(path.getLhs().getReferencedPathSource());
    ShardedEntity entity = entityName == null ? null : sharding.byEntityName(entityName);
    if (entity == null || entity.reference()) {
      return null;
    }
    return path.getReferencedPathSource().getPathName().equals(entity.keyAttribute()) ? entity : null;
  }

  private ShardedEntity entityKeyedById(SqmPathSource<?> source) {
    EntityDomainType<?> type = source instanceof EntityDomainType<?> entity ? entity
        : source.getPathType() instanceof EntityDomainType<?> entity ? entity : null;
    if (type == null || type.findIdAttribute() == null) {
      return null;
    }
    ShardedEntity entity = sharding.byEntityName(type.getHibernateEntityName());
    return entity != null && !entity.reference()
        && type.findIdAttribute().getName().equals(entity.keyAttribute()) ? entity : null;
  }

  private static String entityName(SqmPathSource<?> source) {
    if (source instanceof EntityDomainType<?> entity) {
      return entity.getHibernateEntityName();
    }
    return source.getPathType() instanceof EntityDomainType<?> entity ? entity.getHibernateEntityName() : null;
  }

  private static boolean isValue(SqmExpression<?> expression) {
    return expression instanceof SqmParameter<?>
        || expression instanceof SqmLiteral<?> literal && literal.getLiteralValue() != null;
  }
}
