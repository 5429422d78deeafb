package io.shardwise.processor;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BinaryTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import io.shardwise.queryrules.QueryModel;
import io.shardwise.queryrules.NativeSqlRule;
import io.shardwise.queryrules.ShardKeyRule;
import io.shardwise.queryrules.ShardKeyRule.Unpinned;
import io.shardwise.processor.EntityModel.Entity;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.Diagnostic;

/**
 * Finds the JPQL/HQL of a type and holds each query to the {@link ShardKeyRule}: named queries
 * (Jakarta Persistence and Hibernate), {@code @HQL} and {@code @Find} methods, Jakarta Data
 * {@code @Query}, {@code @Find} and {@code @Delete} methods, and string constants passed to
 * {@code createQuery}, {@code createSelectionQuery} or {@code createMutationQuery} in method
 * bodies. Each query is parsed once. A query that names an entity nobody can find, or whose entity
 * comes from a context that gives none, is reported as {@link Tag#UnresolvedEntity} (an error
 * unless the user downgraded it): a check that silently skips a query would be trusted anyway.
 */
final class QueryChecks {

  private static final Set<String> QUERY_METHODS =
      Set.of("createQuery", "createSelectionQuery", "createMutationQuery");
  private static final Set<String> PESSIMISTIC =
      Set.of("PESSIMISTIC_READ", "PESSIMISTIC_WRITE", "PESSIMISTIC_FORCE_INCREMENT");
  private static final String READ_ONLY_HINT = "org.hibernate.readOnly";
  /** What Jakarta Data's {@code @By(By.ID)} stands for: the entity's id. */
  private static final String BY_ID = "id(this)";
  private static final int QUOTED_LENGTH = 160;

  private final EntityModel model;
  private final Reporter reporter;
  private final Elements elements;
  private final Types types;
  private final Trees trees;
  private final RoutingMetadataWriter routing;
  private final Diagnostic.Kind unresolvedKind;
  private final Map<String, Entity> primaryEntities = new HashMap<>();

  QueryChecks(EntityModel model, Reporter reporter, Elements elements, Types types, Trees trees,
      RoutingMetadataWriter routing, Diagnostic.Kind unresolvedKind) {
    this.model = model;
    this.reporter = reporter;
    this.elements = elements;
    this.types = types;
    this.trees = trees;
    this.routing = routing;
    this.unresolvedKind = unresolvedKind;
  }

  /** Where a problem with one query is reported: an annotation (value), or a tree in a body. */
  private interface Position {
    void report(Diagnostic.Kind kind, Tag tag, String message);
  }

  /** One query found in the sources, with what the checks need to know about its context. */
  private record Found(
      String hql,
      String what,
      Element site,
      Entity implicitRoot,
      boolean needsRoot,
      boolean permitted,
      Position at) {}

  /** The queries declared by annotations on a type and its methods (not nested types). */
  void checkAnnotations(TypeElement type) {
    for (AnnotationMirror mirror : type.getAnnotationMirrors()) {
      String name = Mirrors.nameOf(mirror);
      if (name.equals(Mirrors.NAMED_QUERY) || name.equals(Mirrors.HIBERNATE_NAMED_QUERY)) {
        checkNamedQuery(type, mirror, mirror);
      } else if (name.equals(Mirrors.NAMED_QUERIES)
          || name.equals(Mirrors.HIBERNATE_NAMED_QUERIES)) {
        for (AnnotationMirror inner : Mirrors.annotations(mirror, "value")) {
          checkNamedQuery(type, mirror, inner);
        }
      } else if (name.equals(Mirrors.NAMED_NATIVE_QUERY)
          || name.equals(Mirrors.HIBERNATE_NAMED_NATIVE_QUERY)) {
        checkNamedNativeQuery(type, mirror, mirror);
      } else if (name.equals(Mirrors.NAMED_NATIVE_QUERIES)
          || name.equals(Mirrors.HIBERNATE_NAMED_NATIVE_QUERIES)) {
        for (AnnotationMirror inner : Mirrors.annotations(mirror, "value")) {
          checkNamedNativeQuery(type, mirror, inner);
        }
      }
    }
    for (Element element : type.getEnclosedElements()) {
      if (element.getKind() != ElementKind.METHOD) {
        continue;
      }
      ExecutableElement method = (ExecutableElement) element;
      for (String annotation : List.of(Mirrors.HQL, Mirrors.DATA_QUERY)) {
        AnnotationMirror mirror = Mirrors.find(method, annotation);
        String hql = mirror == null ? null : Mirrors.string(mirror, "value");
        if (hql != null) {
          checkRepositoryQuery(type, method, mirror, "value", hql, contextEntity(type, method));
        }
      }
      for (String annotation : List.of(Mirrors.FIND, Mirrors.DATA_FIND, Mirrors.DATA_DELETE)) {
        AnnotationMirror mirror = Mirrors.find(method, annotation);
        if (mirror != null && !permitted(method, null)) {
          checkByParameters(type, method, mirror);
        }
      }
    }
  }

