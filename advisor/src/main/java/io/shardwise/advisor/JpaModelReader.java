package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.advisor.JpaModel.Entity;
import io.shardwise.advisor.JpaModel.Kind;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JPA mappings from compiled classes by reflection. Annotations are matched by name
 * ({@code jakarta.persistence} or {@code javax.persistence}) and read reflectively, so the
 * application's own copy of the API may sit in any class loader. Field access is read (the
 * attributes of the entity and its {@code @MappedSuperclass}es); Spring Data repository
 * interfaces contribute their {@code @Query} strings and derived finder names.
 */
final class JpaModelReader {
  private static final String[] PERSISTENCE = {"jakarta.persistence.", "javax.persistence."};
  private static final String SPRING_QUERY = "org.springframework.data.jpa.repository.Query";
  private static final String SPRING_DATA = "org.springframework.data.";

  private JpaModelReader() {}

  static JpaModel read(List<Class<?>> classes) {
    JpaModel model = new JpaModel();
    List<Class<?>> entities = new ArrayList<>();
    for (Class<?> type : classes) {
      if (jpa(type, "Entity") != null) {
        entities.add(type);
      }
    }
    for (Class<?> type : entities) {
      model.add(entity(type));
    }
    for (Class<?> type : entities) {
      Entity entity = model.entity(type.getName());
      for (Annotation query : repeated(type, "NamedQuery", "NamedQueries")) {
        model.addQuery(entity, new DeclaredQuery(string(query, "name"), string(query, "query"), false, null));
      }
      for (Annotation query : repeated(type, "NamedNativeQuery", "NamedNativeQueries")) {
        model.addQuery(entity, new DeclaredQuery(string(query, "name"), string(query, "query"), true, null));
      }
    }
    for (Class<?> type : classes) {
      if (type.isInterface()) {
        repository(model, type);
      }
    }
    return model;
  }

