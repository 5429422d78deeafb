package io.shardwise.queryrules;

import static io.shardwise.queryrules.QuerySources.alias;
import static io.shardwise.queryrules.QuerySources.identitySet;
import static io.shardwise.queryrules.QuerySources.isValue;
import static io.shardwise.queryrules.QuerySources.keyValueOf;
import static io.shardwise.queryrules.QuerySources.names;
import static io.shardwise.queryrules.QuerySources.pinsIn;
import static io.shardwise.queryrules.QuerySources.refOf;
import static io.shardwise.queryrules.QuerySources.sameGroup;
import static io.shardwise.queryrules.QuerySources.selectedRef;
import static io.shardwise.queryrules.QuerySources.target;
import static io.shardwise.queryrules.QuerySources.unaliasedOwner;
import static io.shardwise.queryrules.QuerySources.unwrap;

import io.shardwise.queryrules.QueryModel.Entity;
import io.shardwise.queryrules.QuerySources.Facts;
import io.shardwise.queryrules.QuerySources.Ref;
import io.shardwise.queryrules.QuerySources.Scope;
import io.shardwise.queryrules.QuerySources.Source;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.DefaultErrorStrategy;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.misc.ParseCancellationException;
import org.antlr.v4.runtime.tree.ParseTree;
import org.hibernate.grammars.hql.HqlLexer;
import org.hibernate.grammars.hql.HqlParser;
import org.hibernate.grammars.hql.HqlParser.AndPredicateContext;
import org.hibernate.grammars.hql.HqlParser.BarePrimaryExpressionContext;
import org.hibernate.grammars.hql.HqlParser.BinaryExpressionPredicateContext;
import org.hibernate.grammars.hql.HqlParser.CrossJoinContext;
import org.hibernate.grammars.hql.HqlParser.CteContext;
import org.hibernate.grammars.hql.HqlParser.DeleteStatementContext;
import org.hibernate.grammars.hql.HqlParser.EntityWithJoinsContext;
import org.hibernate.grammars.hql.HqlParser.ExistsPredicateContext;
import org.hibernate.grammars.hql.HqlParser.ExpressionContext;
import org.hibernate.grammars.hql.HqlParser.GroupedPredicateContext;
import org.hibernate.grammars.hql.HqlParser.IdentifierContext;
import org.hibernate.grammars.hql.HqlParser.InPredicateContext;
import org.hibernate.grammars.hql.HqlParser.InsertStatementContext;
import org.hibernate.grammars.hql.HqlParser.JoinContext;
import org.hibernate.grammars.hql.HqlParser.JoinPathContext;
import org.hibernate.grammars.hql.HqlParser.JoinTypeContext;
import org.hibernate.grammars.hql.HqlParser.JpaCollectionJoinContext;
import org.hibernate.grammars.hql.HqlParser.NamedParameterContext;
import org.hibernate.grammars.hql.HqlParser.OrPredicateContext;
import org.hibernate.grammars.hql.HqlParser.ParameterExpressionContext;
import org.hibernate.grammars.hql.HqlParser.PathContext;
import org.hibernate.grammars.hql.HqlParser.PredicateContext;
import org.hibernate.grammars.hql.HqlParser.PrimaryExpressionContext;
import org.hibernate.grammars.hql.HqlParser.QueryContext;
import org.hibernate.grammars.hql.HqlParser.QuerySpecExpressionContext;
import org.hibernate.grammars.hql.HqlParser.RootEntityContext;
import org.hibernate.grammars.hql.HqlParser.SimplePathContext;
import org.hibernate.grammars.hql.HqlParser.SubqueryContext;
import org.hibernate.grammars.hql.HqlParser.SubqueryExpressionContext;
import org.hibernate.grammars.hql.HqlParser.SubqueryInListContext;
import org.hibernate.grammars.hql.HqlParser.UpdateStatementContext;
import org.hibernate.grammars.hql.HqlParser.ValuesContext;
import org.hibernate.grammars.hql.HqlParser.WhereClauseContext;

