package io.shardwise.processor;

import io.shardwise.queryrules.QueryModel;
import io.shardwise.queryrules.TableModel;
import java.util.Locale;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * What the processor knows about the entities of a compilation: for each {@code @Entity} class its
 * entity name, its {@code @ShardKey} attributes, whether it is a reference table, whom it is
 * co-located with, and where its associations lead. Read from elements only, never by reflection;
 * entities compiled earlier (on the class path) are read the same way, from their class files,
 * when something names them: by class, by qualified name, or by entity name through the
 * {@link EntityIndex}. Every lookup by name is a map lookup; a name is searched for outside this
 * compilation at most once.
 */
final class EntityModel implements QueryModel, TableModel {

  /** One persistent attribute as declared: a field, or a getter of property access. */
  record Member(String name, Element element, TypeMirror type) {

    String describe(Entity owner) {
      return owner.simpleName() + "." + name;
    }
  }

  /** One {@code @Entity} class. */
  final class Entity implements QueryModel.Entity {
    final TypeElement type;
    final String name;
    final List<Member> members;
    final List<Member> shardKeys = new ArrayList<>();
    final AnnotationMirror coLocated;
    final boolean reference;
    private Entity group;
    private boolean groupKnown;

    private Entity(TypeElement type) {
      this.type = type;
      AnnotationMirror entity = Mirrors.find(type, Mirrors.ENTITY);
      String explicit = entity == null ? null : Mirrors.string(entity, "name");
      this.name =
          explicit == null || explicit.isEmpty() ? type.getSimpleName().toString() : explicit;
      this.members = membersOf(type);
      for (Member member : members) {
        if (Mirrors.has(member.element(), Mirrors.SHARD_KEY)) {
          shardKeys.add(member);
        }
      }
      this.coLocated = Mirrors.find(type, Mirrors.CO_LOCATED);
      this.reference = Mirrors.has(type, Mirrors.REFERENCE_TABLE);
    }

    boolean sharded() {
      return !reference && (!shardKeys.isEmpty() || coLocated != null);
    }

    /** The one shard key, or null when there is none or more than one. */
    Member keyMember() {
      return shardKeys.size() == 1 ? shardKeys.get(0) : null;
    }

    /**
     * Whether the shard key is the entity's id: the {@code @Id} may sit on another declaration of
     * the same attribute than the {@code @ShardKey} (a field of a {@code @MappedSuperclass} and an
     * overriding getter, or the superclass's getter).
     */
    boolean keyIsId() {
      Member key = keyMember();
      if (key == null) {
        return false;
      }
      for (Member member : members) {
        if (member.name().equals(key.name()) && Mirrors.has(member.element(), Mirrors.ID)) {
          return true;
        }
      }
      return false;
    }

    /** The key type's name ("long", "String", ...), or null when absent or unsupported. */
    String keyType() {
      Member key = keyMember();
      return key == null ? null : keyTypeName(key.type());
    }

    TypeElement coLocatedWith() {
      return coLocated == null ? null : Mirrors.type(coLocated, "with");
    }

    /**
     * The entity that heads this entity's co-location group: itself when it is not co-located,
     * else the head of the entity it is co-located with. Null when the chain is broken (names
     * a non-entity or runs in a circle), which the model checks report.
     */
    Entity groupHead() {
      if (!groupKnown) {
        group = findGroupHead();
        groupKnown = true;
      }
      return group;
    }

    private Entity findGroupHead() {
      Set<Entity> seen = new LinkedHashSet<>();
      Entity current = this;
      while (current != null && current.coLocated != null) {
        if (!seen.add(current)) {
          return null;
        }
        TypeElement with = current.coLocatedWith();
        current = with == null ? null : entity(with);
      }
      return current;
    }

    /** The entity an association attribute leads to, or null for any other attribute. */
    Entity associationTarget(Member member) {
      TypeElement target = associationTargetType(member);
      return target == null ? null : entity(target);
    }

    Member member(String attribute) {
      for (Member member : members) {
        if (member.name().equals(attribute)) {
          return member;
        }
      }
      return null;
    }

    @Override
    public String simpleName() {
      return type.getSimpleName().toString();
    }

    @Override
    public String shardKey() {
      Member key = keyMember();
      return sharded() && key != null ? key.name() : null;
    }

    @Override
    public Object group() {
      return groupHead();
    }

    @Override
    public boolean hasAttribute(String attribute) {
      return member(attribute) != null;
    }

    @Override
    public Entity associationTarget(String attribute) {
      Member member = member(attribute);
      return member == null ? null : associationTarget(member);
    }

    @Override
    public String identifier() {
      for (Member member : members) {
        if (Mirrors.has(member.element(), Mirrors.ID)) {
          return member.name();
        }
      }
      return null;
    }

