package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Column;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Compare;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Condition;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Constant;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.IsNull;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Junction;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Merge;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.NamedParameter;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Not;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Operand;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.OverDistinct;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.PositionalParameter;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.SlotValue;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Shape;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Slot;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.SortKey;
import jakarta.persistence.criteria.Nulls;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.SortDirection;
import org.hibernate.query.common.FetchClauseType;
import org.hibernate.query.sqm.spi.BaseSemanticQueryWalker;
import org.hibernate.query.sqm.tree.SqmRenderContext;
import org.hibernate.query.sqm.tree.SqmStatement;
import org.hibernate.query.sqm.tree.SqmVisitableNode;
import org.hibernate.query.sqm.tree.expression.SqmAggregateFunction;
import org.hibernate.query.sqm.tree.expression.SqmAliasedNodeRef;
import org.hibernate.query.sqm.tree.expression.SqmDistinct;
import org.hibernate.query.sqm.tree.expression.SqmExpression;
import org.hibernate.query.sqm.tree.expression.SqmFunction;
import org.hibernate.query.sqm.tree.expression.SqmLiteral;
import org.hibernate.query.sqm.tree.expression.SqmNamedParameter;
import org.hibernate.query.sqm.tree.expression.SqmPositionalParameter;
import org.hibernate.query.sqm.tree.expression.SqmOrderedSetAggregateFunction;
import org.hibernate.query.sqm.tree.expression.SqmOver;
import org.hibernate.query.sqm.tree.expression.SqmWindow;
import org.hibernate.query.sqm.tree.from.SqmFrom;
import org.hibernate.query.sqm.tree.from.SqmJoin;
import org.hibernate.query.sqm.tree.from.SqmRoot;
import org.hibernate.query.sqm.tree.predicate.SqmBetweenPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmComparisonPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmGroupedPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmJunctionPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmNegatedPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmNullnessPredicate;
import org.hibernate.query.sqm.tree.predicate.SqmPredicate;
import org.hibernate.query.sqm.tree.select.SqmDynamicInstantiation;
import org.hibernate.query.sqm.tree.select.SqmJpaCompoundSelection;
import org.hibernate.query.sqm.tree.select.SqmQueryPart;
import org.hibernate.query.sqm.tree.select.SqmQuerySpec;
import org.hibernate.query.sqm.tree.select.SqmSelectStatement;
import org.hibernate.query.sqm.tree.select.SqmSelectableNode;
import org.hibernate.query.sqm.tree.select.SqmSelection;
import org.hibernate.query.sqm.tree.select.SqmSortSpecification;
import org.hibernate.query.sqm.tree.select.SqmSubQuery;

/**
 * Turns an HQL query into a {@link ScatterPlan}, reading Hibernate's semantic query model (the
 * SQM tree Hibernate builds for the query and caches in its query plan cache), never the text.
 *
 * <p>A query is accepted only when merging per-shard answers gives exactly the answer one database
 * holding every row would give. Everything else is refused before any SQL is sent, with a message
 * that names the construct and the way out:
 * <ul>
 *   <li>set operations, CTEs, subqueries: they would see one shard's rows, not all;</li>
 *   <li>window and ordered-set functions, aggregates inside expressions, and aggregate functions
 *       other than count, sum, min, max and avg;</li>
 *   <li>{@code select new ...}, and ORDER BY on something not selected when the rows are grouped
 *       or distinct;</li>
 *   <li>a HAVING condition the merge cannot evaluate (anything beyond comparisons, BETWEEN and
 *       IS NULL of aggregates, grouping keys, literals and parameters under AND, OR and NOT).</li>
 * </ul>
 *
 * <p>HAVING is not sent to the shards, which return every partial group: it is evaluated over the
 * merged groups. {@code count}, {@code sum} and {@code avg} of {@code distinct} values are exact:
 * each shard also groups by the distinct argument, so it returns each of its distinct values once
 * per group, and the merge takes the aggregate over the union of those values.
 */
