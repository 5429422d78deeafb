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
import io.shardwise.queryrules.ShardKeyRule;
import io.shardwise.queryrules.ShardKeyRule.Unpinned;
import io.shardwise.processor.EntityModel.Entity;
import java.util.List;
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
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;

/**
 * Finds the JPQL/HQL of a type and holds each query to the {@link ShardKeyRule}: named queries
 * (Jakarta Persistence and Hibernate), {@code @HQL} and {@code @Find} methods, Jakarta Data
 * {@code @Query} methods, and string constants passed to {@code createQuery},
 * {@code createSelectionQuery} or {@code createMutationQuery} in method bodies.
 */
final class QueryChecks {

  private static final Set<String> QUERY_METHODS =
      Set.of("createQuery", "createSelectionQuery", "createMutationQuery");
  private static final Set<String> PESSIMISTIC =
      Set.of("PESSIMISTIC_READ", "PESSIMISTIC_WRITE", "PESSIMISTIC_FORCE_INCREMENT");
  private static final String READ_ONLY_HINT = "org.hibernate.readOnly";
  private static final int QUOTED_LENGTH = 160;

  private final EntityModel model;
  private final ShardKeyRule rule;
  private final Reporter reporter;
  private final Elements elements;
  private final Trees trees;

  QueryChecks(EntityModel model, Reporter reporter, Elements elements, Trees trees) {
    this.model = model;
    this.rule = new ShardKeyRule(model);
    this.reporter = reporter;
    this.elements = elements;
    this.trees = trees;
  }

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
      }
    }
    for (Element element : type.getEnclosedElements()) {
      if (element.getKind() != ElementKind.METHOD) {
        continue;
      }
      ExecutableElement method = (ExecutableElement) element;
      for (String annotation : List.of(Mirrors.HQL, Mirrors.DATA_QUERY)) {
        AnnotationMirror mirror = Mirrors.find(method, annotation);
        if (mirror != null) {
          AnnotationValue value = Mirrors.value(mirror, "value");
          String hql = Mirrors.string(mirror, "value");
          if (hql != null && !permitted(method, null)) {
            checkOnElement(hql, method, mirror, value);
          }
        }
      }
      AnnotationMirror find = Mirrors.find(method, Mirrors.FIND);
      if (find != null && !permitted(method, null)) {
        checkFind(method, find);
      }
    }
  }

  private void checkNamedQuery(TypeElement type, AnnotationMirror outer, AnnotationMirror query) {
    String name = Mirrors.string(query, "name");
    String hql = Mirrors.string(query, "query");
    // A repeated or nested @NamedQuery has no position of its own in the element API (javac
    // puts it on the class); find its annotation tree so that the error lands on its line.
    Located at = outer == query
        ? new Located(type, query, Mirrors.value(query, "query"))
        : new Located(type, outer, Mirrors.value(outer, "value"));
    if (outer != query && trees != null) {
      at.tree = namedQueryTree(type, name);
    }
    checkLockedReadOnly(type, at, query, name);
    if (hql != null && !permitted(type, name)) {
      List<Unpinned> unpinned = rule.check(hql);
      if (unpinned != null) {
        for (Unpinned culprit : unpinned) {
          at.error(Tag.QueryWithoutShardKey, message(hql, culprit));
        }
      }
    }
  }

  /** Where an error about one named query goes: its annotation tree, else its mirror. */
  private final class Located {
    final Element element;
    final AnnotationMirror mirror;
    final AnnotationValue value;
    Tree tree;

    Located(Element element, AnnotationMirror mirror, AnnotationValue value) {
      this.element = element;
      this.mirror = mirror;
      this.value = value;
    }

    void error(Tag tag, String message) {
      if (tree != null) {
        reporter.error(tag, trees, tree, trees.getPath(element).getCompilationUnit(), message);
      } else {
        reporter.error(tag, element, mirror, value, message);
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
      TypeElement type, Located at, AnnotationMirror query, String name) {
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
        if (at.tree == null && at.mirror == query) {
          reporter.error(Tag.LockedReadOnly, type, query, lockMode, message);
        } else {
          at.error(Tag.LockedReadOnly, message);
        }
      }
    }
  }

  private void checkOnElement(
      String hql, Element element, AnnotationMirror mirror, AnnotationValue value) {
    List<Unpinned> unpinned = rule.check(hql);
    if (unpinned == null) {
      return;
    }
    for (Unpinned culprit : unpinned) {
      reporter.error(Tag.QueryWithoutShardKey, element, mirror, value, message(hql, culprit));
    }
  }

  /** {@code @Find}: the finder's parameters must include the shard key, matched by name. */
  private void checkFind(ExecutableElement method, AnnotationMirror find) {
    Entity entity = foundEntity(method.getReturnType());
    if (entity == null || !entity.sharded() || entity.keyMember() == null) {
      return;
    }
    String key = entity.keyMember().name();
    for (VariableElement parameter : method.getParameters()) {
      if (parameter.getSimpleName().contentEquals(key)) {
        return;
      }
    }
    reporter.error(Tag.QueryWithoutShardKey, method, find,
        "@Find method " + method.getSimpleName() + " finds sharded entity "
            + entity.simpleName() + " without its shard key " + key + ", so it would run on"
            + " every shard. Fix: add a parameter named " + key + " (a value, or a list of"
            + " values), or mark the method @ScatterGather to run it on every shard.");
  }

  private Entity foundEntity(TypeMirror type) {
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
  private static boolean permitted(Element element, String queryName) {
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

  static String message(String hql, Unpinned culprit) {
    QueryModel.Entity entity = culprit.entity();
    String key = entity.shardKey();
    String path = culprit.alias() == null ? key : culprit.alias() + "." + key;
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
    if (!QUERY_METHODS.contains(name) || call.getArguments().isEmpty()) {
      return;
    }
    ExpressionTree argument = call.getArguments().get(0);
    Constant constant = new Constant();
    String hql = constant.evaluate(argument, path);
    if (hql == null || constant.scatterGather || permittedAround(path)) {
      return;
    }
    List<Unpinned> unpinned = rule.check(hql);
    if (unpinned == null) {
      return;
    }
    for (Unpinned culprit : unpinned) {
      reporter.error(Tag.QueryWithoutShardKey, trees, argument, unit, message(hql, culprit));
    }
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
      }
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

  private static TypeElement superclass(TypeElement type) {
    TypeMirror superclass = type.getSuperclass();
    return superclass.getKind() == TypeKind.DECLARED
        ? (TypeElement) ((DeclaredType) superclass).asElement()
        : null;
  }

  private List<TypeElement> enclosingTypes(TreePath path) {
    List<TypeElement> result = new java.util.ArrayList<>();
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
