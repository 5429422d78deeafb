package io.shardwise.queryrules;

import io.shardwise.queryrules.QueryModel.Entity;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.hibernate.grammars.hql.HqlParser.BarePrimaryExpressionContext;
import org.hibernate.grammars.hql.HqlParser.ExplicitTupleInListContext;
import org.hibernate.grammars.hql.HqlParser.ExpressionContext;
import org.hibernate.grammars.hql.HqlParser.ExpressionOrPredicateContext;
import org.hibernate.grammars.hql.HqlParser.GeneralPathExpressionContext;
import org.hibernate.grammars.hql.HqlParser.GeneralPathFragmentContext;
import org.hibernate.grammars.hql.HqlParser.GroupedExpressionContext;
import org.hibernate.grammars.hql.HqlParser.InPredicateContext;
import org.hibernate.grammars.hql.HqlParser.JoinTypeContext;
import org.hibernate.grammars.hql.HqlParser.LiteralExpressionContext;
import org.hibernate.grammars.hql.HqlParser.ParamInListContext;
import org.hibernate.grammars.hql.HqlParser.ParameterExpressionContext;
import org.hibernate.grammars.hql.HqlParser.PredicateContext;
import org.hibernate.grammars.hql.HqlParser.PrimaryExpressionContext;
import org.hibernate.grammars.hql.HqlParser.SelectClauseContext;
import org.hibernate.grammars.hql.HqlParser.SimplePathContext;
import org.hibernate.grammars.hql.HqlParser.SimplePathElementContext;
import org.hibernate.grammars.hql.HqlParser.UnaryNumericLiteralExpressionContext;
import org.hibernate.grammars.hql.HqlParser.VariableContext;

/**
 * What {@link ShardKeyRule} reasons about, apart from the rule itself: the sources of a query (each
 * entity of a FROM or JOIN), the scopes that hold them (a subquery's scope sees the ones around
 * it), the {@link Facts} a predicate establishes about their shard keys, and the resolution of an
 * expression or a path to a source's shard key or to an entity of its co-location group
 * ({@link Ref}), with the small readings of the parse tree that resolution needs. Nothing here
 * decides whether a query is pinned: that is the rule's walk.
 */
final class QuerySources {

  private QuerySources() {}

  /** An entity in a FROM or JOIN. */
  static final class Source {
    final String alias;
    final Entity entity;
    final Source parent;
    final boolean outerJoin;
    final boolean preservesParent;
    final PredicateContext on;

    Source(String alias, Entity entity, Source parent, JoinTypeContext joinType,
        PredicateContext on) {
      this.alias = alias;
      this.entity = entity;
      this.parent = parent;
      this.outerJoin = joinType != null
          && (joinType.LEFT() != null || joinType.RIGHT() != null || joinType.FULL() != null
              || joinType.OUTER() != null);
      this.preservesParent = joinType == null || joinType.RIGHT() == null && joinType.FULL() == null;
      this.on = on;
    }

    boolean sharded() {
      return entity != null && entity.shardKey() != null;
    }
  }

  /** A query's sources and the ones pinned so far; nested scopes see their outer scopes. */
  static final class Scope {
    final Scope outer;
    final List<Source> sources = new ArrayList<>();
    final Set<Source> pinned = identitySet();

    Scope(Scope outer) {
      this.outer = outer;
    }

    Source byAlias(String alias) {
      for (Scope scope = this; scope != null; scope = scope.outer) {
        for (Source source : scope.sources) {
          if (source.alias != null && source.alias.equalsIgnoreCase(alias)) {
            return source;
          }
        }
      }
      return null;
    }

    Set<Source> allPinned() {
      Set<Source> all = identitySet();
      for (Scope scope = this; scope != null; scope = scope.outer) {
        all.addAll(scope.pinned);
      }
      return all;
    }
  }

  /** What a predicate guarantees: pinned sources, and equalities between shard keys. */
  static final class Facts {
    final Set<Source> pinned = identitySet();
    final List<Source[]> equal = new ArrayList<>();

    static Facts and(Facts a, Facts b) {
      Facts result = new Facts();
      result.pinned.addAll(a.pinned);
      result.pinned.addAll(b.pinned);
      result.equal.addAll(a.equal);
      result.equal.addAll(b.equal);
      return result;
    }