public final class ScatterPlanner {
  /** What {@code placement} answers for a reference table. */
  public static final String REFERENCE = "";

  private ScatterPlanner() {}

  /** Plans a query over entities that are all sharded (tests, and runtimes without reference tables). */
  public static ScatterPlan plan(SessionFactoryImplementor sessionFactory, String hql) {
    return plan(sessionFactory, hql, type -> null);
  }

  /**
   * @param placement for an entity class: {@link #REFERENCE} for a reference table (the same rows
   *     on every shard), its co-location group's name for a sharded entity, null for anything else
   */
  public static ScatterPlan plan(SessionFactoryImplementor sessionFactory, String hql,
      Function<Class<?>, String> placement) {
    // a scatter query may leave the shard key unpinned: that is its point, so the guard lets it through
    SqmStatement<?> statement = QueryGuard.bypass(() ->
        sessionFactory.getQueryEngine().interpretHql(QueryGuard.scatterGather(hql), null).getSqmStatement());
    return new Builder(hql, statement, placement).build();
  }

  private static final class Builder {
    private final String hql;
    private final SqmStatement<?> statement;
    private final SqmRenderContext render = SqmRenderContext.simpleContext();
    private final List<Column> columns = new ArrayList<>();
    private final List<Slot> slots = new ArrayList<>();
    private final List<String> slotHql = new ArrayList<>();

    private final Function<Class<?>, String> placement;

    Builder(String hql, SqmStatement<?> statement, Function<Class<?>, String> placement) {
      this.hql = hql;
      this.statement = statement;
      this.placement = placement;
    }

    /**
     * True when the FROM clause reads reference tables and no sharded entity: every shard holds
     * the same rows, so one shard must answer alone (all of them would multiply every row and count).
     */
    private boolean readsOnlyReferenceTables(SqmQuerySpec<?> spec) {
      java.util.Set<String> seen = new java.util.TreeSet<>();
      for (SqmRoot<?> root : spec.getFromClause().getRoots()) {
        classify(root, seen);
      }
      boolean reference = seen.remove(REFERENCE);
      if (seen.size() > 1) {
        throw refuse("it joins sharded entities of different co-location groups " + seen + ", whose matching rows"
            + " may sit on different shards", "co-locate the entities (@CoLocated), or query each group on its own"
            + " and join in Java");
      }
      return reference && seen.isEmpty();
    }

    private void classify(SqmFrom<?, ?> from, java.util.Set<String> seen) {
      String where = placement.apply(from.getJavaType());
      if (where != null) {
        seen.add(where);
      }
      for (SqmJoin<?, ?> join : from.getSqmJoins()) {
        classify(join, seen);
      }
    }