  /**
   * Parses a query once and reports what is wrong with it: names nobody can resolve, a missing
   * FROM clause its context cannot fill, unpinned sharded entities. Returns the analysis (for the
   * routing metadata), or null when the query does not parse, which Hibernate reports.
   */
  private ShardKeyRule.Analysis judge(Found query) {
    ShardKeyRule rule = new ShardKeyRule(name -> model.entity(name, siteOf(query.site())));
    ShardKeyRule.Analysis analysis = rule.analyze(query.hql(), query.implicitRoot());
    if (analysis != null && analysis.insertWithoutKey() != null) {
      // @ScatterGather does not help here: every shard would get rows without their key
      query.at().report(Diagnostic.Kind.ERROR, Tag.InsertWithoutShardKey,
          insertMessage(query.what(), query.hql(), analysis.insertWithoutKey()));
    }
    if (analysis == null || query.permitted()) {
      return analysis;
    }
    for (String name : analysis.unresolved()) {
      query.at().report(unresolvedKind, Tag.UnresolvedEntity,
          query.what() + " names entity " + name + ", which Shardwise cannot find: no @Entity of"
              + " that name or class name is compiled here, listed in an entity index on the"
              + " class path (" + EntityIndex.DIRECTORY + name + "), or visible from this"
              + " file's package and imports; so query \"" + quote(query.hql()) + "\" is not"
              + " checked for its shard key. Fix: correct the name, write the entity's fully"
              + " qualified class name, or compile the module that declares " + name + " with"
              + " shardwise-processor, which writes the index next to its classes."
              + UNRESOLVED_OPTION_HINT);
    }
    if (analysis.rootMissing() && query.needsRoot()) {
      query.at().report(unresolvedKind, Tag.UnresolvedEntity,
          query.what() + " has no FROM clause, and its entity cannot be told: the type it is"
              + " declared in is no Jakarta Data repository of an entity (DataRepository<Entity,"
              + " Id> or a subtype such as CrudRepository) and its return type is no entity;"
              + " so query \"" + quote(query.hql()) + "\" is not checked for its shard key."
              + " Fix: start the query with \"from\" and the entity's name, or declare the"
              + " entity as the repository's type argument." + UNRESOLVED_OPTION_HINT);
    }
    for (Unpinned culprit : analysis.unpinned()) {
      query.at().report(Diagnostic.Kind.ERROR, Tag.QueryWithoutShardKey,
          message(query.hql(), culprit));
    }
    return analysis;
  }

  static String insertMessage(String what, String hql, ShardKeyRule.InsertWithoutKey insert) {
    String key = insert.entity().shardKey();
    return what + " inserts into sharded entity " + insert.entity().simpleName() + " but "
        + insert.problem() + " (query \"" + quote(hql) + "\"): its rows would get a null or"
        + " unrelated shard key and sit on a shard their key does not route to, where lookups by"
        + " key never look. Fix: write " + key + " among the inserted attributes, from a"
        + " parameter (:" + key + ") or from the key of the rows the insert selects (select x."
        + key + ", ...).";
  }

  /**
   * The JPQL/HQL an annotation of a repository method holds ({@code @HQL}, Jakarta Data's
   * {@code @Query}, Spring Data's {@code @Query} value or count query), held to the rule like every
   * other query; {@code domain} stands in for a missing FROM clause.
   */
  void checkRepositoryQuery(TypeElement type, ExecutableElement method, AnnotationMirror mirror,
      String member, String hql, Entity domain) {
    AnnotationValue value = Mirrors.value(mirror, member);
    String what = "@" + mirror.getAnnotationType().asElement().getSimpleName() + " method "
        + type.getSimpleName() + "." + method.getSimpleName();
    judge(new Found(hql, what, method, domain, true,
        permitted(method, null) || permitted(type, null),
        (kind, tag, message) -> reporter.report(kind, tag, method, mirror, value, message)));
  }

  static final String UNRESOLVED_OPTION_HINT =
      " (-A" + ShardwiseProcessor.UNRESOLVED_ENTITY_OPTION + "=warning reports this as a"
          + " warning.)";