    /**
     * The names the entity's table may have, in lower case: {@code @Table(name)}, else the entity
     * name as Hibernate's default naming keeps it and in the snake_case of Spring Boot's default.
     */
    List<String> tableNames() {
      AnnotationMirror table = Mirrors.find(type, Mirrors.TABLE);
      String explicit = table == null ? null : Mirrors.string(table, "name");
      return explicit != null && !explicit.isEmpty() ? List.of(lowerUnquoted(explicit)) : spellings(name);
    }

    /**
     * The foreign key of the first hop of {@code @CoLocated(via)}, for native SQL: a to-one
     * association that owns one join column. Null without {@code via}, or for a hop the model
     * cannot read as a single column (a join table, {@code @JoinColumns}, {@code @MapsId},
     * {@code mappedBy}, a parent without a single id column).
     */
    ParentLink parentLink() {
      // a row with several possible parents follows none of them: which one holds it is per row
      List<String> paths = coLocated == null ? List.of()
          : Mirrors.strings(coLocated, "via").stream().filter(path -> !path.isBlank()).toList();
      String via = paths.size() == 1 ? paths.get(0) : null;
      Member hop = via == null || via.isBlank() ? null : member(via.split("\\.", -1)[0].trim());
      AnnotationMirror association = hop == null ? null : associationAnnotation(hop);
      if (association == null
          || !Mirrors.nameOf(association).equals(Mirrors.MANY_TO_ONE) && !Mirrors.nameOf(association).equals(Mirrors.ONE_TO_ONE)
          || !isEmpty(Mirrors.string(association, "mappedBy"))
          || Mirrors.has(hop.element(), Mirrors.JOIN_COLUMNS) || Mirrors.has(hop.element(), Mirrors.JOIN_TABLE)
          || Mirrors.has(hop.element(), Mirrors.MAPS_ID)) {
        return null;
      }
      Entity parent = associationTarget(hop);
      AnnotationMirror joinColumn = Mirrors.find(hop.element(), Mirrors.JOIN_COLUMN);
      String name = joinColumn == null ? null : Mirrors.string(joinColumn, "name");
      String referenced = joinColumn == null ? null : Mirrors.string(joinColumn, "referencedColumnName");
      List<String> referencedColumns = !isEmpty(referenced) ? List.of(lowerUnquoted(referenced))
          : parent == null ? List.of() : parent.idColumns();
      if (referencedColumns.isEmpty()) {
        return null;
      }
      List<String> foreignKey = new ArrayList<>();
      if (!isEmpty(name)) {
        foreignKey.add(lowerUnquoted(name));
      } else {
        // JPA's default join column: the attribute's name, an underscore, the referenced column's
        for (String attribute : spellings(hop.name())) {
          referencedColumns.forEach(column -> foreignKey.add(attribute + "_" + column));
        }
      }
      return new ParentLink(foreignKey, parent, referencedColumns);
    }

    /** The names the {@code @Id} column may have; empty without exactly one {@code @Id}. */
    private List<String> idColumns() {
      Member id = null;
      for (Member member : members) {
        if (Mirrors.has(member.element(), Mirrors.ID)) {
          if (id != null && !id.name().equals(member.name())) {
            return List.of();
          }
          id = member;
        }
      }
      if (id == null) {
        return List.of();
      }
      AnnotationMirror column = Mirrors.find(id.element(), Mirrors.COLUMN);
      String explicit = column == null ? null : Mirrors.string(column, "name");
      return !isEmpty(explicit) ? List.of(lowerUnquoted(explicit)) : spellings(id.name());
    }

