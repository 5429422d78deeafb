package io.shardwise.spring;

import io.shardwise.hibernate.ShardingConfigurationException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.data.core.PropertyPath;
import org.springframework.data.jpa.repository.query.EscapeCharacter;
import org.springframework.data.repository.query.parser.Part;
import org.springframework.data.repository.query.parser.PartTree;

/**
 * The HQL of a derived query method ({@code findByLastNameStartingWith}), written from Spring Data's
 * own parse of the name ({@link PartTree}) the way Spring Data JPA writes its JPQL: {@code IgnoreCase}
 * compares {@code upper(..)} of both sides; {@code StartingWith}, {@code EndingWith} and
 * {@code Containing} escape {@code %}, {@code _} and the escape character in the argument and say
 * {@code escape '\'}; {@code Like} passes the argument as written; a null argument of {@code Is} or
 * {@code Not} is {@code is null} / {@code is not null}.
 */
final class DerivedScatterQuery implements ScatterQueryText.Renderer {
  static final String ALIAS = "e";
  private static final EscapeCharacter ESCAPE = EscapeCharacter.DEFAULT;
  private static final Set<Part.Type> SUPPORTED = EnumSet.of(Part.Type.SIMPLE_PROPERTY,
      Part.Type.NEGATING_SIMPLE_PROPERTY, Part.Type.LESS_THAN, Part.Type.LESS_THAN_EQUAL, Part.Type.GREATER_THAN,
      Part.Type.GREATER_THAN_EQUAL, Part.Type.BEFORE, Part.Type.AFTER, Part.Type.BETWEEN, Part.Type.IS_NULL,
      Part.Type.IS_NOT_NULL, Part.Type.TRUE, Part.Type.FALSE, Part.Type.IN, Part.Type.NOT_IN, Part.Type.LIKE,
      Part.Type.NOT_LIKE, Part.Type.STARTING_WITH, Part.Type.ENDING_WITH, Part.Type.CONTAINING,
      Part.Type.NOT_CONTAINING);

  private final PartTree tree;
  private final String entityName;
  private final String idAttribute;

  DerivedScatterQuery(Method method, Class<?> domainType, String entityName, String idAttribute) {
    this.tree = new PartTree(method.getName(), domainType);
    this.entityName = entityName;
    this.idAttribute = idAttribute;
    if (tree.isDelete()) {
      throw ScatterRepositoryMethods.refused(method, "it deletes; a scatter-gather method only reads. Delete on each"
          + " key's shard, or through shards.forShard(id) per shard");
    }
    for (Part part : tree.getParts()) {
      if (!SUPPORTED.contains(part.getType())) {
        throw ScatterRepositoryMethods.refused(method, "its criterion " + part.getType() + " on "
            + part.getProperty().toDotPath() + " has no scatter-gather form. Supported: " + SUPPORTED);
      }
      for (PropertyPath segment = part.getProperty(); segment != null; segment = segment.hasNext() ? segment.next()
          : null) {
        if (segment.isCollection()) {
          throw ScatterRepositoryMethods.refused(method, "its criterion on " + part.getProperty().toDotPath()
              + " goes through the collection " + segment.getSegment() + "; write it as @Query with an explicit join");
        }
      }
      if (ignoresCase(part) && (part.getType() == Part.Type.IN || part.getType() == Part.Type.NOT_IN)) {
        throw ScatterRepositoryMethods.refused(method, "IgnoreCase with In has no scatter-gather form");
      }
    }
  }

  PartTree tree() {
    return tree;
  }

