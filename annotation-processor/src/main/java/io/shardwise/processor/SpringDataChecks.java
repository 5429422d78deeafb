package io.shardwise.processor;

import io.shardwise.processor.DerivedQuery.Branch;
import io.shardwise.processor.DerivedQuery.Operator;
import io.shardwise.processor.DerivedQuery.Part;
import io.shardwise.processor.EntityModel.Entity;
import io.shardwise.processor.EntityModel.Member;
import io.shardwise.queryrules.ShardKeyRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.Diagnostic;

/**
 * Spring Data repositories of sharded entities: interfaces that extend
 * {@code org.springframework.data.repository.Repository} (directly or through
 * {@code CrudRepository}, {@code JpaRepository}, ...) or carry {@code @RepositoryDefinition},
 * recognised by name so that the processor needs no Spring on its path. Their domain type is the
 * first type argument of {@code Repository<T, ID>}.
 *
 * <p>Each method the repository declares, or inherits from an interface of the user's own (not
 * from Spring Data's), is held to the {@link ShardKeyRule}:
 * <ul>
 *   <li>{@code @Query} JPQL/HQL (and its count query) like any other query; a native one
 *       ({@code nativeQuery = true}, {@code @NativeQuery}) is read as SQL and held to the
 *       {@link io.shardwise.queryrules.NativeSqlRule} (SQL it cannot read is a
 *       {@link Tag#NativeQueryUnchecked} warning);</li>
 *   <li>a derived query ({@code findByMerchantIdAndStatus}) is parsed as Spring Data parses it,
 *       its property paths resolved against the entity as Spring Data resolves them, and the
 *       result, written as HQL ({@code from PurchaseOrder e where e.merchantId = ?1 and e.status =
 *       ?2}), judged by the same rule;</li>
 *   <li>a redeclared {@code findAll()}, {@code count()} or {@code deleteAll()} reads every row.</li>
 * </ul>
 * Methods with a body, query-by-example and specification methods, and the methods inherited from
 * Spring Data's own interfaces are not checked (see docs/compile-time-checks.md for why).
 * {@code @ScatterGather} on the method or the repository lets a method run without the key.
 */
final class SpringDataChecks {

  static final String REPOSITORY = "org.springframework.data.repository.Repository";
  static final String REPOSITORY_DEFINITION =
      "org.springframework.data.repository.RepositoryDefinition";
  static final String NO_REPOSITORY_BEAN = "org.springframework.data.repository.NoRepositoryBean";
  static final String QUERY = "org.springframework.data.jpa.repository.Query";
  static final String NATIVE_QUERY = "org.springframework.data.jpa.repository.NativeQuery";
  private static final String SPRING_DATA = "org.springframework.data.";
  private static final String PROCEDURE = "org.springframework.data.jpa.repository.Procedure";
  /** Parameter types whose queries are built at run time: query by example, specifications. */
  private static final Set<String> RUNTIME_CRITERIA = Set.of(
      "org.springframework.data.domain.Example",
      "org.springframework.data.jpa.domain.Specification",
      "org.springframework.data.jpa.domain.PredicateSpecification",
      "org.springframework.data.jpa.domain.UpdateSpecification",
      "org.springframework.data.jpa.domain.DeleteSpecification");
  /** Redeclared CRUD methods without criteria: they read (or delete) every row. */
  private static final Set<String> EVERY_ROW =
      Set.of("findAll", "count", "deleteAll", "deleteAllInBatch");
  /**
   * CrudRepository's and JpaRepository's methods that take one id, one entity, or an Iterable of
   * either. Redeclared on a {@code Repository<T, ID>} (selective exposure) with a matching
   * parameter, Spring Data runs its own implementation, exactly as when they are inherited; so
   * they are treated as inherited ones are (see docs/compile-time-checks.md).
   */
  private static final Set<String> CRUD_BY_ID =
      Set.of("findById", "existsById", "deleteById", "getReferenceById", "getById", "getOne");
  private static final Set<String> CRUD_BY_ENTITY = Set.of("save", "saveAndFlush", "delete");
  private static final Set<String> CRUD_BY_ITERABLE = Set.of("findAllById", "deleteAllById",
      "deleteAllByIdInBatch", "saveAll", "saveAllAndFlush", "deleteAll", "deleteAllInBatch",
      "deleteInBatch");
  /** Spring Data's SpEL in a query: {@code #{#entityName}}, and {@code :#{...}} arguments. */
  private static final Pattern ENTITY_NAME = Pattern.compile("#\\{\\s*#entityName\\s*}");
  private static final Pattern SPEL_ARGUMENT = Pattern.compile("[:?]#\\{[^}]*}");
  /** Spring Data's {@code like %:name%}: the percent signs are its, not HQL's. */
  private static final Pattern LIKE_WILDCARD =
      Pattern.compile("(?i)(\\blike\\s+)%?([:?][\\p{Alnum}_]*)%?");

