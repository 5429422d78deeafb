package io.shardwise.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of a Spring Data derived query method ({@code findDistinctTop3ByMerchantIdAndStatusIn
 * OrderByIdDesc}), split the way Spring Data's {@code PartTree} splits it, without Spring on the
 * class path: a subject ({@code find...By}, {@code count...By}, {@code delete...By}, ...), branches
 * joined by {@code Or}, each a list of parts joined by {@code And}, each part a property
 * expression and an operator keyword ({@code Is}, {@code In}, {@code LessThan}, ...), then an
 * optional {@code OrderBy} clause and {@code AllIgnoreCase}. Pure text: resolving the property
 * expressions against the entity is the caller's.
 *
 * @param subject the name up to and including {@code By} ({@code findDistinctTop3By})
 * @param verb the subject's first word: find, read, get, query, search, stream, count, exists,
 *     delete or remove
 * @param branches the {@code Or} branches; empty when the name has no criteria ({@code findTop5By},
 *     {@code findByOrderByIdDesc})
 * @param orderBy the text after {@code OrderBy}, or null
 * @param allIgnoreCase whether the name ends its criteria with {@code AllIgnoreCase}
 */
record DerivedQuery(
    String subject, String verb, List<Branch> branches, String orderBy, boolean allIgnoreCase) {

  /** One {@code Or} branch: its text as written, and its {@code And} parts. */
  record Branch(String source, List<Part> parts) {}

  /**
   * One condition: the property expression ({@code CustomerId}, {@code Customer_Id}), its operator,
   * and whether it ignores case ({@code StatusIgnoreCase}).
   */
  record Part(String property, Operator operator, boolean ignoreCase) {}

  /**
   * Spring Data's keywords, in the order its {@code Part.Type} tries them (a name ending in
   * {@code NotIn} is {@code NOT_IN}, not {@code IN}); {@link #SIMPLE_PROPERTY} when none ends the
   * part. Only {@link #SIMPLE_PROPERTY} and {@link #IN} can pin a shard key.
   */
  enum Operator {
    IS_NOT_NULL("is not null", 0, "IsNotNull", "NotNull"),
    IS_NULL("is null", 0, "IsNull", "Null"),
    BETWEEN("between", 2, "IsBetween", "Between"),
    LESS_THAN("<", 1, "IsLessThan", "LessThan"),
    LESS_THAN_EQUAL("<=", 1, "IsLessThanEqual", "LessThanEqual"),
    GREATER_THAN(">", 1, "IsGreaterThan", "GreaterThan"),
    GREATER_THAN_EQUAL(">=", 1, "IsGreaterThanEqual", "GreaterThanEqual"),
    BEFORE("<", 1, "IsBefore", "Before"),
    AFTER(">", 1, "IsAfter", "After"),
    NOT_LIKE("not like", 1, "IsNotLike", "NotLike"),
    LIKE("like", 1, "IsLike", "Like"),
    STARTING_WITH("like", 1, "IsStartingWith", "StartingWith", "StartsWith"),
    ENDING_WITH("like", 1, "IsEndingWith", "EndingWith", "EndsWith"),
    IS_NOT_EMPTY("is not empty", 0, "IsNotEmpty", "NotEmpty"),
    IS_EMPTY("is empty", 0, "IsEmpty", "Empty"),
    NOT_CONTAINING("not like", 1, "IsNotContaining", "NotContaining", "NotContains"),
    CONTAINING("like", 1, "IsContaining", "Containing", "Contains"),
    NOT_IN("not in", 1, "IsNotIn", "NotIn"),
    IN("in", 1, "IsIn", "In"),
    NEAR("is not null", 1, "IsNear", "Near"),
    WITHIN("is not null", 1, "IsWithin", "Within"),
    REGEX("like", 1, "MatchesRegex", "Matches", "Regex"),
    EXISTS("is not null", 0, "Exists"),
    TRUE("= true", 0, "IsTrue", "True"),
    FALSE("= false", 0, "IsFalse", "False"),
    NEGATING_SIMPLE_PROPERTY("<>", 1, "IsNot", "Not"),
    SIMPLE_PROPERTY("=", 1, "Is", "Equals");

    /** The HQL operator that stands for it in the query the checks judge. */
    final String hql;
    /** How many method parameters it takes. */
    final int arguments;
    private final List<String> keywords;

    Operator(String hql, int arguments, String... keywords) {
      this.hql = hql;
      this.arguments = arguments;
      this.keywords = List.of(keywords);
    }

    static Operator of(String part) {
      for (Operator operator : values()) {
        if (operator != SIMPLE_PROPERTY && operator.keyword(part) != null) {
          return operator;
        }
      }
      return SIMPLE_PROPERTY;
    }

    /** The property expression before this operator's keyword. */
    String property(String part) {
      String keyword = keyword(part);
      return keyword == null ? part : part.substring(0, part.length() - keyword.length());
    }

    private String keyword(String part) {
      for (String keyword : keywords) {
        if (part.endsWith(keyword) && part.length() > keyword.length()) {
          return keyword;
        }
      }
      return null;
    }
  }

  private static final Pattern PREFIX = Pattern.compile(
      "^(find|read|get|query|search|stream|count|exists|delete|remove)((\\p{Lu}.*?))??By");
  private static final Pattern ALL_IGNORE_CASE = Pattern.compile("AllIgnor(ing|e)Case");
  private static final Pattern IGNORE_CASE = Pattern.compile("Ignor(ing|e)Case");
  private static final String KEYWORD = "(%s)(?=(\\p{Lu}|\\P{InBASIC_LATIN}))";

  /** The parsed name, or null when the name is no derived query (no {@code find...By} prefix). */
  static DerivedQuery parse(String methodName) {
    Matcher prefix = PREFIX.matcher(methodName);
    if (!prefix.find()) {
      return null;
    }
    String predicate = methodName.substring(prefix.end());
    boolean allIgnoreCase = false;
    Matcher all = ALL_IGNORE_CASE.matcher(predicate);
    if (all.find()) {
      allIgnoreCase = true;
      predicate = predicate.substring(0, all.start()) + predicate.substring(all.end());
    }
    String[] ordered = split(predicate, "OrderBy");
    List<Branch> branches = new ArrayList<>();
    if (ordered.length > 0) {
      for (String branch : split(ordered[0], "Or")) {
        if (branch.isEmpty()) {
          continue;
        }
        List<Part> parts = new ArrayList<>();
        for (String part : split(branch, "And")) {
          if (!part.isEmpty()) {
            parts.add(part(part));
          }
        }
        branches.add(new Branch(branch, parts));
      }
    }
    return new DerivedQuery(prefix.group(), prefix.group(1), branches,
        ordered.length > 1 ? ordered[1] : null, allIgnoreCase);
  }

  private static Part part(String source) {
    Matcher ignore = IGNORE_CASE.matcher(source);
    boolean ignoreCase = ignore.find();
    String text = ignoreCase
        ? source.substring(0, ignore.start()) + source.substring(ignore.end())
        : source;
    Operator operator = Operator.of(text);
    return new Part(operator.property(text), operator, ignoreCase);
  }

  private static String[] split(String text, String keyword) {
    return Pattern.compile(String.format(KEYWORD, keyword)).split(text);
  }

  /** Whether the query deletes what it finds ({@code deleteBy}, {@code removeBy}). */
  boolean deletes() {
    return verb.equals("delete") || verb.equals("remove");
  }
}