  private static Entity entity(Class<?> type) {
    Annotation entityAnnotation = jpa(type, "Entity");
    String name = string(entityAnnotation, "name");
    if (name == null || name.isEmpty()) {
      name = type.getSimpleName();
    }
    Annotation table = jpa(type, "Table");
    String tableName = table == null ? null : string(table, "name");
    if (tableName == null || tableName.isEmpty()) {
      tableName = name;
    }
    Map<String, Attribute> attributes = new LinkedHashMap<>();
    Attribute id = null;
    List<Class<?>> hierarchy = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      if (c == type || jpa(c, "MappedSuperclass") != null || jpa(c, "Entity") != null) {
        hierarchy.add(0, c);
      }
    }
    for (Class<?> c : hierarchy) {
      for (Field field : c.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) || Modifier.isTransient(field.getModifiers())
            || jpa(field, "Transient") != null) {
          continue;
        }
        Attribute attribute = attribute(field);
        attributes.put(attribute.name(), attribute);
        if (jpa(field, "Id") != null || jpa(field, "EmbeddedId") != null) {
          id = attribute;
        }
      }
    }
    return new Entity(type.getName(), name, tableName, id, attributes);
  }

  private static Attribute attribute(Field field) {
    String name = field.getName();
    Annotation joinColumn = jpa(field, "JoinColumn");
    String joinColumnName = joinColumn == null ? null : emptyToNull(string(joinColumn, "name"));
    for (String toOne : List.of("ManyToOne", "OneToOne")) {
      Annotation association = jpa(field, toOne);
      if (association != null) {
        String mappedBy = toOne.equals("OneToOne") ? emptyToNull(string(association, "mappedBy")) : null;
        Class<?> target = explicitTarget(association, field.getType());
        boolean mandatory = Boolean.FALSE.equals(value(association, "optional"))
            || joinColumn != null && Boolean.FALSE.equals(value(joinColumn, "nullable"));
        return new Attribute(name, Kind.TO_ONE, target, target.getName(),
            mappedBy != null ? null : joinColumnName != null ? joinColumnName : name + "_id", mappedBy,
            toOne.equals("OneToOne"), mandatory);
      }
    }
    Annotation oneToMany = jpa(field, "OneToMany");
    if (oneToMany != null) {
      String mappedBy = emptyToNull(string(oneToMany, "mappedBy"));
      return new Attribute(name, Kind.ONE_TO_MANY, field.getType(), elementType(oneToMany, field).getName(),
          mappedBy == null ? joinColumnName : null, mappedBy, false, false);
    }
    Annotation manyToMany = jpa(field, "ManyToMany");
    if (manyToMany != null) {
      return new Attribute(name, Kind.MANY_TO_MANY, field.getType(), elementType(manyToMany, field).getName(),
          null, emptyToNull(string(manyToMany, "mappedBy")), false, false);
    }
    Annotation column = jpa(field, "Column");
    String columnName = column == null ? null : emptyToNull(string(column, "name"));
    boolean unique = column != null && Boolean.TRUE.equals(value(column, "unique"))
        || jpa(field, "Id") != null || annotation(field, "org.hibernate.annotations.NaturalId") != null;
    boolean mandatory = field.getType().isPrimitive() || jpa(field, "Id") != null
        || column != null && Boolean.FALSE.equals(value(column, "nullable"));
    return new Attribute(name, Kind.BASIC, field.getType(), null, columnName != null ? columnName : name, null,
        unique, mandatory);
  }

  private static Class<?> explicitTarget(Annotation association, Class<?> declared) {
    Object target = value(association, "targetEntity");
    return target instanceof Class<?> c && c != void.class ? c : declared;
  }

  private static Class<?> elementType(Annotation association, Field field) {
    Object target = value(association, "targetEntity");
    if (target instanceof Class<?> c && c != void.class) {
      return c;
    }
    Type generic = field.getGenericType();
    if (generic instanceof ParameterizedType parameterized) {
      Type[] arguments = parameterized.getActualTypeArguments();
      Type element = arguments[arguments.length - 1];
      if (element instanceof Class<?> c) {
        return c;
      }
    }
    return Object.class;
  }

  // ---- Spring Data repositories ------------------------------------------------------------------

  private static void repository(JpaModel model, Class<?> type) {
    Entity domain = repositoryEntity(model, type);
    if (domain == null) {
      return;
    }
    for (Method method : type.getDeclaredMethods()) {
      String name = type.getSimpleName() + "." + method.getName();
      Annotation query = annotation(method, SPRING_QUERY);
      if (query != null) {
        String text = string(query, "value");
        if (text != null && !text.isBlank()) {
          model.addQuery(null, new DeclaredQuery(name, text, Boolean.TRUE.equals(value(query, "nativeQuery")), domain));
        }
      } else if (!method.isDefault() && !Modifier.isStatic(method.getModifiers())) {
        String derived = DerivedQueries.hql(domain, method.getName());
        if (derived != null) {
          model.addQuery(null, new DeclaredQuery(name, derived, false, domain));
        }
      }
    }
  }

  /** The entity of {@code interface X extends JpaRepository<Entity, Id>} (through any Spring Data interface). */
  private static Entity repositoryEntity(JpaModel model, Class<?> type) {
    for (Type parent : type.getGenericInterfaces()) {
      if (parent instanceof ParameterizedType parameterized
          && parameterized.getRawType() instanceof Class<?> raw && raw.getName().startsWith(SPRING_DATA)
          && parameterized.getActualTypeArguments().length > 0
          && parameterized.getActualTypeArguments()[0] instanceof Class<?> entity) {
        return model.entity(entity.getName());
      }
    }
    return null;
  }

  // ---- annotations by name -----------------------------------------------------------------------

  static Annotation jpa(AnnotatedElement element, String simpleName) {
    for (Annotation annotation : element.getDeclaredAnnotations()) {
      String name = annotation.annotationType().getName();
      if (name.equals(PERSISTENCE[0] + simpleName) || name.equals(PERSISTENCE[1] + simpleName)) {
        return annotation;
      }
    }
    return null;
  }

  private static Annotation annotation(AnnotatedElement element, String name) {
    for (Annotation annotation : element.getDeclaredAnnotations()) {
      if (annotation.annotationType().getName().equals(name)) {
        return annotation;
      }
    }
    return null;
  }

  private static List<Annotation> repeated(AnnotatedElement element, String single, String container) {
    List<Annotation> all = new ArrayList<>();
    Annotation one = jpa(element, single);
    if (one != null) {
      all.add(one);
    }
    Annotation many = jpa(element, container);
    if (many != null && value(many, "value") instanceof Annotation[] inner) {
      all.addAll(List.of(inner));
    }
    return all;
  }

  private static Object value(Annotation annotation, String member) {
    try {
      Method method = annotation.annotationType().getMethod(member);
      method.setAccessible(true);
      return method.invoke(annotation);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static String string(Annotation annotation, String member) {
    return value(annotation, member) instanceof String s ? s : null;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