  private void checkNamedQuery(TypeElement type, AnnotationMirror outer, AnnotationMirror query) {
    String name = Mirrors.string(query, "name");
    String hql = Mirrors.string(query, "query");
    // A repeated or nested @NamedQuery has no position of its own in the element API (javac
    // puts it on the class); its annotation tree, found when needed, puts the error on its line.
    Located at = outer == query
        ? new Located(type, query, Mirrors.value(query, "query"), null)
        : new Located(type, outer, Mirrors.value(outer, "value"), name);
    checkLockedReadOnly(type, at, outer == query, query, name);
    if (hql == null) {
      return;
    }
    TypeElement resultClass = Mirrors.type(query, "resultClass");
    ShardKeyRule.Analysis analysis = judge(new Found(hql, "Named query " + name, type,
        resultClass == null ? null : model.entity(resultClass), false, permitted(type, name),
        at::report));
    if (analysis != null && analysis.keyParameter() != null && name != null
        && model.entity(type) != null) {
      routing.addQueryParameter(name, analysis.keyParameter());
    }
  }

  private void checkNamedNativeQuery(TypeElement type, AnnotationMirror outer, AnnotationMirror query) {
    String name = Mirrors.string(query, "name");
    String sql = Mirrors.string(query, "query");
    if (sql == null) {
      return;
    }
    Located at = outer == query
        ? new Located(type, query, Mirrors.value(query, "query"), null)
        : new Located(type, outer, Mirrors.value(outer, "value"), name);
    judgeNative(sql, "Named native query " + name, type, permitted(type, name), at::report);
  }

  /**
   * A native SQL query as a repository method's annotation holds it (Spring Data's
   * {@code @Query(nativeQuery = true)} or {@code @NativeQuery}).
   */
  void checkNativeRepositoryQuery(TypeElement type, ExecutableElement method, AnnotationMirror mirror,
      String sql, boolean permitted) {
    AnnotationValue value = Mirrors.value(mirror, "value");
    String what = "Native query method " + type.getSimpleName() + "." + method.getSimpleName();
    judgeNative(sql, what, method, permitted,
        (kind, tag, message) -> reporter.report(kind, tag, method, mirror, value, message));
  }

  /**
   * Reads native SQL with {@link NativeSqlRule} and reports as for JPQL: each sharded table whose
   * key column nothing pins is a {@link Tag#QueryWithoutShardKey} (unless {@code permitted}), an
   * insert that does not write the key an {@link Tag#InsertWithoutShardKey} (whatever permits);
   * SQL the parser cannot read, and SQL that names only tables no entity is stored in, a
   * {@link Tag#NativeQueryUnchecked} warning that names what it could not judge.
   */
  private void judgeNative(String sql, String what, Element site, boolean permitted, Position at) {
    NativeSqlRule.Analysis analysis = new NativeSqlRule(model).analyze(sql);
    if (analysis.insertWithoutKey() != null) {
      NativeSqlRule.InsertWithoutKey insert = analysis.insertWithoutKey();
      String key = insert.table().keyColumn();
      at.report(Diagnostic.Kind.ERROR, Tag.InsertWithoutShardKey, what + " inserts into the table of"
          + " sharded entity " + insert.table().entity().simpleName() + " but " + insert.problem()
          + " (query \"" + quote(sql) + "\"): its rows would get a null or unrelated shard key and sit"
          + " on a shard their key does not route to. Fix: write " + key + " among the inserted"
          + " columns, from a parameter (:" + key + ") or from the key of the rows the insert selects.");
    }
    if (permitted) {
      return;
    }
    boolean warn = !suppressed(site);
    if (analysis.unreadable() != null) {
      if (warn) {
        at.report(Diagnostic.Kind.WARNING, Tag.NativeQueryUnchecked, what + " is SQL that Shardwise's"
            + " parser cannot read (" + analysis.unreadable() + "), so query \"" + quote(sql) + "\" is"
            + " not checked for its shard key and runs on the session's shard only. Fix: check by hand"
            + " that it compares the key column of every sharded table with = or IN, then mark it"
            + " @SuppressWarnings(\"" + Tag.NativeQueryUnchecked + "\"); mark it @ScatterGather if it is"
            + " meant to run on every shard.");
      }
      return;
    }
    for (NativeSqlRule.UnpinnedTable culprit : analysis.unpinned()) {
      String column = (culprit.alias() == null ? "" : culprit.alias() + ".") + culprit.table().keyColumn();
      at.report(Diagnostic.Kind.ERROR, Tag.QueryWithoutShardKey, what + " reads table "
          + culprit.describe() + " of sharded entity " + culprit.table().entity().simpleName()
          + " without pinning its key column " + culprit.table().keyColumn() + " (query \""
          + quote(sql) + "\"): on every branch of its WHERE and ON conditions, " + column + " must be"
          + " compared with = or IN to a parameter or literal, or equal the key column of a pinned"
          + " table of its co-location group; otherwise it runs on the session's shard only and"
          + " misses the rows on the others. Fix: add \"" + column + " = :"
          + culprit.table().entity().shardKey() + "\", or mark the query @ScatterGather to run it on"
          + " every shard.");
    }
    if (warn && analysis.unpinned().isEmpty() && !analysis.pinsAny() && !analysis.unknownTables().isEmpty()) {
      at.report(Diagnostic.Kind.WARNING, Tag.NativeQueryUnchecked, what + " names only tables that no"
          + " entity Shardwise knows is stored in (" + String.join(", ", analysis.unknownTables())
          + "), so query \"" + quote(sql) + "\" is not checked for its shard key. Fix: if a table holds"
          + " sharded rows (a join or collection table), compare its key column with = or IN, or join"
          + " the owning entity's table and pin its key; then mark the query @SuppressWarnings(\""
          + Tag.NativeQueryUnchecked + "\"). A table named by @Table(name) or by Hibernate's naming"
          + " (UserEntity: userentity or user_entity) is recognised.");
    }
  }