    ScatterPlan build() {
      if (!(statement instanceof SqmSelectStatement<?> select)) {
        throw refuse("it is not a select", "run updates and deletes on each shard with shards.forShard(id)");
      }
      if (!select.getCteStatements().isEmpty()) {
        throw refuse("it has a WITH clause (CTE), which each shard would evaluate over its own rows only",
            "inline the CTE into the main query, or run it per shard with shards.forShard(id)");
      }
      SqmQueryPart<?> part = select.getQueryPart();
      if (!(part instanceof SqmQuerySpec<?> spec)) {
        throw refuse("it is a set operation (union, intersect or except)",
            "run each operand as its own scatter query and combine the lists in Java");
      }
      List<SqmSelection<?>> selections = spec.getSelectClause().getSelections();
      for (SqmSelection<?> selection : selections) {
        SqmSelectableNode<?> node = selection.getSelectableNode();
        if (node instanceof SqmDynamicInstantiation<?> || node instanceof SqmJpaCompoundSelection<?>) {
          throw refuse("it selects a constructed object (select new ...)",
              "select the values themselves and build the object from the merged rows");
        }
        check(node);
      }
      if (spec.getWhereClause() != null && spec.getWhereClause().getPredicate() != null) {
        check(spec.getWhereClause().getPredicate());
      }
      List<SqmExpression<?>> groupBy = spec.getGroupByClauseExpressions();
      groupBy.forEach(this::check);

      boolean aggregated = !groupBy.isEmpty() || spec.getHavingClausePredicate() != null;
      for (SqmSelection<?> selection : selections) {
        aggregated |= selection.getSelectableNode() instanceof SqmAggregateFunction<?>;
      }
      for (SqmSelection<?> selection : selections) {
        addSelection(selection.getSelectableNode());
      }
      int selectionCount = slots.size();

      Shape shape;
      if (aggregated) {
        shape = groupBy.isEmpty() ? Shape.AGGREGATE : Shape.GROUPED;
        for (SqmExpression<?> key : groupBy) {
          if (!(key instanceof SqmAliasedNodeRef) && slotHql.indexOf(text(key)) < 0) {
            addKey(text(key), key); // grouped by but not selected: still needed to regroup
          }
        }
      } else {
        shape = spec.getSelectClause().isDistinct() ? Shape.DISTINCT_ROWS : Shape.ROWS;
      }
      Condition having = null;
      if (spec.getHavingClausePredicate() != null) {
        check(spec.getHavingClausePredicate());
        having = condition(spec.getHavingClausePredicate(), selectionCount);
      }

      List<SortKey> sortKeys = new ArrayList<>();
      List<String> sortKeyHql = new ArrayList<>();
      List<String> orderItems = new ArrayList<>();
      if (spec.getOrderByClause() != null) {
        for (SqmSortSpecification sort : spec.getOrderByClause().getSortSpecifications()) {
          int slot = sortSlot(sort.getSortExpression(), shape, selectionCount);
          boolean descending = sort.getSortDirection() == SortDirection.DESCENDING;
          Nulls nulls = sort.getNullPrecedence();
          // PostgreSQL sorts NULL as larger than any value unless told otherwise
          boolean nullsFirst = nulls == Nulls.FIRST || (nulls != Nulls.LAST && descending);
          sortKeys.add(new SortKey(slot, descending, nullsFirst));
          String expression = slotHql.get(slot);
          sortKeyHql.add(expression);
          orderItems.add(expression + (descending ? " desc" : " asc")
              + (nulls == Nulls.FIRST ? " nulls first" : nulls == Nulls.LAST ? " nulls last" : ""));
        }
      }

      StringBuilder selectText = new StringBuilder("select ");
      if (shape == Shape.DISTINCT_ROWS) {
        selectText.append("distinct ");
      }
      for (int i = 0; i < columns.size(); i++) {
        selectText.append(i == 0 ? "" : ", ").append(columns.get(i).hql());
      }
      StringBuilder fromText = new StringBuilder();
      spec.getFromClause().appendHqlString(fromText, render);
      String from = fromText.toString().trim();
      if (!from.regionMatches(true, 0, "from ", 0, 5)) {
        from = "from " + from;
      }
      String where = spec.getWhereClause() == null || spec.getWhereClause().getPredicate() == null
          ? null : text(spec.getWhereClause().getPredicate());
      String groupByText = null;
      List<String> keys = new ArrayList<>();
      for (SqmExpression<?> key : groupBy) {
        keys.add(key instanceof SqmAliasedNodeRef ref ? slotHql.get(selectionSlot(ref, selectionCount)) : text(key));
      }
      for (Column column : columns) {
        if (column.merge() == Merge.DISTINCT) {
          keys.add(column.hql()); // each shard returns each distinct value once per group
        }
      }
      if (!keys.isEmpty()) {
        groupByText = String.join(", ", keys);
      }
      // grouped and aggregated rows are re-sorted after the merge: the shards need not sort
      String orderBy = orderItems.isEmpty() || aggregated ? null : String.join(", ", orderItems);

      long limit = literal(spec.getFetchExpression(), "LIMIT", -1);
      long offset = literal(spec.getOffsetExpression(), "OFFSET", 0);
      if (spec.getFetchExpression() != null && spec.getFetchClauseType() != FetchClauseType.ROWS_ONLY) {
        throw refuse("it fetches " + spec.getFetchClauseType(), "use a plain LIMIT or setMaxResults");
      }
      List<ScatterPlan.ShardedFrom> sharded = new ArrayList<>();
      String[] outerJoin = {null};
      for (SqmRoot<?> root : spec.getFromClause().getRoots()) {
        collectSharded(root, sharded, outerJoin);
      }
      return new ScatterPlan(shape, selectText.toString(), from, where, groupByText, orderBy, List.copyOf(columns),
          List.copyOf(slots), selectionCount, List.copyOf(sortKeys), List.copyOf(sortKeyHql), limit, offset,
          readsOnlyReferenceTables(spec), having, List.copyOf(sharded), outerJoin[0],
          spec.getFromClause().getRoots().stream().anyMatch(ScatterPlanner::fetchesAJoin));
    }