  private final EntityModel model;
  private final Reporter reporter;
  private final Elements elements;
  private final Types types;
  private final QueryChecks queries;

  SpringDataChecks(EntityModel model, Reporter reporter, Elements elements, Types types,
      QueryChecks queries) {
    this.types = types;
    this.model = model;
    this.reporter = reporter;
    this.elements = elements;
    this.queries = queries;
  }

  /** Checks a type when it is a Spring Data repository; does nothing for any other type. */
  void check(TypeElement type) {
    if (type.getKind() != ElementKind.INTERFACE) {
      return;
    }
    AnnotationMirror definition = Mirrors.find(type, REPOSITORY_DEFINITION);
    DeclaredType repository = queries.supertypeNamed(type, REPOSITORY);
    if (definition == null && (repository == null || Mirrors.has(type, NO_REPOSITORY_BEAN)
        || repository.getTypeArguments().isEmpty()
        || repository.getTypeArguments().get(0).getKind() == TypeKind.TYPEVAR)) {
      // No repository, or a base of repositories (generic, or @NoRepositoryBean): its methods
      // are checked in each repository that inherits them, against that repository's entity.
      return;
    }
    TypeElement domainClass = definition == null ? null : Mirrors.type(definition, "domainClass");
    Entity domain = domainClass != null
        ? model.entity(domainClass)
        : queries.typeArgumentEntity(repository);
    TypeMirror id = definition != null ? typeOf(Mirrors.type(definition, "idClass"))
        : repository.getTypeArguments().size() > 1 ? repository.getTypeArguments().get(1) : null;
    for (Element member : elements.getAllMembers(type)) {
      if (member.getKind() != ElementKind.METHOD || fromSpring(member)) {
        continue;
      }
      ExecutableElement method = (ExecutableElement) member;
      if (method.isDefault() || method.getModifiers().contains(Modifier.STATIC)
          || Mirrors.has(method, PROCEDURE)) {
        continue;
      }
      checkMethod(type, method, domain, id);
    }
  }

  private static boolean fromSpring(Element member) {
    Element owner = member.getEnclosingElement();
    return !(owner instanceof TypeElement) || ((TypeElement) owner).getQualifiedName().toString()
        .startsWith(SPRING_DATA) || owner.getKind() != ElementKind.INTERFACE;
  }

