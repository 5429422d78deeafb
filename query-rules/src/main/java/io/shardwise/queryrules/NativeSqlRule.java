package io.shardwise.queryrules;

import io.shardwise.queryrules.TableModel.MappedTable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.JdbcNamedParameter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimestampValue;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * The shard-key rule for native SQL, read with JSqlParser: every table of a sharded entity in a
 * FROM, JOIN, USING or UPDATE/DELETE target (of the statement and of each subquery) must have its
 * key column pinned, that is compared with {@code =} or {@code IN} to parameters or literals on
 * every branch of the conditions that filter it (WHERE and the ON clauses). {@code AND} pins what
 * either side pins, {@code OR} what both sides pin; an equality between the key columns of two
 * tables of one co-location group carries a pin from one to the other, and a correlated subquery
 * sees the pins of the query around it. {@code key IN (select y.key ...)} is pinned when the
 * subquery pins {@code y} on its own and {@code y} is of the same group. A co-located child is
 * pinned by its pinned parent through the foreign key of its {@code @CoLocated(via)} path's first
 * hop ({@link TableModel.ParentLink}): {@code child.fk = parent.id} in a WHERE or an inner join's
 * ON, or {@code fk IN (select id from Parent ...)}; never the other way. The ON of a LEFT JOIN pins
 * only the table it joins (a key equality in it carries into that table only); that of a RIGHT or
 * FULL join pins nothing. An {@code INSERT} into a
 * sharded table must write its key column from a parameter, a literal or a pinned key of the rows
 * it selects.
 *
 * <p>What the rule does not follow (a subquery in a CASE or a function's argument, a
 * parenthesised join) is never taken as pinned: every sharded table the parser finds anywhere in
 * the statement and the walk did not judge is reported unpinned. SQL the parser cannot read is
 * {@link Analysis#unreadable()}, named, and judged by nobody.
 *
 * <p>Stateless apart from the model, so one instance serves every thread.
 */
public final class NativeSqlRule {

  /** A sharded table whose key column nothing pins. */
  public record UnpinnedTable(MappedTable table, String tableName, String alias) {

    /** {@code user_entity u}, or the bare table name. */
    public String describe() {
      return alias == null ? tableName : tableName + " " + alias;
    }
  }

  /**
   * A value a statement pins a key column to: a named parameter, a positional one (1-based, as
   * Hibernate numbers {@code ?} and {@code ?1}), or a literal. The runtime checks each against the
   * session's shard.
   */
  public record KeyPin(MappedTable table, String parameterName, Integer position, Object literal) {}

  /** An insert into a sharded table that does not write its key from a value or a pinned key. */
  public record InsertWithoutKey(MappedTable table, String problem) {}

  /**
   * What one reading of a statement says.
   *
   * @param unreadable what could not be read ("the token "{" at line 1, column 15", "a CREATE
   *     TABLE statement"), or null; when set, nothing else is said
   * @param unpinned sharded tables whose key nothing pins, in the order they appear
   * @param unknownTables tables that hold no entity of the model, each once
   * @param keyPins every value a key column is compared with
   * @param insertWithoutKey an insert into a sharded table that does not write its key, or null
   */
  public record Analysis(String unreadable, List<UnpinnedTable> unpinned, List<String> unknownTables,
      List<KeyPin> keyPins, InsertWithoutKey insertWithoutKey) {

    public Analysis {
      unpinned = List.copyOf(unpinned);
      unknownTables = List.copyOf(unknownTables);
      keyPins = List.copyOf(keyPins);
    }

    /** Whether the statement reads or writes at least one sharded table with a pinned key. */
    public boolean pinsAny() {
      return !keyPins.isEmpty();
    }
  }

  private final TableModel model;

  public NativeSqlRule(TableModel model) {
    this.model = model;
  }

  /** Reads and judges one native SQL statement. */
  public Analysis analyze(String sql) {
    Statement statement;
    try {
      // the parser itself, not CCJSqlParserUtil.parse: that one starts a thread per statement
      statement = CCJSqlParserUtil.newParser(sql).Statement();
    } catch (Exception | Error e) {
      String message = String.valueOf(e.getMessage());
      int newline = message.indexOf('\n');
      return unreadable(newline < 0 ? message : message.substring(0, newline));
    }
    Walk walk = new Walk();
    String unsupported = walk.statement(statement);
    if (unsupported != null) {
      return unreadable(unsupported);
    }
    walk.unjudgedTables(statement);
    return new Analysis(null, walk.unpinned, new ArrayList<>(walk.unknown), walk.pins, walk.insert);
  }

  private static Analysis unreadable(String construct) {
    return new Analysis(construct, List.of(), List.of(), List.of(), null);
  }

  /** A table in a FROM, JOIN, USING or statement target. */
  private static final class Source {
    final Table node;
    final String name;
    final String alias;
    final MappedTable mapped;

    Source(Table node, String name, String alias, MappedTable mapped) {
      this.node = node;
      this.name = name;
      this.alias = alias;
      this.mapped = mapped;
    }

    boolean sharded() {
      return mapped != null && mapped.sharded();
    }
  }

  /** The sources of one query level, the ones pinned so far, and the level around it. */
  private static final class Scope {
    final Scope outer;
    final List<Source> sources = new ArrayList<>();
    final Set<Source> pinned = identitySet();

    Scope(Scope outer) {
      this.outer = outer;
    }

    boolean isPinned(Source source) {
      for (Scope scope = this; scope != null; scope = scope.outer) {
        if (scope.pinned.contains(source)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * What a condition guarantees: pinned sources, equalities between key columns (which carry a pin
   * either way), and joins on a co-location foreign key ({@code {parent, child}}: a pin carries
   * from the parent to the child only).
   */
  private static final class Facts {
    final Set<Source> pinned = identitySet();
    final List<Source[]> equal = new ArrayList<>();
    final List<Source[]> parentToChild = new ArrayList<>();

    Facts and(Facts other) {
      pinned.addAll(other.pinned);
      equal.addAll(other.equal);
      parentToChild.addAll(other.parentToChild);
      return this;
    }

    /** The pinned sources once every equality has carried its pins, the scope's pins included. */
    Set<Source> closed(Scope scope) {
      Set<Source> closed = identitySet();
      closed.addAll(pinned);
      boolean grew = true;
      while (grew) {
        grew = false;
        for (Source[] pair : equal) {
          boolean left = closed.contains(pair[0]) || scope.isPinned(pair[0]);
          boolean right = closed.contains(pair[1]) || scope.isPinned(pair[1]);
          if (left != right) {
            closed.add(left ? pair[1] : pair[0]);
            grew = true;
          }
        }
        for (Source[] link : parentToChild) {
          if ((closed.contains(link[0]) || scope.isPinned(link[0])) && !closed.contains(link[1])
              && !scope.isPinned(link[1])) {
            closed.add(link[1]);
            grew = true;
          }
        }
      }
      return closed;
    }
  }

  private final class Walk {
    final List<UnpinnedTable> unpinned = new ArrayList<>();
    final Set<String> unknown = new LinkedHashSet<>();
    final List<KeyPin> pins = new ArrayList<>();
    final Set<Table> judged = Collections.newSetFromMap(new IdentityHashMap<>());
    final Set<String> cteNames = new HashSet<>();
    /**
     * The ON conditions of outer joins, each with the table its LEFT JOIN joins: such a condition
     * filters that table's rows only, never the rows it is joined to. Null for a RIGHT or FULL
     * join, whose conditions are taken to pin nothing.
     */
    final Map<Expression, Source> outerJoinConditions = new IdentityHashMap<>();
    boolean insideOuterJoin;
    InsertWithoutKey insert;
    /** Judging a subquery only for what it lends to the query around it: report nothing. */
    int dry;

    /** Judges a statement; returns what kind of statement it is when the rule does not judge it. */
    String statement(Statement statement) {
      if (statement instanceof Select select) {
        select(select, null);
      } else if (statement instanceof Update update) {
        withItems(update.getWithItemsList());
        Scope scope = new Scope(null);
        addSource(update.getTable(), scope);
        addFrom(update.getFromItem(), scope);
        List<Expression> conditions = joins(update.getStartJoins(), scope);
        conditions.addAll(joins(update.getJoins(), scope));
        conditions.add(update.getWhere());
        judgeScope(scope, conditions);
      } else if (statement instanceof Delete delete) {
        withItems(delete.getWithItemsList());
        Scope scope = new Scope(null);
        addSource(delete.getTable(), scope);
        if (delete.getUsingList() != null) {
          delete.getUsingList().forEach(table -> addSource(table, scope));
        }
        List<Expression> conditions = joins(delete.getJoins(), scope);
        conditions.add(delete.getWhere());
        judgeScope(scope, conditions);
      } else if (statement instanceof Insert insert) {
        insert(insert);
      } else {
        String kind = statement.getClass().getSimpleName();
        return "a statement of kind " + kind.toUpperCase(Locale.ROOT) + " (only SELECT, INSERT, UPDATE and"
            + " DELETE are judged)";
      }
      return null;
    }

    void withItems(List<WithItem<?>> items) {
      if (items == null) {
        return;
      }
      for (WithItem<?> item : items) {
        cteNames.add(lower(item.getUnquotedAliasName()));
        if (item.getSelect() != null) {
          select(item.getSelect(), null);
        }
      }
    }

    void select(Select select, Scope outer) {
      withItems(select.getWithItemsList());
      if (select instanceof PlainSelect plain) {
        plain(plain, outer);
      } else if (select instanceof SetOperationList union) {
        union.getSelects().forEach(branch -> select(branch, outer));
      } else if (select instanceof ParenthesedSelect parenthesed) {
        select(parenthesed.getSelect(), outer);
      }
      // VALUES reads no table; a subquery inside one is left to unjudgedTables
    }

    /** Judges a plain SELECT and returns its scope (with its pins). */
    Scope plain(PlainSelect select, Scope outer) {
      Scope scope = new Scope(outer);
      addFrom(select.getFromItem(), scope);
      List<Expression> conditions = joins(select.getJoins(), scope);
      conditions.add(select.getWhere());
      judgeScope(scope, conditions);
      for (SelectItem<?> item : select.getSelectItems()) {
        if (unwrap(item.getExpression()) instanceof ParenthesedSelect scalar) {
          select(scalar.getSelect(), scope);
        }
      }
      return scope;
    }

    void addFrom(FromItem item, Scope scope) {
      if (item instanceof Table table) {
        addSource(table, scope);
      } else if (item instanceof ParenthesedSelect derived) {
        // a derived table is judged on its own; it lends the query around it no pin
        select(derived.getSelect(), scope.outer);
      }
      // functions (unnest, generate_series) read no table; anything else is left to unjudgedTables
    }

    List<Expression> joins(List<Join> joins, Scope scope) {
      List<Expression> conditions = new ArrayList<>();
      if (joins == null) {
        return conditions;
      }
      for (Join join : joins) {
        int before = scope.sources.size();
        addFrom(join.getFromItem(), scope);
        conditions.addAll(join.getOnExpressions());
        if (join.isLeft() || join.isRight() || join.isFull() || join.isOuter()) {
          Source joined = join.isLeft() && !join.isRight() && !join.isFull() && scope.sources.size() == before + 1
              ? scope.sources.get(before) : null;
          join.getOnExpressions().forEach(on -> outerJoinConditions.put(on, joined));
        }
      }
      return conditions;
    }

    void addSource(Table table, Scope scope) {
      if (table == null) {
        return;
      }
      judged.add(table);
      String name = lower(table.getUnquotedName());
      MappedTable mapped = model.table(name);
      if (mapped == null && !cteNames.contains(name)) {
        unknown.add(name);
      }
      String alias = table.getAlias() == null ? null : lower(unquote(table.getAlias().getName()));
      scope.sources.add(new Source(table, name, alias, mapped));
    }

    /** Pins the scope from its conditions, judges the subqueries in them, reports what stays unpinned. */
    void judgeScope(Scope scope, List<Expression> conditions) {
      Facts facts = new Facts();
      for (Expression condition : conditions) {
        if (condition != null) {
          boolean around = insideOuterJoin;
          insideOuterJoin = outerJoinConditions.containsKey(condition);
          try {
            Facts found = facts(condition, scope);
            facts.and(insideOuterJoin ? onlyInto(found, outerJoinConditions.get(condition)) : found);
          } finally {
            insideOuterJoin = around;
          }
        }
      }
      scope.pinned.addAll(facts.closed(scope));
      for (Expression condition : conditions) {
        if (condition != null) {
          subqueries(condition, scope);
        }
      }
      if (dry > 0) {
        return;
      }
      for (Source source : scope.sources) {
        if (source.sharded() && !scope.pinned.contains(source)) {
          unpinned.add(new UnpinnedTable(source.mapped, source.name, source.alias));
        }
      }
    }

    /** What an outer join's condition guarantees for the table it joins, and for nothing else. */
    Facts onlyInto(Facts found, Source joined) {
      Facts kept = new Facts();
      if (joined == null) {
        return kept;
      }
      if (found.pinned.contains(joined)) {
        kept.pinned.add(joined);
      }
      for (Source[] pair : found.equal) {
        if (pair[0] != joined && pair[1] == joined) {
          kept.parentToChild.add(pair);
        } else if (pair[0] == joined && pair[1] != joined) {
          kept.parentToChild.add(new Source[] {pair[1], joined});
        }
      }
      return kept;
    }

    Facts facts(Expression expression, Scope scope) {
      Expression e = unwrap(expression);
      Facts facts = new Facts();
      if (e instanceof AndExpression and) {
        return facts(and.getLeftExpression(), scope).and(facts(and.getRightExpression(), scope));
      }
      if (e instanceof OrExpression or) {
        Set<Source> left = facts(or.getLeftExpression(), scope).closed(scope);
        Set<Source> right = facts(or.getRightExpression(), scope).closed(scope);
        for (Source source : left) {
          if (right.contains(source)) {
            facts.pinned.add(source);
          }
        }
        return facts;
      }
      if (e instanceof EqualsTo equals) {
        Source left = keyColumnOwner(equals.getLeftExpression(), scope);
        Source right = keyColumnOwner(equals.getRightExpression(), scope);
        if (left != null && isValue(equals.getRightExpression())) {
          pin(facts, left, equals.getRightExpression());
        } else if (right != null && isValue(equals.getLeftExpression())) {
          pin(facts, right, equals.getLeftExpression());
        } else if (left != null && right != null && sameGroup(left, right)) {
          facts.equal.add(new Source[] {left, right});
        } else if (!insideOuterJoin) {
          Source[] link = foreignKeyJoin(equals.getLeftExpression(), equals.getRightExpression(), scope);
          if (link == null) {
            link = foreignKeyJoin(equals.getRightExpression(), equals.getLeftExpression(), scope);
          }
          if (link != null) {
            facts.parentToChild.add(link);
          }
        }
        return facts;
      }
      if (e instanceof InExpression in && !in.isNot()) {
        Source owner = keyColumnOwner(in.getLeftExpression(), scope);
        Expression right = in.getRightExpression();
        if (owner == null) {
          Source child = insideOuterJoin ? null : columnSource(in.getLeftExpression(), scope, NativeSqlRule::isForeignKey);
          if (child != null && right instanceof ParenthesedSelect subquery && lendsParent(subquery, child)) {
            facts.pinned.add(child);
          }
          return facts;
        }
        if (right instanceof ParenthesedSelect subquery) {
          if (lendsKey(subquery, owner, scope)) {
            facts.pinned.add(owner);
          }
        } else if (right instanceof ExpressionList<?> list && !list.isEmpty() && allValues(list)) {
          for (Object value : list) {
            pin(facts, owner, (Expression) value);
          }
        } else if (isValue(right)) {
          pin(facts, owner, right);
        }
      }
      return facts;
    }

    void pin(Facts facts, Source source, Expression value) {
      facts.pinned.add(source);
      if (dry > 0) {
        return;
      }
      Expression bare = unwrap(value);
      while (bare instanceof CastExpression cast) {
        bare = cast.getLeftExpression();
      }
      if (bare instanceof JdbcNamedParameter named) {
        pins.add(new KeyPin(source.mapped, named.getName(), null, null));
      } else if (bare instanceof JdbcParameter positional) {
        pins.add(new KeyPin(source.mapped, null, positional.getIndex(), null));
      } else {
        pins.add(new KeyPin(source.mapped, null, null, literal(bare)));
      }
    }

    /** {@code key IN (select y.key from Y y where ...)}: y pinned by the subquery alone, same group. */
    boolean lendsKey(ParenthesedSelect subquery, Source owner, Scope scope) {
      if (!(subquery.getSelect() instanceof PlainSelect plain) || plain.getSelectItems().size() != 1) {
        return false;
      }
      dry++;
      try {
        Scope inner = plain(plain, new Scope(null));
        Source selected = keyColumnOwner(plain.getSelectItems().get(0).getExpression(), inner);
        return selected != null && inner.pinned.contains(selected) && sameGroup(selected, owner);
      } finally {
        dry--;
      }
    }

    /**
     * {@code fk IN (select p.id from Parent p where ...)}: the subquery selects the referenced
     * column of the child's co-location parent and pins that parent on its own.
     */
    boolean lendsParent(ParenthesedSelect subquery, Source child) {
      if (!(subquery.getSelect() instanceof PlainSelect plain) || plain.getSelectItems().size() != 1) {
        return false;
      }
      dry++;
      try {
        Scope inner = plain(plain, new Scope(null));
        Source parent = columnSource(plain.getSelectItems().get(0).getExpression(), inner,
            (source, column) -> isReferencedBy(source, column, child));
        return parent != null && inner.pinned.contains(parent);
      } finally {
        dry--;
      }
    }

    /** Judges the subqueries of a condition, each seeing the pins of the scope around it. */
    void subqueries(Expression expression, Scope scope) {
      Expression e = unwrap(expression);
      if (e instanceof AndExpression and) {
        subqueries(and.getLeftExpression(), scope);
        subqueries(and.getRightExpression(), scope);
      } else if (e instanceof OrExpression or) {
        subqueries(or.getLeftExpression(), scope);
        subqueries(or.getRightExpression(), scope);
      } else if (e instanceof InExpression in) {
        subqueries(in.getLeftExpression(), scope);
        subqueries(in.getRightExpression(), scope);
      } else if (e instanceof ExistsExpression exists) {
        subqueries(exists.getRightExpression(), scope);
      } else if (e instanceof net.sf.jsqlparser.expression.BinaryExpression binary) {
        subqueries(binary.getLeftExpression(), scope);
        subqueries(binary.getRightExpression(), scope);
      } else if (e instanceof ParenthesedSelect subquery) {
        select(subquery.getSelect(), scope);
      }
      // anything else holding a subquery (CASE, a function's argument) is left to unjudgedTables
    }

    void insert(Insert statement) {
      withItems(statement.getWithItemsList());
      Table target = statement.getTable();
      judged.add(target);
      String name = lower(target.getUnquotedName());
      MappedTable mapped = model.table(name);
      if (mapped == null) {
        unknown.add(name);
      }
      Select select = statement.getSelect();
      Scope selectScope = null;
      if (select instanceof PlainSelect plain) {
        withItems(plain.getWithItemsList());
        selectScope = plain(plain, null);
      } else if (select instanceof ParenthesedSelect parenthesed
          && parenthesed.getSelect() instanceof PlainSelect plain) {
        selectScope = plain(plain, null);
      } else if (select != null && !(select instanceof Values)) {
        select(select, null);
      }
      if (mapped == null || !mapped.sharded()) {
        return;
      }
      int index = -1;
      if (statement.getColumns() != null) {
        for (int i = 0; i < statement.getColumns().size(); i++) {
          if (mapped.isKeyColumn(lower(statement.getColumns().get(i).getUnquotedColumnName()))) {
            index = i;
          }
        }
      }
      if (index < 0) {
        insert = new InsertWithoutKey(mapped, statement.getColumns() == null
            ? "lists no columns, so which value is its key column " + mapped.keyColumn() + " cannot be told"
            : "does not list its key column " + mapped.keyColumn() + " among the columns it writes");
        return;
      }
      Source written = new Source(target, name, null, mapped);
      if (select instanceof Values values) {
        ExpressionList<?> expressions = values.getExpressions();
        boolean severalRows = expressions.stream().allMatch(row -> row instanceof ExpressionList<?>);
        List<Expression> keys = new ArrayList<>();
        if (!severalRows) {
          keys.add(expressions.size() > index ? (Expression) expressions.get(index) : null);
        } else {
          for (Object row : expressions) {
            ExpressionList<?> list = (ExpressionList<?>) row;
            keys.add(list.size() > index ? (Expression) list.get(index) : null);
          }
        }
        for (Expression value : keys) {
          if (value == null || !isValue(value)) {
            insert = new InsertWithoutKey(mapped, "writes its key column " + mapped.keyColumn()
                + " from " + value + ", not from a parameter or literal");
            return;
          }
          pin(new Facts(), written, value);
        }
        return;
      }
      PlainSelect plain = plainOf(select);
      if (plain == null || selectScope == null || plain.getSelectItems().size() <= index) {
        insert = new InsertWithoutKey(mapped, "writes its key column " + mapped.keyColumn()
            + " from a query whose selected key cannot be told");
        return;
      }
      Expression value = plain.getSelectItems().get(index).getExpression();
      if (isValue(value)) {
        pin(new Facts(), written, value);
        return;
      }
      Source selected = keyColumnOwner(value, selectScope);
      if (selected == null || !sameGroup(selected, written)) {
        insert = new InsertWithoutKey(mapped, "writes its key column " + mapped.keyColumn()
            + " from " + value + ", which is neither a parameter, a literal nor the key of the rows it selects");
      }
    }

    /** Every sharded table the parser finds and the walk did not judge counts as unpinned. */
    void unjudgedTables(Statement statement) {
      new TablesNamesFinder<Void>() {
        @Override
        public <S> Void visit(Table table, S context) {
          if (!judged.contains(table)) {
            MappedTable mapped = model.table(lower(table.getUnquotedName()));
            if (mapped != null && mapped.sharded()) {
              String alias = table.getAlias() == null ? null : lower(unquote(table.getAlias().getName()));
              unpinned.add(new UnpinnedTable(mapped, lower(table.getUnquotedName()), alias));
            }
          }
          return super.visit(table, context);
        }
      }.getTables(statement);
    }
  }

  private static PlainSelect plainOf(Select select) {
    if (select instanceof PlainSelect plain) {
      return plain;
    }
    if (select instanceof ParenthesedSelect parenthesed && parenthesed.getSelect() instanceof PlainSelect plain) {
      return plain;
    }
    return null;
  }

  /** The column an expression is, perhaps cast or parenthesised; else null. */
  private static Column bareColumn(Expression expression) {
    Expression e = unwrap(expression);
    while (e instanceof CastExpression cast) {
      e = unwrap(cast.getLeftExpression());
    }
    return e instanceof Column column ? column : null;
  }

  /** The table name or alias a column is qualified with, in lower case; null when unqualified. */
  private static String qualifierOf(Column column) {
    Table qualifier = column.getTable();
    return qualifier == null || qualifier.getName() == null ? null : lower(qualifier.getUnquotedName());
  }

  /** The source whose key column the expression is, looked up innermost scope first; else null. */
  private static Source keyColumnOwner(Expression expression, Scope scope) {
    Column column = bareColumn(expression);
    if (column == null) {
      return null;
    }
    String name = lower(column.getUnquotedColumnName());
    String owner = qualifierOf(column);
    for (Scope level = scope; level != null; level = level.outer) {
      Source found = null;
      int matches = 0;
      for (Source source : level.sources) {
        boolean named = owner == null
            || owner.equals(source.alias) || source.alias == null && owner.equals(source.name);
        if (!named) {
          continue;
        }
        if (owner != null) {
          return source.sharded() && source.mapped.isKeyColumn(name) ? source : null;
        }
        if (source.sharded() && source.mapped.isKeyColumn(name)) {
          found = source;
          matches++;
        }
      }
      if (matches == 1) {
        return found;
      }
      if (matches > 1) {
        return null;
      }
    }
    return null;
  }

  /**
   * {@code {parent, child}} when {@code childColumn} is a child's co-location foreign key and
   * {@code parentColumn} the column of its parent that key refers to; else null.
   */
  private static Source[] foreignKeyJoin(Expression childColumn, Expression parentColumn, Scope scope) {
    Source child = columnSource(childColumn, scope, NativeSqlRule::isForeignKey);
    if (child == null) {
      return null;
    }
    Source parent = columnSource(parentColumn, scope, (source, column) -> isReferencedBy(source, column, child));
    return parent == null ? null : new Source[] {parent, child};
  }

  private static boolean isForeignKey(Source source, String column) {
    return source.sharded() && source.mapped.parent() != null
        && source.mapped.parent().foreignKeyColumns().contains(column);
  }

  private static boolean isReferencedBy(Source source, String column, Source child) {
    TableModel.ParentLink link = child.mapped.parent();
    return source != child && source.sharded() && source.mapped.entity() == link.parent()
        && link.referencedColumns().contains(column) && sameGroup(source, child);
  }

  /**
   * The source a column reference belongs to, provided {@code holds} says it has that column: a
   * qualified column the innermost source of that name or alias; an unqualified one the single
   * source of the innermost level that reads tables (what the model does not know of the other
   * tables' columns rules the rest out). Null otherwise.
   */
  private static Source columnSource(Expression expression, Scope scope,
      java.util.function.BiPredicate<Source, String> holds) {
    Column column = bareColumn(expression);
    if (column == null) {
      return null;
    }
    String name = lower(column.getUnquotedColumnName());
    String owner = qualifierOf(column);
    for (Scope level = scope; level != null; level = level.outer) {
      if (owner == null) {
        if (level.sources.isEmpty()) {
          continue;
        }
        Source only = level.sources.size() == 1 ? level.sources.get(0) : null;
        return only != null && only.mapped != null && holds.test(only, name) ? only : null;
      }
      for (Source source : level.sources) {
        if (owner.equals(source.alias) || source.alias == null && owner.equals(source.name)) {
          return source.mapped != null && holds.test(source, name) ? source : null;
        }
      }
    }
    return null;
  }

  private static boolean sameGroup(Source a, Source b) {
    Object group = a.mapped.entity().group();
    return group != null && group.equals(b.mapped.entity().group());
  }

  private static boolean allValues(ExpressionList<?> list) {
    for (Object value : list) {
      if (!isValue((Expression) value)) {
        return false;
      }
    }
    return true;
  }

  /** A parameter or a literal other than NULL, perhaps cast ({@code :id::uuid}). */
  private static boolean isValue(Expression expression) {
    Expression e = unwrap(expression);
    while (e instanceof CastExpression cast) {
      e = unwrap(cast.getLeftExpression());
    }
    if (e instanceof SignedExpression signed) {
      e = signed.getExpression();
    }
    return e instanceof JdbcParameter || e instanceof JdbcNamedParameter || e instanceof LongValue
        || e instanceof StringValue || e instanceof DoubleValue || e instanceof HexValue
        || e instanceof DateValue || e instanceof TimestampValue;
  }

  private static Object literal(Expression e) {
    if (e instanceof SignedExpression signed && signed.getExpression() instanceof LongValue value
        && signed.getSign() == '-') {
      return -value.getValue();
    }
    if (e instanceof LongValue value) {
      return value.getValue();
    }
    if (e instanceof StringValue value) {
      return value.getValue();
    }
    return e.toString();
  }

  private static Expression unwrap(Expression expression) {
    Expression e = expression;
    while (e instanceof ParenthesedExpressionList<?> list && list.size() == 1) {
      e = (Expression) list.get(0);
    }
    return e;
  }

  private static String unquote(String name) {
    if (name != null && name.length() > 1 && name.charAt(0) == '"' && name.endsWith("\"")) {
      return name.substring(1, name.length() - 1);
    }
    return name;
  }

  private static String lower(String name) {
    return name == null ? null : unquote(name).toLowerCase(Locale.ROOT);
  }

  private static <T> Set<T> identitySet() {
    return Collections.newSetFromMap(new IdentityHashMap<>());
  }
}