    /**
     * The sharded entities of the FROM clause with their aliases (as the rendered FROM clause names
     * them), and the first outer join that a per-shard bucket filter could not make exact: a LEFT
     * (or FULL) join to a sharded entity, whose copied rows the filter would turn into null-extended
     * rows instead of removing them, or a RIGHT / FULL join, which keeps rows of its right side
     * whatever the filter says of the left.
     */
    private void collectSharded(SqmFrom<?, ?> from, List<ScatterPlan.ShardedFrom> out, String[] outerJoin) {
      String where = placement.apply(from.getJavaType());
      boolean sharded = where != null && !where.equals(REFERENCE);
      if (sharded) {
        out.add(new ScatterPlan.ShardedFrom(from.resolveAlias(render), from.getJavaType()));
      }
      if (from instanceof SqmJoin<?, ?> join && outerJoin[0] == null) {
        org.hibernate.query.sqm.tree.SqmJoinType type = join.getSqmJoinType();
        if (type == org.hibernate.query.sqm.tree.SqmJoinType.RIGHT || type == org.hibernate.query.sqm.tree.SqmJoinType.FULL
            || (type == org.hibernate.query.sqm.tree.SqmJoinType.LEFT && sharded)) {
          outerJoin[0] = "it " + type.name().toLowerCase(Locale.ROOT) + " joins " + from.getJavaType().getSimpleName()
              + " " + from.resolveAlias(render);
        }
      }
      for (SqmJoin<?, ?> join : from.getSqmJoins()) {
        collectSharded(join, out, outerJoin);
      }
    }

    private void addSelection(SqmSelectableNode<?> node) {
      String text = text(node);
      if (node instanceof SqmAggregateFunction<?> aggregate && node instanceof SqmFunction<?> function) {
        String name = function.getFunctionName().toLowerCase(Locale.ROOT);
        SqmDistinct<?> distinct = function.getArguments().size() == 1
            && function.getArguments().get(0) instanceof SqmDistinct<?> d ? d : null;
        if (distinct != null && !name.equals("min") && !name.equals("max")) {
          addOverDistinct(name, text, distinct, aggregate);
          return;
        }
        switch (name) {
          case "count" -> addAggregate(text, Merge.COUNT);
          case "sum" -> addAggregate(text, Merge.SUM);
          case "min", "max" -> {
            columns.add(new Column(text, name.equals("min") ? Merge.MIN : Merge.MAX,
                enumAsText((SqmExpression<?>) function.getArguments().get(0))));
            slots.add(new Slot(columns.size() - 1, -1));
            slotHql.add(text);
          }
          case "avg" -> {
            if (((SqmAggregateFunction<?>) node).getFilter() != null || function.getArguments().size() != 1) {
              throw refuse("avg with a FILTER clause", "select sum(x) filter (...) and count(x) filter (...) and divide");
            }
            String argument = text((SqmVisitableNode) function.getArguments().get(0));
            columns.add(new Column("sum(" + argument + ")", Merge.SUM));
            columns.add(new Column("count(" + argument + ")", Merge.COUNT));
            slots.add(new Slot(columns.size() - 2, columns.size() - 1));
            slotHql.add(text);
          }
          default -> throw refuse("the aggregate function " + name + " cannot be merged from per-shard results",
              "use count, sum, min, max or avg, or run the query per shard with shards.forShard(id)");
        }
        return;
      }
      if (containsAggregate(node)) {
        throw refuse("an aggregate is used inside an expression (" + text + ")",
            "select the aggregate itself and compute the expression from the merged row");
      }
      addKey(text, node);
    }

