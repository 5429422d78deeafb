package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.Entity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JPQL a Spring Data finder name stands for, for the common shapes only: {@code findBy},
 * {@code readBy}, {@code getBy}, {@code queryBy}, {@code streamBy}, {@code countBy},
 * {@code existsBy}, {@code deleteBy} with properties joined by {@code And} or {@code Or}, each
 * compared for equality ({@code In} and {@code Equals} suffixes read as equality too). A name it
 * cannot read (another operator, an unknown property) gives null: the advisor then leaves the
 * method out rather than judge a query it guessed.
 */
final class DerivedQueries {
  private static final Pattern PREFIX =
      Pattern.compile("^(find|read|get|query|search|stream|count|exists|delete|remove)(?:[A-Z]\\w*?)?By([A-Z]\\w*)$");
  private static final Pattern ORDER_BY = Pattern.compile("OrderBy\\w*$");

  private DerivedQueries() {}

  static String hql(Entity entity, String methodName) {
    Matcher matcher = PREFIX.matcher(ORDER_BY.matcher(methodName).replaceFirst(""));
    if (!matcher.matches()) {
      return null;
    }
    List<String> branches = new ArrayList<>();
    for (String branch : matcher.group(2).split("Or(?=[A-Z])")) {
      List<String> terms = new ArrayList<>();
      for (String part : branch.split("And(?=[A-Z])")) {
        String property = part.replaceFirst("(In|Equals|Is)$", "");
        String path = path(entity, property);
        if (path == null) {
          return null;
        }
        String parameter = path.replace('.', '_');
        terms.add(part.endsWith("In") ? "e." + path + " in :" + parameter : "e." + path + " = :" + parameter);
      }
      branches.add(String.join(" and ", terms));
    }
    String select = matcher.group(1).equals("count") ? "select count(e)" : "select e";
    return select + " from " + entity.name + " e where " + String.join(" or ", branches);
  }

  /** {@code OwnerId} → {@code ownerId} if that attribute exists, else {@code owner.id}; null when neither. */
  private static String path(Entity entity, String property) {
    String whole = decapitalize(property);
    if (entity.attribute(whole) != null) {
      return whole;
    }
    for (int split = property.length() - 1; split > 0; split--) {
      if (Character.isUpperCase(property.charAt(split))) {
        Attribute head = entity.attribute(decapitalize(property.substring(0, split)));
        if (head != null && head.kind() == JpaModel.Kind.TO_ONE) {
          return head.name() + "." + decapitalize(property.substring(split));
        }
      }
    }
    return null;
  }

  private static String decapitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1);
  }
}