/**
 * The shard-key rule for one JPQL/HQL string, on Hibernate's own grammar: every sharded entity in
 * a FROM or JOIN (of the statement and of each subquery) must have its shard key pinned, that is
 * compared with {@code =} or {@code IN} to parameters or literals on every branch of the WHERE
 * clause. {@code AND} pins what either side pins; {@code OR} pins what both sides pin. An equality
 * between the shard keys of two entities carries a pin from one to the other, as does a join along
 * an association inside one co-location group (the model checks make such an association stay on
 * one shard). A path through such associations stands for its source's key ({@code a.user.realm.id},
 * or {@code a.realm} compared as a whole when the realm's id is its key), and an equality of one
 * entity reached from two sources ({@code o.id = d.organization.id}) carries a pin like an equality
 * of keys. A subquery sees the pins of the query around it; it lends its own pins back through
 * {@code x IN (select u ...)} and {@code EXISTS}, judged without the pins of the query it sits in.
 * An {@code insert} into a sharded entity must write its key ({@link InsertWithoutKey}).
 *
 * <p>Shared by the annotation processor (on string constants and annotations at build time) and
 * by the runtime guard (on HQL built at run time), each with its own {@link QueryModel}.
 * Stateless apart from the model, so one instance serves every thread.
 *
 * <p>This class owns the rule: parsing, the walk over a statement's queries and predicates, what
 * pins what, and the answers ({@link Unpinned}, {@link Analysis}, {@link InsertWithoutKey}). The
 * sources and scopes it walks over, and the resolution of an expression to a source's shard key,
 * are {@link QuerySources}.
 */
public final class ShardKeyRule {

  /** A sharded entity of the query whose shard key nothing pins. */
  public record Unpinned(Entity entity, String alias, Unpinned otherGroup) {

    public Unpinned(Entity entity, String alias) {
      this(entity, alias, null);
    }

    /** {@code PurchaseOrder o}, or the bare simple name when the query gives no alias. */
    public String describe() {
      return alias == null ? entity.simpleName() : entity.simpleName() + " " + alias;
    }

    /**
     * Whether the same FROM clause also reads a sharded entity of another co-location group
     * ({@link #otherGroup()}): such rows may live on different shards, so scatter-gather cannot
     * run the query either.
     */
    public boolean crossesGroups() {
      return otherGroup != null;
    }
  }

  /**
   * What one parse of a query says: its unpinned entities, the entity names the model does not
   * know, whether a top-level query lacked a FROM clause with no entity to stand in for it, and the
   * parameter that carries the shard key of the first FROM entity (see {@link #keyParameter}).
   *
   * @param unpinned sharded entities whose shard key nothing pins, in the order they appear
   * @param unresolved names in a FROM or JOIN that are neither an entity of the model nor the name
   *     of a common table expression of the query, each once, in the order they appear
   * @param rootMissing whether a top-level query has no FROM clause and no implicit root was given
   *     (Jakarta Data's {@code where ...} queries take their entity from the repository)
   * @param keyParameter as {@link #keyParameter(String)} returns it, or null
   * @param insertWithoutKey an {@code insert} into a sharded entity that does not write its shard
   *     key from a value or from the selected rows' key, or null
   */
  public record Analysis(
      List<Unpinned> unpinned, List<String> unresolved, boolean rootMissing, String keyParameter,
      InsertWithoutKey insertWithoutKey) {

    public Analysis {
      unpinned = List.copyOf(unpinned);
      unresolved = List.copyOf(unresolved);
    }
  }

  /**
   * An {@code insert} into a sharded entity whose shard key it does not write, or writes from
   * something other than a parameter, a literal or a shard key of the selected rows: the rows
   * would get a null or unrelated key, and live on a shard their key does not route to.
   *
   * @param entity the inserted entity
   * @param problem what the statement does with the key, for messages ("does not list merchantId
   *     among the columns it writes")
   */
  public record InsertWithoutKey(Entity entity, String problem) {}

  private final QueryModel model;

  public ShardKeyRule(QueryModel model) {
    this.model = model;
  }

  /**
   * The unpinned entities of a query, in the order they appear; null when the query does not
   * parse (hibernate-processor, or Hibernate at startup, reports that; reporting it twice would
   * only add noise). Names the model does not know are skipped.
   */
  public List<Unpinned> check(String hql) {
    Analysis analysis = analyze(hql, null);
    return analysis == null ? null : analysis.unpinned();
  }

  /**
   * The named parameter that carries the shard key of the statement's first FROM entity, when the
   * top-level WHERE clause (through AND only) compares that key with {@code =} to
   * {@code :parameter}; null when there is no such parameter, the entity is not sharded, or the
   * query does not parse.
   */
  public String keyParameter(String hql) {
    Analysis analysis = analyze(hql, null);
    return analysis == null ? null : analysis.keyParameter();
  }