    static Facts or(Facts a, Facts b, Set<Source> known) {
      Set<Source> left = a.closure(known);
      Set<Source> right = b.closure(known);
      Facts result = new Facts();
      for (Source source : left) {
        if (right.contains(source)) {
          result.pinned.add(source);
        }
      }
      for (Source[] pair : a.equal) {
        for (Source[] other : b.equal) {
          if (samePair(pair, other)) {
            result.equal.add(pair);
          }
        }
      }
      return result;
    }

    /** The sources pinned by these facts together with those already known to be pinned. */
    Set<Source> closure(Set<Source> known) {
      Set<Source> result = identitySet();
      result.addAll(known);
      result.addAll(pinned);
      boolean grew = true;
      while (grew) {
        grew = false;
        for (Source[] pair : equal) {
          if (result.contains(pair[0]) && result.add(pair[1])
              || result.contains(pair[1]) && result.add(pair[0])) {
            grew = true;
          }
        }
      }
      return result;
    }

    static boolean samePair(Source[] a, Source[] b) {
      return a[0] == b[0] && a[1] == b[1] || a[0] == b[1] && a[1] == b[0];
    }
  }

  /** The one item a subquery selects, as a reference; null for several items or anything else. */
  static Ref selectedRef(SelectClauseContext select, Scope scope) {
    if (select == null || select.selectionList().selection().size() != 1) {
      return null;
    }
    var item = select.selectionList().selection(0).selectExpression();
    if (item.expressionOrPredicate() == null || item.expressionOrPredicate().expression() == null) {
      return null;
    }
    return refOf(item.expressionOrPredicate().expression(), scope);
  }

  /** The entity a path of associations leads to from a source; null where a hop is none. */
  static Entity target(Source from, List<String> hops) {
    Entity current = from.entity;
    for (String hop : hops) {
      if (current == null) {
        return null;
      }
      current = current.associationTarget(hop);
    }
    return current;
  }

  /** The source without alias whose entity has this attribute, if exactly one has it. */
  static Source unaliasedOwner(String attribute, Scope scope) {
    Source found = null;
    for (Source source : scope.sources) {
      if (source.alias == null && source.entity != null && source.entity.hasAttribute(attribute)) {
        if (found != null) {
          return null;
        }
        found = source;
      }
    }
    return found;
  }

  static boolean sameGroup(Source a, Source b) {
    if (!a.sharded() || !b.sharded()) {
      return false;
    }
    Object group = a.entity.group();
    return group != null && group.equals(b.entity.group());
  }

  static boolean pinsIn(InPredicateContext in) {
    if (in.inList() instanceof ParamInListContext) {
      return true;
    }
    if (in.inList() instanceof ExplicitTupleInListContext) {
      List<ExpressionOrPredicateContext> items =
          ((ExplicitTupleInListContext) in.inList()).expressionOrPredicate();
      for (ExpressionOrPredicateContext item : items) {
        if (item.expression() == null || !isValue(item.expression())) {
          return false;
        }
      }
      return !items.isEmpty();
    }
    return false;
  }

  /** A parameter, or a literal other than null. */
  static boolean isValue(ExpressionContext expression) {
    ExpressionContext e = unwrap(expression);
    if (e instanceof UnaryNumericLiteralExpressionContext) {
      return true;
    }
    if (e instanceof BarePrimaryExpressionContext) {
      PrimaryExpressionContext primary = ((BarePrimaryExpressionContext) e).primaryExpression();
      if (primary instanceof ParameterExpressionContext) {
        return true;
      }
      if (primary instanceof LiteralExpressionContext) {
        return ((LiteralExpressionContext) primary).literal().NULL() == null;
      }
    }
    return false;
  }

  /**
   * What an expression says about a source's shard: a path from an alias (or a bare attribute of
   * the one source that has it) through associations that stay in the source's co-location group.
   * The model checks keep such associations on one shard, so the value the path ends at belongs to
   * the source's shard:
   *
   * <ul>
   *   <li>{@code key}: the value is a shard key of the group ({@code o.merchantId},
   *       {@code o.merchant.id} when Merchant's id is its key, or {@code o.merchant} compared as a
   *       whole);
   *   <li>{@code identity}: the expression is an entity of the group, or its id ({@code a.user},
   *       {@code a.user.id}, {@code u}, {@code u.id}); two equal identities are one row.
   * </ul>
   */
  record Ref(Source source, boolean key, Entity identity, boolean entityValued) {