    /**
     * An aggregate call as HQL. Hibernate's own rendering of aggregate nodes leaves the arguments
     * out, so the call is spelled here from its parts: name, arguments, FILTER.
     */
    private String aggregateText(String name, SqmFunction<?> function, SqmAggregateFunction<?> aggregate) {
      StringBuilder sb = new StringBuilder(name).append('(');
      List<? extends org.hibernate.query.sqm.tree.SqmTypedNode<?>> arguments = function.getArguments();
      for (int i = 0; i < arguments.size(); i++) {
        sb.append(i == 0 ? "" : ", ").append(text(arguments.get(i)));
      }
      sb.append(')');
      if (aggregate.getFilter() != null) {
        sb.append(" filter (where ").append(text(aggregate.getFilter())).append(')');
      }
      return sb.toString();
    }

    /** {@code count}, {@code sum} or {@code avg} of distinct values: a slot over a set the merge collects. */
    private void addOverDistinct(String name, String text, SqmDistinct<?> distinct, SqmAggregateFunction<?> aggregate) {
      OverDistinct over = switch (name) {
        case "count" -> OverDistinct.COUNT;
        case "sum" -> OverDistinct.SUM;
        case "avg" -> OverDistinct.AVG;
        default -> throw refuse("the aggregate function " + name + "(distinct ...) cannot be merged from per-shard"
            + " results", "use count, sum or avg of distinct values, or run the query per shard");
      };
      if (aggregate.getFilter() != null) {
        throw refuse(name + "(distinct ...) with a FILTER clause",
            "move the FILTER condition into the WHERE clause of a query of its own");
      }
      SqmExpression<?> argument = distinct.getExpression();
      if (argument instanceof SqmFrom<?, ?> || argument.getJavaType() != null
          && argument.getJavaType().isAnnotationPresent(jakarta.persistence.Entity.class)) {
        throw refuse(name + "(distinct " + text(argument) + ") over an entity",
            "aggregate a basic attribute, for instance " + name + "(distinct " + text(argument) + ".id)");
      }
      String argumentText = text(argument);
      int column = -1;
      for (int c = 0; c < columns.size(); c++) {
        if (columns.get(c).merge() == Merge.DISTINCT && columns.get(c).hql().equals(argumentText)) {
          column = c;
        }
      }
      if (column < 0) {
        columns.add(new Column(argumentText, Merge.DISTINCT));
        column = columns.size() - 1;
      }
      slots.add(new Slot(column, -1, over));
      slotHql.add(text);
    }

    // ---- HAVING ----------------------------------------------------------------------------