  /** {@code @SuppressWarnings("NativeQueryUnchecked")} on the element or around it. */
  static boolean suppressed(Element element) {
    for (Element e = element; e != null && !(e instanceof PackageElement); e = e.getEnclosingElement()) {
      AnnotationMirror suppress = Mirrors.find(e, "java.lang.SuppressWarnings");
      if (suppress != null && Mirrors.strings(suppress, "value").contains(Tag.NativeQueryUnchecked.name())) {
        return true;
      }
    }
    return false;
  }

  /** Where an error about one named query goes: its annotation tree, else its mirror. */
  private final class Located {
    final Element element;
    final AnnotationMirror mirror;
    final AnnotationValue value;
    final String nestedName;
    Tree tree;

    Located(Element element, AnnotationMirror mirror, AnnotationValue value, String nestedName) {
      this.element = element;
      this.mirror = mirror;
      this.value = value;
      this.nestedName = nestedName;
    }

    void report(Diagnostic.Kind kind, Tag tag, String message) {
      if (tree == null && nestedName != null && trees != null) {
        tree = namedQueryTree((TypeElement) element, nestedName);
      }
      if (tree != null) {
        reporter.report(kind, tag, trees, tree, trees.getPath(element).getCompilationUnit(),
            message);
      } else {
        reporter.report(kind, tag, element, mirror, value, message);
      }
    }
  }

  private Tree namedQueryTree(TypeElement type, String name) {
    TreePath path = trees.getPath(type);
    if (path == null || name == null || !(path.getLeaf() instanceof ClassTree)) {
      return null;
    }
    Tree[] found = new Tree[1];
    new com.sun.source.util.TreeScanner<Void, Void>() {
      @Override
      public Void visitAnnotation(AnnotationTree annotation, Void unused) {
        for (ExpressionTree argument : annotation.getArguments()) {
          if (argument instanceof AssignmentTree
              && ((AssignmentTree) argument).getVariable().toString().equals("name")
              && ((AssignmentTree) argument).getExpression() instanceof LiteralTree
              && name.equals(
                  ((LiteralTree) ((AssignmentTree) argument).getExpression()).getValue())
              && found[0] == null) {
            found[0] = annotation;
          }
        }
        return super.visitAnnotation(annotation, unused);
      }
    }.scan(((ClassTree) path.getLeaf()).getModifiers(), null);
    return found[0];
  }

  private void checkLockedReadOnly(
      TypeElement type, Located at, boolean direct, AnnotationMirror query, String name) {
    AnnotationValue lockMode = Mirrors.value(query, "lockMode");
    if (lockMode == null || !(lockMode.getValue() instanceof VariableElement)) {
      return;
    }
    String mode = ((VariableElement) lockMode.getValue()).getSimpleName().toString();
    if (!PESSIMISTIC.contains(mode)) {
      return;
    }
    for (AnnotationMirror hint : Mirrors.annotations(query, "hints")) {
      if (READ_ONLY_HINT.equals(Mirrors.string(hint, "name"))
          && "true".equalsIgnoreCase(String.valueOf(Mirrors.string(hint, "value")).trim())) {
        String message =
            "Named query " + name + " takes lock mode " + mode + " but is hinted read-only ("
                + READ_ONLY_HINT + "); a read-only query may be served by a replica, where rows"
                + " cannot be locked. Fix: drop the read-only hint, or the pessimistic lock.";
        if (direct) {
          reporter.error(Tag.LockedReadOnly, type, query, lockMode, message);
        } else {
          at.report(Diagnostic.Kind.ERROR, Tag.LockedReadOnly, message);
        }
      }
    }
  }