  private void checkMethod(TypeElement type, ExecutableElement method, Entity domain, TypeMirror id) {
    AnnotationMirror query = Mirrors.find(method, QUERY);
    AnnotationMirror nativeQuery = Mirrors.find(method, NATIVE_QUERY);
    if (nativeQuery != null || query != null && isTrue(query, "nativeQuery")) {
      AnnotationMirror annotation = nativeQuery != null ? nativeQuery : query;
      String sql = Mirrors.string(annotation, "value");
      if (sql != null && !sql.isBlank()) {
        queries.checkNativeRepositoryQuery(type, method, annotation, sql, permitted(type, method));
      }
      return;
    }
    if (query != null) {
      for (String member : List.of("value", "countQuery")) {
        String jpql = Mirrors.string(query, member);
        if (jpql != null && !jpql.isBlank()) {
          queries.checkRepositoryQuery(type, method, query, member, springless(jpql, domain),
              domain);
        }
      }
      return;
    }
    if (domain == null || !domain.sharded() || domain.keyMember() == null || crudMethod(method, domain, id)
        || permitted(type, method) || takesRuntimeCriteria(method)
        || hasNamedQuery(domain, method)) {
      return;
    }
    String name = method.getSimpleName().toString();
    if (EVERY_ROW.contains(name) && everyRowSignature(method)) {
      reportEveryRow(type, method, domain);
      return;
    }
    DerivedQuery derived = DerivedQuery.parse(name);
    if (derived != null) {
      checkDerived(type, method, domain, derived);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Derived queries

  private void checkDerived(
      TypeElement type, ExecutableElement method, Entity domain, DerivedQuery derived) {
    String where = where(domain, derived.branches(), derived.allIgnoreCase());
    if (pinned(domain, where)) {
      return;
    }
    String key = domain.keyMember().name();
    String keyWord = capitalize(key);
    List<String> branches = new ArrayList<>();
    for (Branch branch : derived.branches()) {
      branches.add(pinned(domain, where(domain, List.of(branch), derived.allIgnoreCase()))
          ? branch.source() : keyWord + "And" + branch.source());
    }
    String fixed = derived.subject() + (branches.isEmpty() ? keyWord : String.join("Or", branches))
        + (derived.orderBy() == null ? "" : "OrderBy" + derived.orderBy())
        + (derived.allIgnoreCase() ? "AllIgnoreCase" : "");
    String hql = (derived.deletes() ? "delete from " : "from ") + domain.name + " e"
        + (where.isEmpty() ? "" : " where " + where);
    String onBranches = derived.branches().size() > 1
        ? "every Or branch of the name must compare " : "the name must compare ";
    reporter.error(Tag.QueryWithoutShardKey, method,
        "Derived query method " + describe(type, method) + " " + (derived.deletes() ? "deletes"
            : "reads") + " sharded entity " + domain.simpleName() + " without its shard key "
            + key + " (as HQL: \"" + hql + "\"): " + onBranches + keyWord + " with Is, Equals"
            + " or In, so the query would run on every shard. Fix: add the key to the name and a"
            + " parameter for it, as in " + fixed + "(" + domain.keyType() + " " + key + ", ...),"
            + " or mark the method @ScatterGather to run it on every shard.");
  }

  /** Whether the rule finds every sharded entity of {@code from Domain e where ...} pinned. */
  private boolean pinned(Entity domain, String where) {
    String hql = "from " + domain.type.getQualifiedName() + " e"
        + (where.isEmpty() ? "" : " where " + where);
    ShardKeyRule.Analysis analysis = new ShardKeyRule(model).analyze(hql, null);
    return analysis != null && analysis.unpinned().isEmpty();
  }

  /** The WHERE clause a derived query's branches stand for, in HQL over the alias {@code e}. */
  private String where(Entity domain, List<Branch> branches, boolean allIgnoreCase) {
    int[] parameter = {0};
    List<String> ors = new ArrayList<>();
    for (Branch branch : branches) {
      List<String> ands = new ArrayList<>();
      for (Part part : branch.parts()) {
        ands.add(condition(domain, part, allIgnoreCase, parameter));
      }
      ors.add(String.join(" and ", ands));
    }
    if (ors.size() == 1) {
      return ors.get(0);
    }
    List<String> grouped = new ArrayList<>();
    for (String or : ors) {
      grouped.add("(" + or + ")");
    }
    return String.join(" or ", grouped);
  }

  private String condition(Entity domain, Part part, boolean allIgnoreCase, int[] parameter) {
    List<Segment> segments = resolve(domain.type.asType(), part.property());
    StringBuilder path = new StringBuilder("e");
    TypeMirror leaf = null;
    if (segments == null) {
      path.append('.').append(uncapitalize(part.property()).replace('_', '.'));
    } else {
      for (Segment segment : segments) {
        path.append('.').append(segment.name());
        leaf = segment.type();
      }
    }
    Operator operator = part.operator();
    boolean upper = part.ignoreCase() || allIgnoreCase && leaf != null
        && leaf.toString().equals("java.lang.String");
    String left = upper ? "upper(" + path + ")" : path.toString();
    if (operator.arguments == 0) {
      return left + " " + operator.hql;
    }
    String value = "?" + (++parameter[0]);
    if (operator == Operator.BETWEEN) {
      return left + " between " + value + " and ?" + (++parameter[0]);
    }
    if (operator == Operator.IN || operator == Operator.NOT_IN) {
      return left + " " + operator.hql + " (" + value + ")";
    }
    return left + " " + operator.hql + " " + (upper ? "upper(" + value + ")" : value);
  }

  /** One step of a property path: the attribute's name and its type (a collection's element). */
  private record Segment(String name, TypeMirror type) {}

  /**
   * A property expression resolved as Spring Data's {@code PropertyPath} resolves it: explicit
   * {@code _} separators first, then within each piece the whole name, else the longest head that
   * is a property with the rest resolved on its type ({@code CustomerId} is {@code customerId}
   * when the entity has it, else {@code customer.id}). Null when nothing resolves it.
   */
  private List<Segment> resolve(TypeMirror owner, String expression) {
    List<Segment> path = new ArrayList<>();
    TypeMirror current = owner;
    for (String piece : expression.split("_")) {
      if (piece.isEmpty()) {
        continue;
      }
      List<Segment> resolved = resolvePiece(current, piece);
      if (resolved == null) {
        return null;
      }
      path.addAll(resolved);
      current = resolved.get(resolved.size() - 1).type();
    }
    return path.isEmpty() ? null : path;
  }

  private List<Segment> resolvePiece(TypeMirror owner, String piece) {
    String whole = uncapitalize(piece);
    TypeMirror type = propertyType(owner, whole);
    if (type != null) {
      return new ArrayList<>(List.of(new Segment(whole, type)));
    }
    for (int i = piece.length() - 1; i > 0; i--) {
      if (!Character.isUpperCase(piece.charAt(i))) {
        continue;
      }
      String head = uncapitalize(piece.substring(0, i));
      TypeMirror headType = propertyType(owner, head);
      List<Segment> tail = headType == null ? null : resolvePiece(headType, piece.substring(i));
      if (tail != null) {
        tail.add(0, new Segment(head, headType));
        return tail;
      }
    }
    return null;
  }

  /**
   * The type of a property of an entity (an association's target entity) or of any other class
   * (an embeddable's field); a collection's element type. Null when there is no such property.
   */
  private TypeMirror propertyType(TypeMirror owner, String name) {
    if (owner == null || owner.getKind() != TypeKind.DECLARED) {
      return null;
    }
    TypeElement element = (TypeElement) ((DeclaredType) owner).asElement();
    Entity entity = model.entity(element);
    if (entity != null) {
      Member member = entity.member(name);
      if (member == null) {
        return null;
      }
      Entity target = entity.associationTarget(member);
      return target != null ? target.type.asType() : elementType(member.type());
    }
    for (TypeElement t = element; t != null; t = QueryChecks.superclass(t)) {
      for (Element field : t.getEnclosedElements()) {
        if (field.getKind() == ElementKind.FIELD && field.getSimpleName().contentEquals(name)
            && !field.getModifiers().contains(Modifier.STATIC)) {
          return elementType(field.asType());
        }
      }
    }
    return null;
  }

  /** {@code List<Item>} and {@code Set<Item>} navigate to {@code Item}, a map to its values. */
  private static TypeMirror elementType(TypeMirror type) {
    if (type.getKind() == TypeKind.DECLARED) {
      DeclaredType declared = (DeclaredType) type;
      String name = ((TypeElement) declared.asElement()).getQualifiedName().toString();
      List<? extends TypeMirror> arguments = declared.getTypeArguments();
      if (name.startsWith("java.util.") && !arguments.isEmpty()) {
        return arguments.get(arguments.size() - 1);
      }
    }
    return type;
  }

  // ---------------------------------------------------------------------------------------------
  // CRUD methods redeclared, native queries, opt-outs

  private static TypeMirror typeOf(TypeElement type) {
    return type == null ? null : type.asType();
  }

  /**
   * Whether the method is one of CrudRepository's by id, by entity or by Iterable (see
   * {@link #CRUD_BY_ID}), with a parameter Spring Data's own method accepts.
   */
  private boolean crudMethod(ExecutableElement method, Entity domain, TypeMirror id) {
    String name = method.getSimpleName().toString();
    if (method.getParameters().size() != 1) {
      return false;
    }
    TypeMirror parameter = method.getParameters().get(0).asType();
    if (parameter.getKind().isPrimitive()) {
      parameter = types.boxedClass((javax.lang.model.type.PrimitiveType) parameter).asType();
    }
    if (CRUD_BY_ID.contains(name)) {
      return id != null && assignable(parameter, id);
    }
    if (CRUD_BY_ENTITY.contains(name)) {
      return domain != null && assignable(parameter, domain.type.asType());
    }
    TypeElement iterable = elements.getTypeElement("java.lang.Iterable");
    return CRUD_BY_ITERABLE.contains(name) && iterable != null
        && assignable(parameter, iterable.asType());
  }

  private boolean assignable(TypeMirror from, TypeMirror to) {
    if (from.getKind() == TypeKind.TYPEVAR) {
      from = ((javax.lang.model.type.TypeVariable) from).getUpperBound();
    }
    return types.isAssignable(types.erasure(from), types.erasure(to));
  }

  /** {@code findAll()}, {@code findAll(Sort)}, {@code findAll(Pageable)}, {@code count()}, ... */
  private static boolean everyRowSignature(ExecutableElement method) {
    List<? extends VariableElement> parameters = method.getParameters();
    if (parameters.isEmpty()) {
      return true;
    }
    String only = parameters.get(0).asType().toString();
    return parameters.size() == 1 && method.getSimpleName().contentEquals("findAll")
        && (only.equals("org.springframework.data.domain.Sort")
            || only.equals("org.springframework.data.domain.Pageable"));
  }

  private void reportEveryRow(TypeElement type, ExecutableElement method, Entity domain) {
    String key = domain.keyMember().name();
    String name = method.getSimpleName().toString();
    String verb = name.startsWith("delete") ? "deletes" : name.equals("count") ? "counts" : "reads";
    reporter.error(Tag.QueryWithoutShardKey, method,
        "Repository method " + describe(type, method) + " " + verb + " every " + domain.simpleName()
            + " with no condition, so it would run on every shard without its shard key " + key
            + ". Fix: declare a derived query with the key instead, as in "
            + (verb.equals("reads") ? "findBy" : name.startsWith("delete") ? "deleteBy"
                : "countBy") + capitalize(key) + "(" + domain.keyType() + " " + key + "), or"
            + " mark the method @ScatterGather to run it on every shard.");
  }

  /**
   * {@code @ScatterGather} on the method, on the interface that declares it, or on the repository
   * (which may inherit the method from an interface of its own).
   */
  private static boolean permitted(TypeElement repository, ExecutableElement method) {
    return QueryChecks.permitted(method, null) || QueryChecks.permitted(repository, null);
  }

  private static boolean isTrue(AnnotationMirror mirror, String member) {
    AnnotationValue value = Mirrors.value(mirror, member);
    return value != null && Boolean.TRUE.equals(value.getValue());
  }

  private static boolean takesRuntimeCriteria(ExecutableElement method) {
    for (VariableElement parameter : method.getParameters()) {
      TypeMirror type = parameter.asType();
      if (type.getKind() == TypeKind.DECLARED && RUNTIME_CRITERIA.contains(
          ((TypeElement) ((DeclaredType) type).asElement()).getQualifiedName().toString())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a named query {@code Entity.method} backs the method: Spring Data then runs it instead
   * of deriving one, and the named query is checked where it is declared.
   */
  private static boolean hasNamedQuery(Entity domain, ExecutableElement method) {
    String name = domain.simpleName() + "." + method.getSimpleName();
    for (AnnotationMirror mirror : domain.type.getAnnotationMirrors()) {
      String annotation = Mirrors.nameOf(mirror);
      List<AnnotationMirror> named = annotation.equals(Mirrors.NAMED_QUERY)
          || annotation.equals(Mirrors.HIBERNATE_NAMED_QUERY) ? List.of(mirror)
          : Mirrors.annotations(mirror, "value");
      for (AnnotationMirror query : named) {
        if (name.equals(Mirrors.string(query, "name"))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * A Spring Data query as Hibernate's grammar reads it: {@code #{#entityName}} becomes the
   * entity's name, a SpEL argument ({@code :#{#order.merchantId}}) a named parameter, and the
   * percent signs of {@code like %:name%} are dropped.
   */
  private static String springless(String jpql, Entity domain) {
    String text = jpql;
    if (domain != null) {
      text = ENTITY_NAME.matcher(text).replaceAll(Matcher.quoteReplacement(domain.name));
    }
    Matcher spel = SPEL_ARGUMENT.matcher(text);
    StringBuilder result = new StringBuilder();
    int n = 0;
    while (spel.find()) {
      spel.appendReplacement(result, ":spel" + (++n));
    }
    spel.appendTail(result);
    return LIKE_WILDCARD.matcher(result).replaceAll("$1$2");
  }

  private static String describe(TypeElement type, ExecutableElement method) {
    return type.getSimpleName() + "." + method.getSimpleName();
  }

  private static String capitalize(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }

  private static String uncapitalize(String name) {
    return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }
}