  /**
   * Everything the rule says about a query, from one parse; null when the query does not parse.
   *
   * @param implicitRoot the entity a top-level query without FROM clause reads (the primary entity
   *     of a Jakarta Data repository, say), or null when there is none; a query with a FROM clause
   *     ignores it
   */
  public Analysis analyze(String hql, Entity implicitRoot) {
    Parsed parsed = parsed(hql);
    return parsed == null ? null : analyze(parsed, implicitRoot);
  }

  /**
   * A query parsed once, to be judged by several rules, each with its own model: the shard-key
   * advisor judges every query under each candidate root this way. Immutable once built.
   */
  public static final class Parsed {
    private final ParseTree statement;

    private Parsed(ParseTree statement) {
      this.statement = statement;
    }
  }

  /** Parses a query for {@link #analyze(Parsed, Entity)}; null when it does not parse. */
  public static Parsed parsed(String hql) {
    ParseTree statement = parse(hql);
    return statement == null ? null : new Parsed(statement);
  }

  /** As {@link #analyze(String, Entity)}, on a query parsed before. */
  public Analysis analyze(Parsed parsed, Entity implicitRoot) {
    ParseTree statement = parsed.statement;
    Walk walk = new Walk(implicitRoot);
    walk.node(statement, null);
    String keyParameter = new Walk(implicitRoot).keyParameter(statement);
    return new Analysis(walk.unpinned, new ArrayList<>(walk.unresolved), walk.rootMissing,
        keyParameter, walk.insertWithoutKey);
  }

  private static String parameterFor(PredicateContext predicate, Source root, Scope scope) {
    if (predicate instanceof GroupedPredicateContext) {
      return parameterFor(((GroupedPredicateContext) predicate).predicate(), root, scope);
    }
    if (predicate instanceof AndPredicateContext) {
      AndPredicateContext and = (AndPredicateContext) predicate;
      String left = parameterFor(and.predicate(0), root, scope);
      return left != null ? left : parameterFor(and.predicate(1), root, scope);
    }
    if (predicate instanceof BinaryExpressionPredicateContext) {
      BinaryExpressionPredicateContext binary = (BinaryExpressionPredicateContext) predicate;
      if (binary.EQUAL() != null && binary.NOT() == null && binary.expression().size() == 2) {
        ExpressionContext left = binary.expression(0);
        ExpressionContext right = binary.expression(1);
        if (keyValueOf(left, scope) == root && namedParameter(right) != null) {
          return namedParameter(right);
        }
        if (keyValueOf(right, scope) == root && namedParameter(left) != null) {
          return namedParameter(left);
        }
      }
    }
    return null;
  }

  private static String namedParameter(ExpressionContext expression) {
    ExpressionContext e = unwrap(expression);
    if (e instanceof BarePrimaryExpressionContext) {
      PrimaryExpressionContext primary = ((BarePrimaryExpressionContext) e).primaryExpression();
      if (primary instanceof ParameterExpressionContext
          && ((ParameterExpressionContext) primary).parameter() instanceof NamedParameterContext) {
        return ((NamedParameterContext) ((ParameterExpressionContext) primary).parameter())
            .identifier().getText();
      }
    }
    return null;
  }

  /**
   * The parse tree of a statement, or null when it does not parse. Two stages, as Hibernate parses:
   * SLL prediction first, which is fast and gives the same tree as full LL whenever it succeeds;
   * full LL only for the rare statement SLL cannot decide (or that does not parse at all).
   */
  private static ParseTree parse(String hql) {
    SyntaxErrors lexerErrors = new SyntaxErrors();
    HqlLexer lexer = new HqlLexer(CharStreams.fromString(hql));
    lexer.removeErrorListeners();
    lexer.addErrorListener(lexerErrors);
    CommonTokenStream tokens = new CommonTokenStream(lexer);
    HqlParser parser = new HqlParser(tokens);
    parser.removeErrorListeners();
    parser.setErrorHandler(new BailErrorStrategy());
    parser.getInterpreter().setPredictionMode(PredictionMode.SLL);
    ParseTree statement;
    try {
      statement = parser.statement();
    } catch (ParseCancellationException needsFullContext) {
      parser.reset();
      parser.setErrorHandler(new DefaultErrorStrategy());
      parser.getInterpreter().setPredictionMode(PredictionMode.LL);
      SyntaxErrors parserErrors = new SyntaxErrors();
      parser.addErrorListener(parserErrors);
      try {
        statement = parser.statement();
      } catch (RuntimeException e) {
        return null;
      }
      if (parserErrors.count > 0) {
        return null;
      }
    }
    return lexerErrors.count > 0 ? null : statement;
  }