  /**
   * The entity a query without FROM clause reads in a repository method: the primary entity of
   * a Jakarta Data repository (the first type argument of {@code DataRepository}, through
   * {@code BasicRepository}, {@code CrudRepository} or the user's own subtypes), else the entity
   * the method returns. Null when neither gives one.
   */
  private Entity contextEntity(TypeElement type, ExecutableElement method) {
    Entity primary = primaryEntity(type);
    return primary != null ? primary : foundEntity(method.getReturnType());
  }

  private Entity primaryEntity(TypeElement repository) {
    String key = repository.getQualifiedName().toString();
    if (primaryEntities.containsKey(key)) {
      return primaryEntities.get(key);
    }
    Entity primary = typeArgumentEntity(supertypeNamed(repository, Mirrors.DATA_REPOSITORY));
    primaryEntities.put(key, primary);
    return primary;
  }

  /**
   * The supertype of a type that has this qualified name, reached through the type hierarchy with
   * the type arguments of each step substituted ({@code CrudRepository<PurchaseOrder, Long>} gives
   * {@code DataRepository<PurchaseOrder, Long>}); null when the type has no such supertype.
   */
  DeclaredType supertypeNamed(TypeElement type, String qualifiedName) {
    Deque<TypeMirror> pending = new ArrayDeque<>(List.of(type.asType()));
    Set<String> seen = new HashSet<>();
    while (!pending.isEmpty()) {
      for (TypeMirror supertype : types.directSupertypes(pending.poll())) {
        if (supertype.getKind() != TypeKind.DECLARED) {
          continue;
        }
        DeclaredType declared = (DeclaredType) supertype;
        TypeElement element = (TypeElement) declared.asElement();
        if (element.getQualifiedName().contentEquals(qualifiedName)) {
          return declared;
        }
        if (seen.add(element.getQualifiedName().toString())) {
          pending.add(supertype);
        }
      }
    }
    return null;
  }

  /** The entity a repository type's first type argument is, or null. */
  Entity typeArgumentEntity(DeclaredType repository) {
    if (repository == null) {
      return null;
    }
    List<? extends TypeMirror> arguments = repository.getTypeArguments();
    return !arguments.isEmpty() && arguments.get(0).getKind() == TypeKind.DECLARED
        ? model.entity((TypeElement) ((DeclaredType) arguments.get(0)).asElement())
        : null;
  }

  /**
   * {@code @Find} (Hibernate's or Jakarta Data's) and Jakarta Data's parameter-based
   * {@code @Delete}: the method's parameters are its WHERE clause, so they must include the shard
   * key, matched by name or by Jakarta Data's {@code @By}.
   */
  private void checkByParameters(
      TypeElement type, ExecutableElement method, AnnotationMirror annotation) {
    boolean delete = Mirrors.nameOf(annotation).equals(Mirrors.DATA_DELETE);
    String verb = delete ? "deletes" : "finds";
    String what = "@" + annotation.getAnnotationType().asElement().getSimpleName() + " method "
        + method.getSimpleName();
    Entity entity;
    if (delete) {
      for (VariableElement parameter : method.getParameters()) {
        if (foundEntity(parameter.asType()) != null) {
          return; // deletes the entities it is given: each is routed by its own key
        }
      }
      entity = primaryEntity(type);
    } else {
      TypeElement explicit = Mirrors.type(annotation, "value");
      entity = explicit != null ? model.entity(explicit) : foundEntity(method.getReturnType());
    }
    if (entity == null) {
      reporter.report(unresolvedKind, Tag.UnresolvedEntity, method, annotation, null,
          what + " " + verb + " " + (delete ? "the entities of its repository" : "what it returns,"
              + " " + method.getReturnType()) + ", but Shardwise cannot tell which entity that"
              + " is, so its parameters are not checked for the shard key. Fix: "
              + (delete ? "declare the entity as the repository's type argument"
                  + " (CrudRepository<Entity, Id>)"
                  : "return the entity, or a List, Optional, Stream or Page of it")
              + "." + UNRESOLVED_OPTION_HINT);
      return;
    }
    if (!entity.sharded() || entity.keyMember() == null) {
      return;
    }
    String key = entity.keyMember().name();
    boolean keyIsId = entity.keyIsId();
    for (VariableElement parameter : method.getParameters()) {
      AnnotationMirror by = Mirrors.find(parameter, Mirrors.DATA_BY);
      String attribute = by == null ? parameter.getSimpleName().toString()
          : Mirrors.string(by, "value");
      if (key.equals(attribute) || keyIsId && BY_ID.equals(attribute)) {
        return;
      }
    }
    reporter.error(Tag.QueryWithoutShardKey, method, annotation,
        what + " " + verb + " sharded entity " + entity.simpleName() + " without its shard key "
            + key + ", so it would run on every shard. Fix: add a parameter named " + key
            + " (a value, or a list of values), or mark the method @ScatterGather to run it on"
            + " every shard.");
  }

