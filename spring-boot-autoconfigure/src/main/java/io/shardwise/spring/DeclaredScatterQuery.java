package io.shardwise.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/**
 * The HQL of a {@code @Query} method, read as Spring Data JPA reads it: {@code #{#entityName}} is
 * the repository's entity; {@code like %:name%} (or {@code %?1}) binds the argument with the
 * {@code %} added and nothing escaped, as Spring Data does; named parameters are the method's
 * {@code @Param} names (or its compiled parameter names), positional ones its arguments in order.
 * The count of a {@code Page} is the {@code countQuery} when given, else the query with its
 * selection replaced by {@code count(alias)}, its ORDER BY dropped and its {@code join fetch}
 * made plain joins.
 */
final class DeclaredScatterQuery implements ScatterQueryText.Renderer {
  private static final Pattern LIKE_WRAPPED = Pattern.compile("(?i)\\blike\\s+(%?)(:[A-Za-z_$][\\w$]*|\\?\\d+)(%?)");
  private static final Pattern NAMED = Pattern.compile("(?<![:\\w]):([A-Za-z_$][\\w$]*)");
  private static final Pattern POSITIONAL = Pattern.compile("\\?(\\d+)");
  /** {@code [select [distinct] alias] from Entity [as] alias}, the shape whose rows can be sorted, paged and counted. */
  private static final Pattern ROOT = Pattern.compile(
      "(?is)^\\s*(?:select\\s+(distinct\\s+)?([A-Za-z_$][\\w$]*)\\s+)?from\\s+([A-Za-z_$][\\w$.]*)(?:\\s+(?:as\\s+)?(?!where\\b|join\\b|left\\b|inner\\b|order\\b|group\\b)([A-Za-z_$][\\w$]*))?");
  private static final Pattern ORDER_BY = Pattern.compile("(?i)\\border\\s+by\\b");
  private static final Pattern JOIN_FETCH = Pattern.compile("(?i)\\bjoin\\s+fetch\\b");

  private final String rows;
  private final String count;
  private final String alias;
  private final boolean ordered;
  private final Map<String, Wrap> likeWrapped = new HashMap<>();
  private final List<String> bindableNames;

  /** How {@code like %:p%} changes the argument. */
  private record Wrap(String prefix, String suffix) {}

  DeclaredScatterQuery(Method method, Query query, String entityName, List<Parameter> bindable) {
    String text = query.value().replace("#{#entityName}", entityName);
    if (text.contains("#{") || text.contains(":#") || text.contains("?#")) {
      throw ScatterRepositoryMethods.refused(method, "its @Query uses a SpEL expression, which a scatter-gather method"
          + " does not evaluate; bind a method parameter instead");
    }
    StringBuilder plain = new StringBuilder();
    Matcher like = LIKE_WRAPPED.matcher(text);
    while (like.find()) {
      if (!like.group(1).isEmpty() || !like.group(3).isEmpty()) {
        likeWrapped.put(like.group(2), new Wrap(like.group(1), like.group(3)));
      }
      like.appendReplacement(plain, Matcher.quoteReplacement("like " + like.group(2)));
    }
    like.appendTail(plain);
    this.rows = plain.toString();
    this.ordered = ORDER_BY.matcher(rows).find();
    Matcher root = ROOT.matcher(rows);
    boolean selectsRoot = root.find() && root.group(4) != null && (root.group(2) == null || root.group(2).equals(root.group(4)));
    this.alias = selectsRoot ? root.group(4) : null;
    if (!query.countQuery().isBlank()) {
      this.count = query.countQuery().replace("#{#entityName}", entityName);
    } else if (selectsRoot) {
      String target = root.group(1) != null ? "distinct " + alias : alias;
      String from = rows.substring(rows.toLowerCase(java.util.Locale.ROOT).lastIndexOf("from", root.start(3)));
      Matcher order = ORDER_BY.matcher(from);
      String counted = order.find() ? from.substring(0, order.start()) : from;
      this.count = "select count(" + target + ") " + JOIN_FETCH.matcher(counted).replaceAll("join");
    } else {
      this.count = null;
    }
    this.bindableNames = bindable.stream().map(DeclaredScatterQuery::name).toList();
    Matcher named = NAMED.matcher(stringsBlanked(rows));
    while (named.find()) {
      if (!bindableNames.contains(named.group(1))) {
        throw ScatterRepositoryMethods.refused(method, "its @Query names :" + named.group(1) + ", which is no parameter"
            + " of the method (parameters: " + bindableNames + "; name them with @Param or compile with -parameters)");
      }
    }
  }

  /** Whether a Page of this method can be counted. */
  boolean countable() {
    return count != null;
  }

  private static String name(Parameter parameter) {
    Param param = parameter.getAnnotation(Param.class);
    return param != null ? param.value() : parameter.getName();
  }

  @Override
  public ScatterQueryText render(Object[] bindable) {
    Map<String, Object> named = new HashMap<>();
    List<Object> positional = new ArrayList<>();
    String blanked = stringsBlanked(rows);
    Matcher n = NAMED.matcher(blanked);
    while (n.find()) {
      named.put(n.group(1), wrapped(":" + n.group(1), bindable[bindableNames.indexOf(n.group(1))]));
    }
    Matcher p = POSITIONAL.matcher(blanked);
    int highest = 0;
    while (p.find()) {
      highest = Math.max(highest, Integer.parseInt(p.group(1)));
    }
    for (int i = 1; i <= highest; i++) {
      positional.add(wrapped("?" + i, bindable[i - 1]));
    }
    return new ScatterQueryText(rows, count, alias, ordered, positional, named);
  }

  private Object wrapped(String parameter, Object value) {
    Wrap wrap = likeWrapped.get(parameter);
    return wrap == null || value == null ? value : wrap.prefix + value + wrap.suffix;
  }

  /** The query with the insides of its string literals blanked, so that a ':' or '?' in a literal is no parameter. */
  private static String stringsBlanked(String hql) {
    StringBuilder out = new StringBuilder(hql.length());
    boolean inString = false;
    for (int i = 0; i < hql.length(); i++) {
      char c = hql.charAt(i);
      if (c == '\'') {
        inString = !inString;
        out.append(c);
      } else {
        out.append(inString ? ' ' : c);
      }
    }
    return out.toString();
  }
}