  private static final class SyntaxErrors extends BaseErrorListener {
    int count;

    @Override
    public void syntaxError(
        Recognizer<?, ?> recognizer, Object symbol, int line, int column, String message,
        RecognitionException e) {
      count++;
    }
  }

  /**
   * One pass over one parse tree: the scopes of its queries, the names it could not resolve and
   * the sources left unpinned. Holds the state of one call, so the rule itself stays stateless.
   */
  private final class Walk {
    final Entity implicitRoot;
    final List<Unpinned> unpinned = new ArrayList<>();
    final Set<String> unresolved = new LinkedHashSet<>();
    final Set<String> cteNames = new HashSet<>();
    boolean rootMissing;
    InsertWithoutKey insertWithoutKey;

    Walk(Entity implicitRoot) {
      this.implicitRoot = implicitRoot;
    }

    void node(ParseTree node, Scope outer) {
      if (node instanceof CteContext) {
        // A common table expression is named before it is used; its body is a query of its own.
        cteNames.add(((CteContext) node).identifier().getText());
        children(node, outer);
      } else if (node instanceof QueryContext) {
        QueryContext query = (QueryContext) node;
        Scope scope = new Scope(outer);
        if (query.fromClause() != null) {
          for (EntityWithJoinsContext from : query.fromClause().entityWithJoins()) {
            addSources(from, scope);
          }
        } else if (outer == null) {
          addImplicitRoot(scope);
        }
        settle(scope, query.whereClause());
        children(node, scope);
      } else if (node instanceof UpdateStatementContext) {
        UpdateStatementContext update = (UpdateStatementContext) node;
        Scope scope = new Scope(outer);
        addSources(update.entityWithJoins(), scope);
        settle(scope, update.whereClause());
        children(node, scope);
      } else if (node instanceof InsertStatementContext) {
        insertWithoutKey = insertWithoutKey((InsertStatementContext) node, outer);
        children(node, outer);
      } else if (node instanceof DeleteStatementContext) {
        DeleteStatementContext delete = (DeleteStatementContext) node;
        Scope scope = new Scope(outer);
        addSources(delete.entityWithJoins(), scope);
        settle(scope, delete.whereClause());
        children(node, scope);
      } else {
        children(node, outer);
      }
    }

    /**
     * Whether an insert writes its sharded target's key: the key attribute is among the columns
     * it writes, and each row's value for it is a parameter, a literal or a shard key of the rows
     * the insert's query selects.
     */
    private InsertWithoutKey insertWithoutKey(InsertStatementContext insert, Scope outer) {
      Entity target = insert.targetEntity() == null ? null
          : entityNamed(insert.targetEntity().entityName().getText());
      if (target == null || target.shardKey() == null) {
        return null;
      }
      String key = target.shardKey();
      int column = -1;
      if (insert.targetFields() != null) {
        List<SimplePathContext> fields = insert.targetFields().simplePath();
        for (int i = 0; i < fields.size(); i++) {
          if (String.join(".", names(fields.get(i))).equals(key)) {
            column = i;
          }
        }
      }
      if (column < 0) {
        return new InsertWithoutKey(target, "does not list " + key + " among the attributes it writes");
      }
      String unkeyed = "writes " + key + " from an expression that is neither a parameter, a literal"
          + " nor the shard key of the rows it selects";
      if (insert.valuesList() != null) {
        for (ValuesContext row : insert.valuesList().values()) {
          if (row.expressionOrPredicate().size() <= column
              || row.expressionOrPredicate(column).expression() == null
              || !isValue(row.expressionOrPredicate(column).expression())) {
            return new InsertWithoutKey(target, unkeyed);
          }
        }
        return null;
      }
      if (insert.queryExpression() == null) {
        return new InsertWithoutKey(target, unkeyed);
      }
      for (var branch : insert.queryExpression().orderedQuery()) {
        QueryContext query = branch instanceof QuerySpecExpressionContext
            ? ((QuerySpecExpressionContext) branch).query() : null;
        if (query == null || query.selectClause() == null || query.fromClause() == null
            || query.selectClause().selectionList().selection().size() <= column) {
          return new InsertWithoutKey(target, unkeyed);
        }
        Scope scope = new Scope(outer);
        for (EntityWithJoinsContext from : query.fromClause().entityWithJoins()) {
          addSources(from, scope);
        }
        var item = query.selectClause().selectionList().selection(column).selectExpression();
        ExpressionContext value = item.expressionOrPredicate() == null ? null
            : item.expressionOrPredicate().expression();
        Ref ref = value == null ? null : refOf(value, scope);
        if (value == null || !isValue(value) && (ref == null || !ref.key())) {
          return new InsertWithoutKey(target, unkeyed);
        }
      }
      return null;
    }