  @Override
  public ScatterQueryText render(Object[] bindable) {
    List<Object> values = new ArrayList<>();
    StringBuilder where = new StringBuilder();
    int argument = 0;
    String orSeparator = "";
    for (PartTree.OrPart or : tree) {
      where.append(orSeparator).append('(');
      String andSeparator = "";
      for (Part part : or) {
        where.append(andSeparator);
        criterion(part, bindable, argument, values, where);
        argument += part.getNumberOfArguments();
        andSeparator = " and ";
      }
      where.append(')');
      orSeparator = " or ";
    }
    String from = " from " + entityName + " " + ALIAS + (where.isEmpty() ? "" : " where " + where);
    String target = tree.isDistinct() ? "distinct " + ALIAS : ALIAS;
    String rows = tree.isExistsProjection() ? "select " + ALIAS + "." + idAttribute + from
        : "select " + target + from;
    return new ScatterQueryText(rows, "select count(" + target + ")" + from, ALIAS, false, values, Map.of());
  }

  private static boolean ignoresCase(Part part) {
    return switch (part.shouldIgnoreCase()) {
      case ALWAYS -> true;
      case WHEN_POSSIBLE -> part.getProperty().getLeafType() == String.class;
      case NEVER -> false;
    };
  }

  private static void criterion(Part part, Object[] bindable, int argument, List<Object> values, StringBuilder where) {
    boolean upper = ignoresCase(part);
    String path = ALIAS + "." + part.getProperty().toDotPath();
    String left = upper ? "upper(" + path + ")" : path;
    Object value = part.getNumberOfArguments() > 0 ? bindable[argument] : null;
    switch (part.getType()) {
      case SIMPLE_PROPERTY -> where.append(value == null ? path + " is null" : left + " = " + bind(value, upper, values));
      case NEGATING_SIMPLE_PROPERTY -> where.append(value == null ? path + " is not null"
          : left + " <> " + bind(value, upper, values));
      case LESS_THAN, BEFORE -> where.append(left).append(" < ").append(bind(value, upper, values));
      case LESS_THAN_EQUAL -> where.append(left).append(" <= ").append(bind(value, upper, values));
      case GREATER_THAN, AFTER -> where.append(left).append(" > ").append(bind(value, upper, values));
      case GREATER_THAN_EQUAL -> where.append(left).append(" >= ").append(bind(value, upper, values));
      case BETWEEN -> where.append(left).append(" between ").append(bind(value, upper, values)).append(" and ")
          .append(bind(bindable[argument + 1], upper, values));
      case IS_NULL -> where.append(path).append(" is null");
      case IS_NOT_NULL -> where.append(path).append(" is not null");
      case TRUE -> where.append(path).append(" = true");
      case FALSE -> where.append(path).append(" = false");
      case IN -> where.append(path).append(" in ").append(bind(asCollection(value), false, values));
      case NOT_IN -> where.append(path).append(" not in ").append(bind(asCollection(value), false, values));
      case LIKE -> where.append(left).append(" like ").append(bind(value, upper, values));
      case NOT_LIKE -> where.append(left).append(" not like ").append(bind(value, upper, values));
      case STARTING_WITH -> escapedLike(left, "", value, "%", upper, values, where);
      case ENDING_WITH -> escapedLike(left, "%", value, "", upper, values, where);
      case CONTAINING -> escapedLike(left, "%", value, "%", upper, values, where);
      case NOT_CONTAINING -> {
        where.append("not ");
        escapedLike(left, "%", value, "%", upper, values, where);
      }
      default -> throw new IllegalStateException("checked when the repository started: " + part.getType());
    }
  }

  private static void escapedLike(String left, String prefix, Object value, String suffix, boolean upper,
      List<Object> values, StringBuilder where) {
    Object pattern = value == null ? null : prefix + ESCAPE.escape(value.toString()) + suffix;
    where.append(left).append(" like ").append(bind(pattern, upper, values)).append(" escape '")
        .append(ESCAPE.getEscapeCharacter()).append('\'');
  }

  private static String bind(Object value, boolean upper, List<Object> values) {
    values.add(value);
    String parameter = "?" + values.size();
    return upper ? "upper(" + parameter + ")" : parameter;
  }

  private static Collection<?> asCollection(Object value) {
    if (value instanceof Collection<?> c) {
      return c;
    }
    if (value instanceof Object[] array) {
      return Arrays.asList(array);
    }
    return value == null ? List.of() : List.of(value);
  }
}