  /** The entity a type is, or holds: {@code E}, {@code E[]}, {@code List<E>}, {@code Optional<E>}. */
  private Entity foundEntity(TypeMirror type) {
    if (type.getKind() == TypeKind.ARRAY) {
      return foundEntity(((ArrayType) type).getComponentType());
    }
    if (type.getKind() != TypeKind.DECLARED) {
      return null;
    }
    DeclaredType declared = (DeclaredType) type;
    Entity entity = model.entity((TypeElement) declared.asElement());
    if (entity != null) {
      return entity;
    }
    List<? extends TypeMirror> arguments = declared.getTypeArguments();
    return arguments.size() == 1 ? foundEntity(arguments.get(0)) : null;
  }

  /** {@code @ScatterGather} on the element or around it, naming this query or naming none. */
  static boolean permitted(Element element, String queryName) {
    for (Element e = element; e != null && !(e instanceof PackageElement);
        e = e.getEnclosingElement()) {
      AnnotationMirror scatter = Mirrors.find(e, Mirrors.SCATTER_GATHER);
      if (scatter != null) {
        List<String> queries = Mirrors.strings(scatter, "queries");
        if (queries.isEmpty() || queryName != null && queries.contains(queryName)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The names a simple name denotes in the source file of an element, nearest first: single-type
   * imports, the file's package, on-demand imports. Read only when no index resolves a name.
   */
  private EntityModel.Site siteOf(Element element) {
    return simpleName -> {
      List<String> candidates = new ArrayList<>();
      CompilationUnitTree unit = null;
      if (trees != null) {
        TreePath path = trees.getPath(element);
        unit = path == null ? null : path.getCompilationUnit();
      }
      if (unit != null) {
        for (ImportTree imported : unit.getImports()) {
          String text = imported.getQualifiedIdentifier().toString();
          if (!imported.isStatic() && text.endsWith("." + simpleName)) {
            candidates.add(text);
          }
        }
      }
      String pkg = elements.getPackageOf(element).getQualifiedName().toString();
      candidates.add(pkg.isEmpty() ? simpleName : pkg + "." + simpleName);
      if (unit != null) {
        for (ImportTree imported : unit.getImports()) {
          String text = imported.getQualifiedIdentifier().toString();
          if (!imported.isStatic() && text.endsWith(".*")) {
            candidates.add(text.substring(0, text.length() - 1) + simpleName);
          }
        }
      }
      return candidates;
    };
  }

  static String message(String hql, Unpinned culprit) {
    QueryModel.Entity entity = culprit.entity();
    String key = entity.shardKey();
    String path = culprit.alias() == null ? key : culprit.alias() + "." + key;
    if (culprit.crossesGroups()) {
      return "Query \"" + quote(hql) + "\" joins sharded entity " + culprit.describe()
          + " with " + culprit.otherGroup().describe() + ", which belongs to another co-location"
          + " group, without pinning " + path + ": their rows may live on different shards, and"
          + " scatter-gather cannot join across groups. Fix: add \"" + path + " = :" + key
          + "\" as well (Shardwise then checks at run time that both keys route to the same"
          + " shard), or split the query into one per co-location group.";
    }
    return "Query \"" + quote(hql) + "\" uses sharded entity " + culprit.describe()
        + " without pinning its shard key " + key + ": on every branch of the WHERE clause, "
        + path + " must be compared with = or IN to a parameter or literal, so the query"
        + " would run on every shard. Fix: add \"" + path + " = :" + key + "\" to the WHERE"
        + " clause, or mark the query @ScatterGather to run it on every shard.";
  }

  private static String quote(String hql) {
    String flat = hql.strip().replaceAll("\\s+", " ");
    return flat.length() <= QUOTED_LENGTH ? flat : flat.substring(0, QUOTED_LENGTH - 3) + "...";
  }

  /** String constants passed to createQuery and its siblings in the bodies of a top-level type. */
  void checkBodies(TypeElement type) {
    if (trees == null) {
      return;
    }
    TreePath path = trees.getPath(type);
    if (path == null) {
      return;
    }
    CompilationUnitTree unit = path.getCompilationUnit();
    new TreePathScanner<Void, Void>() {
      @Override
      public Void visitMethodInvocation(MethodInvocationTree call, Void unused) {
        checkCall(call, getCurrentPath(), unit);
        return super.visitMethodInvocation(call, unused);
      }
    }.scan(path, null);
  }

  private void checkCall(MethodInvocationTree call, TreePath path, CompilationUnitTree unit) {
    ExpressionTree select = call.getMethodSelect();
    String name = select instanceof MemberSelectTree
        ? ((MemberSelectTree) select).getIdentifier().toString()
        : select instanceof IdentifierTree ? ((IdentifierTree) select).getName().toString() : "";
    boolean nativeSql = name.equals("createNativeQuery");
    if (!QUERY_METHODS.contains(name) && !nativeSql || call.getArguments().isEmpty()) {
      return;
    }
    ExpressionTree argument = call.getArguments().get(0);
    Constant constant = new Constant();
    String hql = constant.evaluate(argument, path);
    if (hql == null || constant.scatterGather || permittedAround(path)) {
      return;
    }
    Element site = enclosingDeclaration(path);
    String what = name + " in " + describe(site);
    if (nativeSql) {
      judgeNative(hql, what, site, false,
          (kind, tag, message) -> reporter.report(kind, tag, trees, argument, unit, message));
      return;
    }
    judge(new Found(hql, what, site, resultEntity(call, path), false, false,
        (kind, tag, message) -> reporter.report(kind, tag, trees, argument, unit, message)));
  }

  /**
   * The entity of {@code createQuery(hql, Entity.class)}: Hibernate reads it as the root of a
   * query without FROM clause. Null when the second argument is not a class literal of an entity.
   */
  private Entity resultEntity(MethodInvocationTree call, TreePath path) {
    if (call.getArguments().size() < 2
        || !(call.getArguments().get(1) instanceof MemberSelectTree)) {
      return null;
    }
    MemberSelectTree literal = (MemberSelectTree) call.getArguments().get(1);
    if (!literal.getIdentifier().contentEquals("class")) {
      return null;
    }
    TypeElement type = resolveType(literal.getExpression().toString(), path);
    return type == null ? null : model.entity(type);
  }

  /** The method (or, outside one, the type) whose body holds a tree. */
  private Element enclosingDeclaration(TreePath path) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof MethodTree || p.getLeaf() instanceof ClassTree) {
        Element element = trees.getElement(p);
        if (element != null) {
          return element;
        }
      }
    }
    return null;
  }

  private static String describe(Element element) {
    if (element instanceof TypeElement) {
      return ((TypeElement) element).getQualifiedName().toString();
    }
    Element owner = element.getEnclosingElement();
    return (owner instanceof TypeElement ? ((TypeElement) owner).getSimpleName() + "." : "")
        + element.getSimpleName();
  }

  private boolean permittedAround(TreePath path) {
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      Tree leaf = p.getLeaf();
      if (leaf instanceof MethodTree || leaf instanceof ClassTree
          || leaf instanceof VariableTree) {
        Element element = trees.getElement(p);
        if (element != null && Mirrors.has(element, Mirrors.SCATTER_GATHER)) {
          AnnotationMirror scatter = Mirrors.find(element, Mirrors.SCATTER_GATHER);
          if (Mirrors.strings(scatter, "queries").isEmpty()) {
            return true;
          }
        }
        if (element instanceof ExecutableElement && permittedOverridden((ExecutableElement) element)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether a method implements or overrides one that {@code @ScatterGather} permits (on the
   * method or its type): the methods hibernate-processor generates for a Jakarta Data repository
   * ({@code Orders_}) run the query of the interface method they implement, and keep its mark.
   */
  private boolean permittedOverridden(ExecutableElement method) {
    if (!(method.getEnclosingElement() instanceof TypeElement)) {
      return false;
    }
    TypeElement owner = (TypeElement) method.getEnclosingElement();
    List<TypeMirror> pending = new ArrayList<>(types.directSupertypes(owner.asType()));
    Set<String> seen = new HashSet<>();
    while (!pending.isEmpty()) {
      TypeMirror supertype = pending.remove(pending.size() - 1);
      Element element = types.asElement(supertype);
      if (!(element instanceof TypeElement)
          || !seen.add(((TypeElement) element).getQualifiedName().toString())) {
        continue;
      }
      for (Element member : element.getEnclosedElements()) {
        if (member.getKind() == ElementKind.METHOD
            && member.getSimpleName().contentEquals(method.getSimpleName())
            && elements.overrides(method, (ExecutableElement) member, owner)
            && permitted(member, null)) {
          return true;
        }
      }
      pending.addAll(types.directSupertypes(supertype));
    }
    return false;
  }

  /**
   * The value of a compile-time constant string expression, evaluated on the unattributed tree:
   * literals (text blocks included), {@code +} of constants, and names of constant fields or of
   * {@code final} locals with a constant initialiser. Null for anything else.
   */
  private final class Constant {
    boolean scatterGather;

    String evaluate(ExpressionTree tree, TreePath path) {
      if (tree instanceof LiteralTree) {
        Object value = ((LiteralTree) tree).getValue();
        return value == null ? null : String.valueOf(value);
      }
      if (tree instanceof ParenthesizedTree) {
        return evaluate(((ParenthesizedTree) tree).getExpression(), path);
      }
      if (tree instanceof BinaryTree && tree.getKind() == Tree.Kind.PLUS) {
        String left = evaluate(((BinaryTree) tree).getLeftOperand(), path);
        String right = left == null ? null : evaluate(((BinaryTree) tree).getRightOperand(), path);
        return right == null ? null : left + right;
      }
      if (tree instanceof IdentifierTree) {
        String name = ((IdentifierTree) tree).getName().toString();
        String local = local(name, path);
        return local != null ? local : field(enclosingTypes(path), name);
      }
      if (tree instanceof MemberSelectTree) {
        MemberSelectTree member = (MemberSelectTree) tree;
        TypeElement owner = resolveType(member.getExpression().toString(), path);
        return owner == null ? null : field(List.of(owner), member.getIdentifier().toString());
      }
      return null;
    }

    private String local(String name, TreePath path) {
      for (TreePath p = path; p != null; p = p.getParentPath()) {
        if (p.getLeaf() instanceof BlockTree) {
          for (StatementTree statement : ((BlockTree) p.getLeaf()).getStatements()) {
            if (statement instanceof VariableTree) {
              VariableTree variable = (VariableTree) statement;
              if (variable.getName().contentEquals(name)
                  && variable.getModifiers().getFlags().contains(Modifier.FINAL)
                  && variable.getInitializer() != null) {
                return evaluate(variable.getInitializer(), p);
              }
            }
          }
        }
        if (p.getLeaf() instanceof ClassTree) {
          return null;
        }
      }
      return null;
    }

    private String field(List<TypeElement> owners, String name) {
      for (TypeElement owner : owners) {
        for (TypeElement t = owner; t != null; t = superclass(t)) {
          for (Element element : t.getEnclosedElements()) {
            if (element.getKind() == ElementKind.FIELD
                && element.getSimpleName().contentEquals(name)) {
              Object value = ((VariableElement) element).getConstantValue();
              if (value instanceof String) {
                scatterGather |= Mirrors.has(element, Mirrors.SCATTER_GATHER);
                return (String) value;
              }
              return null;
            }
          }
        }
      }
      return null;
    }
  }

  static TypeElement superclass(TypeElement type) {
    TypeMirror superclass = type.getSuperclass();
    return superclass.getKind() == TypeKind.DECLARED
        ? (TypeElement) ((DeclaredType) superclass).asElement()
        : null;
  }

  private List<TypeElement> enclosingTypes(TreePath path) {
    List<TypeElement> result = new ArrayList<>();
    for (TreePath p = path; p != null; p = p.getParentPath()) {
      if (p.getLeaf() instanceof ClassTree) {
        Element element = trees.getElement(p);
        if (element instanceof TypeElement) {
          result.add((TypeElement) element);
        }
      }
    }
    return result;
  }

  /** A type named in source: qualified, nested in an enclosing type, imported, or same package. */
  private TypeElement resolveType(String name, TreePath path) {
    TypeElement direct = elements.getTypeElement(name);
    if (direct != null) {
      return direct;
    }
    String first = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
    String rest = name.substring(first.length());
    for (TypeElement enclosing : enclosingTypes(path)) {
      for (Element element : enclosing.getEnclosedElements()) {
        if (element instanceof TypeElement && element.getSimpleName().contentEquals(first)) {
          TypeElement found = elements.getTypeElement(
              ((TypeElement) element).getQualifiedName() + rest);
          if (found != null) {
            return found;
          }
        }
      }
      if (enclosing.getSimpleName().contentEquals(first)) {
        TypeElement found = elements.getTypeElement(enclosing.getQualifiedName() + rest);
        if (found != null) {
          return found;
        }
      }
    }
    CompilationUnitTree unit = path.getCompilationUnit();
    for (ImportTree imported : unit.getImports()) {
      String text = imported.getQualifiedIdentifier().toString();
      if (!imported.isStatic() && text.endsWith("." + first)) {
        TypeElement found = elements.getTypeElement(text + rest);
        if (found != null) {
          return found;
        }
      }
    }
    String pkg = unit.getPackageName() == null ? "" : unit.getPackageName() + ".";
    TypeElement found = elements.getTypeElement(pkg + name);
    return found != null ? found : elements.getTypeElement("java.lang." + name);
  }
}