    /** The names the shard key's column may have, as {@link #tableNames()} for the column. */
    List<String> keyColumns() {
      Member key = keyMember();
      if (!sharded() || key == null) {
        return List.of();
      }
      AnnotationMirror column = Mirrors.find(key.element(), Mirrors.COLUMN);
      String explicit = column == null ? null : Mirrors.string(column, "name");
      return explicit != null && !explicit.isEmpty() ? List.of(lowerUnquoted(explicit)) : spellings(key.name());
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static List<String> spellings(String javaName) {
    String lower = javaName.toLowerCase(Locale.ROOT);
    String snake = javaName.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
    return lower.equals(snake) ? List.of(lower) : List.of(lower, snake);
  }

  private static boolean isEmpty(String value) {
    return value == null || value.isEmpty();
  }

  private static String lowerUnquoted(String name) {
    String bare = name.startsWith("\"") && name.endsWith("\"") && name.length() > 1
        ? name.substring(1, name.length() - 1) : name.replace("`", "");
    return bare.toLowerCase(Locale.ROOT);
  }

  /** The entities known so far, by each name their table may have; rebuilt when an entity is added. */
  private Map<String, MappedTable> tables = Map.of();
  private int tablesBuiltFrom = -1;

  /**
   * The entity whose table has this name, among the entities of this compilation and those read
   * so far from the class path. A name two entities may have (one's snake_case form is the other's
   * plain one) maps to neither, so that no table is taken for the wrong entity.
   */
  @Override
  public MappedTable table(String lowerCaseName) {
    if (tablesBuiltFrom != byClass.size()) {
      Map<String, MappedTable> built = new HashMap<>();
      Set<String> clashing = new HashSet<>();
      for (Entity entity : byClass.values()) {
        MappedTable mapped = new MappedTable(entity, entity.keyColumns(), entity.parentLink());
        for (String tableName : entity.tableNames()) {
          if (built.putIfAbsent(tableName, mapped) != null && built.get(tableName).entity() != entity) {
            clashing.add(tableName);
          }
        }
      }
      clashing.forEach(built::remove);
      tables = built;
      tablesBuiltFrom = byClass.size();
    }
    return tables.get(lowerCaseName);
  }

  private static final List<String> ASSOCIATIONS =
      List.of(Mirrors.MANY_TO_ONE, Mirrors.ONE_TO_ONE, Mirrors.ONE_TO_MANY, Mirrors.MANY_TO_MANY);

  private final Elements elements;
  private final Types types;
  private final EntityIndex index;
  /** Every entity read so far, by qualified class name. */
  private final Map<String, Entity> byClass = new HashMap<>();
  /** The entities of this compilation, by entity name. */
  private final Map<String, Entity> compiled = new LinkedHashMap<>();
  /** Entity names resolved outside this compilation (through an index), and their entities. */
  private final Map<String, Entity> elsewhere = new HashMap<>();
  /** Names no lookup could resolve; forgotten when the compilation gains an entity. */
  private final Set<String> unknown = new HashSet<>();
  /** The packages of the entities known so far, where a simple name is looked for last. */
  private final Set<String> entityPackages = new LinkedHashSet<>();

  EntityModel(Elements elements, Types types, EntityIndex index) {
    this.elements = elements;
    this.types = types;
    this.index = index;
  }

  /** Remembers an entity class of this compilation, so that queries can name it. */
  void register(TypeElement type) {
    Entity entity = entity(type);
    if (entity != null && compiled.putIfAbsent(entity.name, entity) == null) {
      entityPackages.add(packageOf(type));
      unknown.clear();
    }
  }

  /** The entities of this compilation: entity name to qualified class name. */
  Map<String, String> compiledEntities() {
    Map<String, String> result = new TreeMap<>();
    compiled.forEach((name, entity) -> result.put(name, entity.type.getQualifiedName().toString()));
    return result;
  }

  /** The entity for an {@code @Entity} class, or null for any other type. */
  Entity entity(TypeElement type) {
    String qualified = type.getQualifiedName().toString();
    Entity known = byClass.get(qualified);
    if (known != null) {
      return known;
    }
    if (!Mirrors.has(type, Mirrors.ENTITY)) {
      return null;
    }
    Entity entity = new Entity(type);
    byClass.put(qualified, entity);
    return entity;
  }

  /**
   * The entity a query names, by entity name or fully qualified class name: an entity of this
   * compilation, a class the compiler can load by that name, or a class an entity index lists for
   * that name (checked to still be an entity of that name). Null if none is.
   */
  @Override
  public Entity entity(String name) {
    Entity entity = compiled.get(name);
    if (entity != null) {
      return entity;
    }
    entity = elsewhere.get(name);
    if (entity != null || unknown.contains(name)) {
      return entity;
    }
    if (name.indexOf('.') > 0) {
      TypeElement type = elements.getTypeElement(name);
      entity = type == null ? null : entity(type);
    } else {
      for (String className : index.classesNamed(name)) {
        entity = named(name, className);
        if (entity != null) {
          break;
        }
      }
    }
    remember(name, entity);
    return entity;
  }

  /**
   * As {@link #entity(String)}, then, for a simple name no index lists, the classes that name
   * would denote in the query's own source file (its imports and package) and in the packages of
   * the entities known so far: how entities on the source path, which have no index, are found.
   */
  Entity entity(String name, Site site) {
    Entity entity = entity(name);
    if (entity != null || name.indexOf('.') >= 0) {
      return entity;
    }
    Set<String> candidates = new LinkedHashSet<>(site.candidates(name));
    for (String pkg : entityPackages) {
      candidates.add(pkg.isEmpty() ? name : pkg + "." + name);
    }
    for (String className : candidates) {
      entity = named(name, className);
      if (entity != null) {
        unknown.remove(name);
        elsewhere.put(name, entity);
        entityPackages.add(packageOf(entity.type));
        return entity;
      }
    }
    return null;
  }

  /** Where a query was written: the qualified names a simple name denotes there, nearest first. */
  interface Site {
    List<String> candidates(String simpleName);
  }

  /** The entity of that class when its entity name is the one asked for, else null. */
  private Entity named(String entityName, String className) {
    TypeElement type = elements.getTypeElement(className);
    Entity entity = type == null ? null : entity(type);
    return entity != null && entity.name.equals(entityName) ? entity : null;
  }

  private void remember(String name, Entity entity) {
    if (entity == null) {
      unknown.add(name);
    } else {
      elsewhere.put(name, entity);
      entityPackages.add(packageOf(entity.type));
    }
  }

  private String packageOf(TypeElement type) {
    return elements.getPackageOf(type).getQualifiedName().toString();
  }

  /** A type as its source declares it, without the package: {@code Long}, {@code long}, {@code UUID}. */
  static String declaredTypeName(TypeMirror type) {
    if (type.getKind() == TypeKind.DECLARED) {
      return ((DeclaredType) type).asElement().getSimpleName().toString();
    }
    return type.toString();
  }

  static String keyTypeName(TypeMirror type) {
    switch (type.getKind()) {
      case LONG:
        return "long";
      case INT:
        return "int";
      case SHORT:
        return "short";
      case DECLARED:
        String name = ((TypeElement) ((DeclaredType) type).asElement()).getQualifiedName().toString();
        switch (name) {
          case "java.lang.Long":
            return "long";
          case "java.lang.Integer":
            return "int";
          case "java.lang.Short":
            return "short";
          case "java.lang.String":
            return "String";
          case "java.util.UUID":
            return "UUID";
          default:
            return null;
        }
      default:
        return null;
    }
  }

  static AnnotationMirror associationAnnotation(Member member) {
    for (String name : ASSOCIATIONS) {
      AnnotationMirror mirror = Mirrors.find(member.element(), name);
      if (mirror != null) {
        return mirror;
      }
    }
    return null;
  }

  private TypeElement associationTargetType(Member member) {
    AnnotationMirror association = associationAnnotation(member);
    if (association == null) {
      return null;
    }
    TypeElement explicit = Mirrors.type(association, "targetEntity");
    if (explicit != null && !explicit.getQualifiedName().contentEquals("void")) {
      return explicit;
    }
    TypeMirror type = member.type();
    if (type.getKind() != TypeKind.DECLARED) {
      return null;
    }
    DeclaredType declared = (DeclaredType) type;
    String kind = Mirrors.nameOf(association);
    if (kind.equals(Mirrors.ONE_TO_MANY) || kind.equals(Mirrors.MANY_TO_MANY)) {
      List<? extends TypeMirror> arguments = declared.getTypeArguments();
      if (arguments.isEmpty()) {
        return null;
      }
      // Collection<E> holds E; Map<K, E> holds E as well.
      type = arguments.get(arguments.size() - 1);
      if (type.getKind() != TypeKind.DECLARED) {
        return null;
      }
      declared = (DeclaredType) type;
    }
    return (TypeElement) declared.asElement();
  }

  /**
   * The attributes of an entity and of its superclasses: non-static fields, and getters (by
   * their property name), in declaration order, subclass first.
   */
  private List<Member> membersOf(TypeElement type) {
    List<Member> result = new ArrayList<>();
    TypeElement current = type;
    while (current != null && !current.getQualifiedName().contentEquals("java.lang.Object")) {
      for (Element element : current.getEnclosedElements()) {
        if (element.getModifiers().contains(Modifier.STATIC)) {
          continue;
        }
        if (element.getKind() == ElementKind.FIELD) {
          result.add(new Member(element.getSimpleName().toString(), element, element.asType()));
        } else if (element.getKind() == ElementKind.METHOD) {
          ExecutableElement method = (ExecutableElement) element;
          String property = propertyName(method);
          if (property != null) {
            result.add(new Member(property, method, method.getReturnType()));
          }
        }
      }
      TypeMirror superclass = current.getSuperclass();
      current =
          superclass.getKind() == TypeKind.DECLARED
              ? (TypeElement) types.asElement(superclass)
              : null;
    }
    return result;
  }

  private static String propertyName(ExecutableElement method) {
    if (!method.getParameters().isEmpty() || method.getReturnType().getKind() == TypeKind.VOID) {
      return null;
    }
    String name = method.getSimpleName().toString();
    if (name.startsWith("get") && name.length() > 3) {
      return decapitalize(name.substring(3));
    }
    if (name.startsWith("is") && name.length() > 2
        && method.getReturnType().getKind() == TypeKind.BOOLEAN) {
      return decapitalize(name.substring(2));
    }
    return null;
  }

  /** The JavaBeans rule: "URL" stays "URL", "MerchantId" becomes "merchantId". */
  private static String decapitalize(String name) {
    if (name.length() > 1 && Character.isUpperCase(name.charAt(0))
        && Character.isUpperCase(name.charAt(1))) {
      return name;
    }
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }
}