    private void children(ParseTree node, Scope scope) {
      for (int i = 0; i < node.getChildCount(); i++) {
        node(node.getChild(i), scope);
      }
    }

    /** A top-level query without FROM reads the entity its context gives (JDQL), if any. */
    private void addImplicitRoot(Scope scope) {
      if (implicitRoot != null) {
        scope.sources.add(new Source(null, implicitRoot, null, null, null));
      } else {
        rootMissing = true;
      }
    }

    /** The shard-key parameter of the first FROM entity of the statement; see keyParameter. */
    String keyParameter(ParseTree statement) {
      ParseTree top = firstStatement(statement);
      Scope scope = new Scope(null);
      WhereClauseContext where;
      if (top instanceof QueryContext) {
        QueryContext query = (QueryContext) top;
        if (query.fromClause() == null) {
          addImplicitRoot(scope);
        } else if (!query.fromClause().entityWithJoins().isEmpty()) {
          addSources(query.fromClause().entityWithJoins(0), scope);
        }
        where = query.whereClause();
      } else if (top instanceof UpdateStatementContext) {
        addSources(((UpdateStatementContext) top).entityWithJoins(), scope);
        where = ((UpdateStatementContext) top).whereClause();
      } else if (top instanceof DeleteStatementContext) {
        addSources(((DeleteStatementContext) top).entityWithJoins(), scope);
        where = ((DeleteStatementContext) top).whereClause();
      } else {
        return null;
      }
      if (where == null || scope.sources.isEmpty() || !scope.sources.get(0).sharded()) {
        return null;
      }
      return parameterFor(where.predicate(), scope.sources.get(0), scope);
    }

    /** The main statement's first query, past any common table expressions. */
    private ParseTree firstStatement(ParseTree node) {
      if (node instanceof QueryContext || node instanceof UpdateStatementContext
          || node instanceof DeleteStatementContext) {
        return node;
      }
      if (node instanceof CteContext) {
        return null;
      }
      for (int i = 0; i < node.getChildCount(); i++) {
        ParseTree found = firstStatement(node.getChild(i));
        if (found != null) {
          return found;
        }
      }
      return null;
    }

    /** The entity a FROM or JOIN names, recording a name that is neither entity nor CTE. */
    private Entity entityNamed(String name) {
      Entity entity = model.entity(name);
      if (entity == null && !cteNames.contains(name)) {
        unresolved.add(name);
      }
      return entity;
    }

    private void addSources(EntityWithJoinsContext from, Scope scope) {
      if (from == null) {
        return;
      }
      if (from.fromRoot() instanceof RootEntityContext) {
        RootEntityContext root = (RootEntityContext) from.fromRoot();
        scope.sources.add(rootSource(root, scope));
      }
      for (ParseTree child : from.children) {
        if (child instanceof JoinContext) {
          JoinContext join = (JoinContext) child;
          if (join.joinTarget() instanceof JoinPathContext) {
            JoinPathContext target = (JoinPathContext) join.joinTarget();
            PredicateContext on =
                join.joinRestriction() == null ? null : join.joinRestriction().predicate();
            scope.sources.add(
                joined(target.path(), alias(target.variable()), join.joinType(), on, scope));
          }
        } else if (child instanceof CrossJoinContext) {
          CrossJoinContext cross = (CrossJoinContext) child;
          scope.sources.add(new Source(alias(cross.variable()),
              entityNamed(cross.entityName().getText()), null, null, null));
        } else if (child instanceof JpaCollectionJoinContext) {
          JpaCollectionJoinContext in = (JpaCollectionJoinContext) child;
          scope.sources.add(joined(in.path(), alias(in.variable()), null, null, scope));
        }
      }
    }