    private Condition condition(SqmPredicate predicate, int selectionCount) {
      Condition condition;
      if (predicate instanceof SqmGroupedPredicate grouped) {
        return condition(grouped.getSubPredicate(), selectionCount);
      } else if (predicate instanceof SqmNegatedPredicate negated) {
        return new Not(condition(negated.getWrappedPredicate(), selectionCount));
      } else if (predicate instanceof SqmJunctionPredicate junction) {
        List<Condition> parts = new ArrayList<>();
        for (SqmPredicate part : junction.getPredicates()) {
          parts.add(condition(part, selectionCount));
        }
        condition = new Junction(junction.getOperator() == jakarta.persistence.criteria.Predicate.BooleanOperator.AND,
            List.copyOf(parts));
      } else if (predicate instanceof SqmComparisonPredicate comparison) {
        condition = new Compare(operand(comparison.getLeftHandExpression(), selectionCount),
            comparison.getSqmOperator().sqlText(), operand(comparison.getRightHandExpression(), selectionCount));
      } else if (predicate instanceof SqmNullnessPredicate nullness) {
        return new IsNull(operand(nullness.getExpression(), selectionCount), nullness.isNegated());
      } else if (predicate instanceof SqmBetweenPredicate between) {
        Operand value = operand(between.getExpression(), selectionCount);
        condition = new Junction(true, List.of(
            new Compare(value, ">=", operand(between.getLowerBound(), selectionCount)),
            new Compare(value, "<=", operand(between.getUpperBound(), selectionCount))));
      } else {
        throw refuse("its HAVING uses " + text(predicate) + ", which the merge cannot evaluate over merged groups",
            "compare aggregates and grouping keys with values (=, <>, <, <=, >, >=, between, is null) under"
                + " and, or and not, or filter the merged groups in Java");
      }
      return predicate.isNegated() ? new Not(condition) : condition;
    }

    private Operand operand(SqmExpression<?> expression, int selectionCount) {
      if (expression instanceof SqmNamedParameter<?> named) {
        return new NamedParameter(named.getName());
      }
      if (expression instanceof SqmPositionalParameter<?> positional) {
        return new PositionalParameter(positional.getPosition());
      }
      if (expression instanceof SqmLiteral<?> literal) {
        return new Constant(literal.getLiteralValue());
      }
      if (expression instanceof SqmAliasedNodeRef ref) {
        return new SlotValue(selectionSlot(ref, selectionCount));
      }
      String text = text(expression);
      int slot = slotHql.indexOf(text);
      if (expression instanceof SqmAggregateFunction<?>) {
        if (slot < 0) {
          addSelection(expression); // computed for the condition, dropped before rows reach the caller
          slot = slots.size() - 1;
        }
        return new SlotValue(slot);
      }
      if (slot >= 0 && columns.get(slots.get(slot).column()).merge() == Merge.KEY && !containsAggregate(expression)) {
        return new SlotValue(slot);
      }
      throw refuse("its HAVING uses " + text + ", which is neither an aggregate nor a grouping key",
          "compare aggregates (count, sum, min, max, avg) and grouped-by values with literals or parameters");
    }

    private void addAggregate(String text, Merge merge) {
      columns.add(new Column(text, merge));
      slots.add(new Slot(columns.size() - 1, -1));
      slotHql.add(text);
    }

    private int addKey(String text, SqmSelectableNode<?> node) {
      columns.add(new Column(text, Merge.KEY, node instanceof SqmExpression<?> e && enumAsText(e)));
      slots.add(new Slot(columns.size() - 1, -1));
      slotHql.add(text);
      return slots.size() - 1;
    }

    private int sortSlot(SqmExpression<?> expression, Shape shape, int selectionCount) {
      if (expression instanceof SqmAliasedNodeRef ref) {
        return selectionSlot(ref, selectionCount);
      }
      check(expression);
      String text = text(expression);
      int slot = slotHql.indexOf(text);
      if (slot >= 0) {
        return slot;
      }
      if (shape != Shape.ROWS) {
        throw refuse("it orders " + (shape == Shape.DISTINCT_ROWS ? "distinct" : "grouped") + " rows by " + text
            + ", which it does not select", "add " + text + " to the select clause");
      }
      return addKey(text, expression);
    }