    /** Whether equal values of the two expressions put their sources on one shard. */
    boolean sameShardAs(Ref other) {
      return key && other.key || identity != null && identity.equals(other.identity);
    }
  }

  /**
   * The source whose shard key value this expression is ({@code alias.key}, {@code alias.root.id},
   * a bare {@code key}), not an entity whose id is the key: a parameter compared with it binds the
   * key itself, which is what callers that route by a parameter's value need.
   */
  static Source keyValueOf(ExpressionContext expression, Scope scope) {
    Ref ref = refOf(expression, scope);
    return ref != null && ref.key && !ref.entityValued ? ref.source : null;
  }

  static Ref refOf(ExpressionContext expression, Scope scope) {
    ExpressionContext e = unwrap(expression);
    if (!(e instanceof BarePrimaryExpressionContext)) {
      return null;
    }
    PrimaryExpressionContext primary = ((BarePrimaryExpressionContext) e).primaryExpression();
    if (!(primary instanceof GeneralPathExpressionContext)) {
      return null;
    }
    List<String> parts = names(((GeneralPathExpressionContext) primary).generalPathFragment());
    if (parts == null) {
      return null;
    }
    Source source = scope.byAlias(parts.get(0));
    List<String> hops = parts.subList(1, parts.size());
    if (source == null) {
      if (parts.size() != 1) {
        return null;
      }
      source = bareAttributeOwner(parts.get(0), scope);
      hops = parts;
    }
    if (source == null || !source.sharded()) {
      return null;
    }
    Entity current = source.entity;
    boolean entityValued = true;
    for (int i = 0; i < hops.size(); i++) {
      String attribute = hops.get(i);
      boolean last = i == hops.size() - 1;
      if (last && attribute.equals(current.identifier())) {
        entityValued = false;
        break;
      }
      if (last && attribute.equals(current.shardKey())) {
        return new Ref(source, true, null, false);
      }
      Entity target = current.associationTarget(attribute);
      if (target == null || !inGroup(source.entity, target)) {
        return null;
      }
      current = target;
    }
    return new Ref(source, keyIsIdentifier(current), current, entityValued);
  }

  /** The source of this scope that has the attribute, if exactly one has it. */
  static Source bareAttributeOwner(String attribute, Scope scope) {
    Source found = null;
    for (Source source : scope.sources) {
      if (source.entity != null && source.entity.hasAttribute(attribute)) {
        if (found != null) {
          return null;
        }
        found = source;
      }
    }
    return found;
  }

  static boolean keyIsIdentifier(Entity entity) {
    return entity.shardKey() != null && entity.shardKey().equals(entity.identifier());
  }

  static boolean inGroup(Entity member, Entity other) {
    return other.shardKey() != null && member.group() != null && member.group().equals(other.group());
  }

  static ExpressionContext unwrap(ExpressionContext expression) {
    ExpressionContext e = expression;
    while (e instanceof GroupedExpressionContext) {
      e = ((GroupedExpressionContext) e).expression();
    }
    return e;
  }

  static List<String> names(GeneralPathFragmentContext fragment) {
    if (fragment == null || fragment.indexedPathAccessFragment() != null) {
      return null;
    }
    return names(fragment.simplePath());
  }

  static List<String> names(SimplePathContext path) {
    if (path == null) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    parts.add(path.identifier().getText());
    for (SimplePathElementContext element : path.simplePathElement()) {
      parts.add(element.identifier().getText());
    }
    return parts;
  }

  static String alias(VariableContext variable) {
    if (variable == null) {
      return null;
    }
    return variable.identifier() != null
        ? variable.identifier().getText()
        : variable.nakedIdentifier().getText();
  }

  static Set<Source> identitySet() {
    // Most sets hold a source or two: start small instead of at the default 32 slots.
    return Collections.newSetFromMap(new IdentityHashMap<>(4));
  }
}