    /**
     * A root of a FROM clause: an entity by name, or a path from an alias in scope
     * ({@code exists (select c from p.config c ...)}, a correlated collection), which is a join
     * from that alias rather than an entity name.
     */
    private Source rootSource(RootEntityContext root, Scope scope) {
      String name = root.entityName().getText();
      String alias = alias(root.variable());
      List<IdentifierContext> parts = root.entityName().identifier();
      Source parent = parts.size() > 1 ? scope.byAlias(parts.get(0).getText()) : null;
      if (parent != null && model.entity(name) == null) {
        List<String> hops = new ArrayList<>();
        for (IdentifierContext part : parts.subList(1, parts.size())) {
          hops.add(part.getText());
        }
        return new Source(alias, target(parent, hops), parent, null, null);
      }
      return new Source(alias, entityNamed(name), null, null, null);
    }

    /**
     * A join to {@code alias.association}, to an association of an unaliased root
     * ({@code from PurchaseOrder join items i}), or to an entity by name.
     */
    private Source joined(PathContext path, String alias, JoinTypeContext type,
        PredicateContext on, Scope scope) {
      List<String> parts = path.generalPathFragment() != null
          ? names(path.generalPathFragment())
          : path.syntacticDomainPath() != null && path.syntacticDomainPath().simplePath() != null
              ? names(path.syntacticDomainPath().simplePath())
              : null;
      if (parts == null || parts.isEmpty()) {
        return new Source(alias, null, null, type, on);
      }
      Source parent = scope.byAlias(parts.get(0));
      if (parent == null) {
        Source owner = parts.size() == 1 ? unaliasedOwner(parts.get(0), scope) : null;
        if (owner != null) {
          return new Source(alias, owner.entity.associationTarget(parts.get(0)), owner, type, on);
        }
        return new Source(alias, entityNamed(String.join(".", parts)), null, type, on);
      }
      return new Source(alias, target(parent, parts.subList(1, parts.size())), parent, type, on);
    }

    /** Pins the sources of a scope and reports the sharded ones left unpinned. */
    private void settle(Scope scope, WhereClauseContext where) {
      Set<Source> pinned = pinnedIn(scope, where);
      for (Source source : scope.sources) {
        if (pinned.contains(source)) {
          scope.pinned.add(source);
        } else if (source.sharded()) {
          unpinned.add(new Unpinned(source.entity, source.alias, otherGroup(source, scope)));
        }
      }
    }

    /**
     * The sources whose key the scope's WHERE clause, inner-join ON clauses and joins pin, with
     * the pinned sources of the outer scopes and any source an equality reaches from them.
     */
    private Set<Source> pinnedIn(Scope scope, WhereClauseContext where) {
      Facts facts = where == null ? new Facts() : facts(where.predicate(), scope);
      for (Source source : scope.sources) {
        if (source.on != null && !source.outerJoin) {
          facts = Facts.and(facts, facts(source.on, scope));
        }
      }
      Set<Source> outerPinned = scope.outer == null ? identitySet() : scope.outer.allPinned();
      Set<Source> pinned = facts.closure(outerPinned);
      boolean grew = true;
      while (grew) {
        grew = false;
        for (Source source : scope.sources) {
          if (pinned.contains(source)) {
            continue;
          }
          if (pinnedThroughJoin(source, pinned, scope)) {
            pinned.add(source);
            pinned = facts.closure(pinned);
            grew = true;
          }
        }
        for (Source source : scope.sources) {
          Source parent = source.parent;
          if (parent != null && !pinned.contains(parent) && pinned.contains(source)
              && !source.outerJoin && sameGroup(parent, source)) {
            pinned.add(parent);
            pinned = facts.closure(pinned);
            grew = true;
          }
        }
      }
      return pinned;
    }

    /**
     * A subquery's own sources and what it pins, judged without the pins of the scope it sits in
     * (that scope is being settled), so that a pin it lends back to that scope comes from the
     * subquery's own values and never from the scope itself. Null for a set operation (union ...).
     */
    private Subquery subquery(SubqueryContext subquery, Scope scope) {
      if (subquery == null || subquery.queryExpression().orderedQuery().size() != 1
          || !(subquery.queryExpression().orderedQuery(0) instanceof QuerySpecExpressionContext)) {
        return null;
      }
      QueryContext query =
          ((QuerySpecExpressionContext) subquery.queryExpression().orderedQuery(0)).query();
      if (query == null || query.fromClause() == null) {
        return null;
      }
      Scope inner = new Scope(scope);
      for (EntityWithJoinsContext from : query.fromClause().entityWithJoins()) {
        addSources(from, inner);
      }
      return new Subquery(query, inner, pinnedIn(inner, query.whereClause()));
    }