    /**
     * Whether {@code expression} is an enum attribute stored as text ({@code EnumType.STRING}):
     * the database orders it by its name, not by the ordinal that {@link Enum#compareTo} uses.
     */
    private static boolean enumAsText(SqmExpression<?> expression) {
      return expression.getJavaType() != null && expression.getJavaType().isEnum()
          && expression instanceof org.hibernate.query.sqm.tree.domain.SqmPath<?> path
          && path.getReferencedPathSource().getPathType() instanceof org.hibernate.metamodel.mapping.JdbcMapping mapping
          && mapping.getJdbcType().isString();
    }

    private int selectionSlot(SqmAliasedNodeRef ref, int selectionCount) {
      int slot = ref.getPosition() - 1;
      if (slot < 0 || slot >= selectionCount) {
        throw refuse("it refers to select item " + ref.getPosition() + ", which does not exist", "fix the query");
      }
      return slot;
    }

    private long literal(SqmExpression<?> expression, String clause, long absent) {
      if (expression == null) {
        return absent;
      }
      if (expression instanceof SqmLiteral<?> literal && literal.getLiteralValue() instanceof Number n) {
        return n.longValue();
      }
      throw refuse(clause + " is not a literal", "pass it with setMaxResults / setFirstResult on the scatter query");
    }

    /** Refuses subqueries, window functions and ordered-set aggregates anywhere under {@code node}. */
    private void check(SqmVisitableNode node) {
      node.accept(new BaseSemanticQueryWalker() {
        @Override
        public Object visitSubQueryExpression(SqmSubQuery<?> subQuery) {
          throw refuse("it contains a subquery (" + text(subQuery) + "), which each shard would evaluate over its"
              + " own rows only", "run the subquery as its own scatter query first and pass its result as a parameter");
        }

        @Override
        public Object visitOver(SqmOver<?> over) {
          throw refuse("it uses a window function (" + text(over) + ")",
              "compute it in Java over the merged rows, or per shard with shards.forShard(id)");
        }

        @Override
        public Object visitWindow(SqmWindow window) {
          throw refuse("it uses a window", "compute it in Java over the merged rows");
        }

        @Override
        public Object visitFunction(SqmFunction<?> function) {
          if (function instanceof SqmOrderedSetAggregateFunction<?>) {
            throw refuse("the ordered-set aggregate " + function.getFunctionName() + " cannot be merged from"
                + " per-shard results", "select the values and aggregate them in Java");
          }
          return super.visitFunction(function);
        }
      });
    }

    private boolean containsAggregate(SqmVisitableNode node) {
      boolean[] found = {false};
      node.accept(new BaseSemanticQueryWalker() {
        @Override
        public Object visitFunction(SqmFunction<?> function) {
          found[0] |= function instanceof SqmAggregateFunction<?>;
          return super.visitFunction(function);
        }
      });
      return found[0];
    }

    private String text(SqmVisitableNode node) {
      if (node instanceof SqmAggregateFunction<?> aggregate && node instanceof SqmFunction<?> function) {
        return aggregateText(function.getFunctionName().toLowerCase(Locale.ROOT), function, aggregate);
      }
      StringBuilder sb = new StringBuilder();
      node.appendHqlString(sb, render);
      return sb.toString();
    }

    private UnsupportedScatterQueryException refuse(String what, String instead) {
      return new UnsupportedScatterQueryException("Scatter-gather cannot answer [" + hql + "] correctly: " + what
          + ". Instead: " + instead + ".");
    }
  }

  /** Whether {@code from} or any join under it is a fetch join. */
  private static boolean fetchesAJoin(SqmFrom<?, ?> from) {
    for (SqmJoin<?, ?> join : from.getSqmJoins()) {
      if (join instanceof org.hibernate.query.sqm.tree.from.SqmAttributeJoin<?, ?> attributeJoin
          && attributeJoin.isFetched() || fetchesAJoin(join)) {
        return true;
      }
    }
    return false;
  }
}