    private Facts facts(PredicateContext predicate, Scope scope) {
      if (predicate instanceof GroupedPredicateContext) {
        return facts(((GroupedPredicateContext) predicate).predicate(), scope);
      }
      if (predicate instanceof AndPredicateContext) {
        AndPredicateContext and = (AndPredicateContext) predicate;
        return Facts.and(facts(and.predicate(0), scope), facts(and.predicate(1), scope));
      }
      if (predicate instanceof OrPredicateContext) {
        OrPredicateContext or = (OrPredicateContext) predicate;
        Set<Source> known = scope.outer == null ? identitySet() : scope.outer.allPinned();
        return Facts.or(facts(or.predicate(0), scope), facts(or.predicate(1), scope), known);
      }
      Facts facts = new Facts();
      if (predicate instanceof BinaryExpressionPredicateContext) {
        BinaryExpressionPredicateContext binary = (BinaryExpressionPredicateContext) predicate;
        if (binary.EQUAL() != null && binary.NOT() == null && binary.expression().size() == 2) {
          ExpressionContext left = binary.expression(0);
          ExpressionContext right = binary.expression(1);
          Ref leftRef = refOf(left, scope);
          Ref rightRef = refOf(right, scope);
          if (leftRef != null && rightRef != null) {
            if (leftRef.sameShardAs(rightRef) && leftRef.source() != rightRef.source()) {
              facts.equal.add(new Source[] {leftRef.source(), rightRef.source()});
            }
          } else if (leftRef != null && leftRef.key() && isValue(right)) {
            facts.pinned.add(leftRef.source());
          } else if (rightRef != null && rightRef.key() && isValue(left)) {
            facts.pinned.add(rightRef.source());
          }
        }
      } else if (predicate instanceof InPredicateContext) {
        InPredicateContext in = (InPredicateContext) predicate;
        Ref ref = in.NOT() == null ? refOf(in.expression(), scope) : null;
        if (ref != null && (ref.key() && pinsIn(in) || pinsThroughSubquery(ref, in, scope))) {
          facts.pinned.add(ref.source());
        }
      } else if (predicate instanceof ExistsPredicateContext) {
        ExpressionContext body = unwrap(((ExistsPredicateContext) predicate).expression());
        Subquery exists = body instanceof SubqueryExpressionContext
            ? subquery(((SubqueryExpressionContext) body).subquery(), scope) : null;
        if (exists != null) {
          // rows exist only where the subquery's equalities hold, so its pins reach this scope
          for (Source source : scope.sources) {
            if (exists.pinned.contains(source)) {
              facts.pinned.add(source);
            }
          }
        }
      }
      return facts;
    }

    /**
     * {@code x.user in (select u from User u where u.tenantId = :t)}: the subquery selects entities
     * (or keys) it pins, and the left side shares its shard with the one it equals.
     */
    private boolean pinsThroughSubquery(Ref ref, InPredicateContext in, Scope scope) {
      if (!(in.inList() instanceof SubqueryInListContext)) {
        return false;
      }
      Subquery sub = subquery(((SubqueryInListContext) in.inList()).subquery(), scope);
      if (sub == null) {
        return false;
      }
      Ref selected = selectedRef(sub.query.selectClause(), sub.scope);
      return selected != null && sub.pinned.contains(selected.source()) && ref.sameShardAs(selected);
    }

    private boolean pinnedThroughJoin(Source source, Set<Source> pinned, Scope scope) {
      if (source.parent != null && source.preservesParent && pinned.contains(source.parent)
          && sameGroup(source.parent, source)) {
        return true;
      }
      if (source.on != null && source.outerJoin && source.preservesParent) {
        return facts(source.on, scope).closure(pinned).contains(source);
      }
      return false;
    }
  }

  /** A subquery judged on its own: its query, its scope and the sources its clauses pin. */
  private record Subquery(QueryContext query, Scope scope, Set<Source> pinned) {}

  /** The first sharded source of the scope outside the source's co-location group, as found. */
  private static Unpinned otherGroup(Source source, Scope scope) {
    for (Source other : scope.sources) {
      if (other != source && other.sharded() && !sameGroup(source, other)) {
        return new Unpinned(other.entity, other.alias);
      }
    }
    return null;
  }

}
