package io.shardwise.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * Annotations read by name from their mirrors, so that the processor needs none of the annotation
 * types it checks on its own class path (Jakarta Data, or {@code @SnowflakeId} from the runtime
 * module, may well be absent).
 */
final class Mirrors {

  static final String ENTITY = "jakarta.persistence.Entity";
  static final String ID = "jakarta.persistence.Id";
  static final String TABLE = "jakarta.persistence.Table";
  static final String COLUMN = "jakarta.persistence.Column";
  static final String NAMED_NATIVE_QUERY = "jakarta.persistence.NamedNativeQuery";
  static final String NAMED_NATIVE_QUERIES = "jakarta.persistence.NamedNativeQueries";
  static final String HIBERNATE_NAMED_NATIVE_QUERY = "org.hibernate.annotations.NamedNativeQuery";
  static final String HIBERNATE_NAMED_NATIVE_QUERIES = "org.hibernate.annotations.NamedNativeQueries";
  static final String TRANSIENT = "jakarta.persistence.Transient";
  static final String MANY_TO_ONE = "jakarta.persistence.ManyToOne";
  static final String ONE_TO_ONE = "jakarta.persistence.OneToOne";
  static final String ONE_TO_MANY = "jakarta.persistence.OneToMany";
  static final String MANY_TO_MANY = "jakarta.persistence.ManyToMany";
  static final String JOIN_COLUMN = "jakarta.persistence.JoinColumn";
  static final String JOIN_COLUMNS = "jakarta.persistence.JoinColumns";
  static final String JOIN_TABLE = "jakarta.persistence.JoinTable";
  static final String MAPS_ID = "jakarta.persistence.MapsId";
  static final String NAMED_QUERY = "jakarta.persistence.NamedQuery";
  static final String NAMED_QUERIES = "jakarta.persistence.NamedQueries";
  static final String HIBERNATE_NAMED_QUERY = "org.hibernate.annotations.NamedQuery";
  static final String HIBERNATE_NAMED_QUERIES = "org.hibernate.annotations.NamedQueries";
  static final String HQL = "org.hibernate.annotations.processing.HQL";
  static final String FIND = "org.hibernate.annotations.processing.Find";
  static final String DATA_QUERY = "jakarta.data.repository.Query";
  static final String DATA_FIND = "jakarta.data.repository.Find";
  static final String DATA_DELETE = "jakarta.data.repository.Delete";
  static final String DATA_BY = "jakarta.data.repository.By";
  static final String DATA_REPOSITORY = "jakarta.data.repository.DataRepository";

  static final String GENERATED_VALUE = "jakarta.persistence.GeneratedValue";
  static final String SHARD_KEY = "io.shardwise.annotations.ShardKey";
  static final String CO_LOCATED = "io.shardwise.annotations.CoLocated";
  static final String REFERENCE_TABLE = "io.shardwise.annotations.ReferenceTable";
  static final String SCATTER_GATHER = "io.shardwise.annotations.ScatterGather";
  static final String SNOWFLAKE_ID = "io.shardwise.hibernate.id.SnowflakeId";
  static final String SNOWFLAKE_ID_SIMPLE = "SnowflakeId";

  private Mirrors() {}

  static AnnotationMirror find(Element element, String qualifiedName) {
    for (AnnotationMirror mirror : element.getAnnotationMirrors()) {
      if (nameOf(mirror).equals(qualifiedName)) {
        return mirror;
      }
    }
    return null;
  }

  static boolean has(Element element, String qualifiedName) {
    return find(element, qualifiedName) != null;
  }

  /**
   * {@code @SnowflakeId} by its qualified name, or by its simple name when the annotation type is
   * not on the class path at all (javac then only knows the name as written).
   */
  static AnnotationMirror findSnowflakeId(Element element) {
    for (AnnotationMirror mirror : element.getAnnotationMirrors()) {
      String name = nameOf(mirror);
      if (name.equals(SNOWFLAKE_ID)
          || (mirror.getAnnotationType().getKind() == TypeKind.ERROR
              && (name.equals(SNOWFLAKE_ID_SIMPLE) || name.endsWith("." + SNOWFLAKE_ID_SIMPLE)))) {
        return mirror;
      }
    }
    return null;
  }

  static String nameOf(AnnotationMirror mirror) {
    Element type = mirror.getAnnotationType().asElement();
    if (type instanceof TypeElement && mirror.getAnnotationType().getKind() != TypeKind.ERROR) {
      return ((TypeElement) type).getQualifiedName().toString();
    }
    return mirror.getAnnotationType().toString();
  }

  /** The explicitly written value of an annotation member, or null. */
  static AnnotationValue value(AnnotationMirror mirror, String member) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry :
        mirror.getElementValues().entrySet()) {
      if (entry.getKey().getSimpleName().contentEquals(member)) {
        return entry.getValue();
      }
    }
    return null;
  }

  static String string(AnnotationMirror mirror, String member) {
    AnnotationValue value = value(mirror, member);
    return value != null && value.getValue() instanceof String ? (String) value.getValue() : null;
  }

  /** The type named by a {@code Class} member, or null when absent or unresolved. */
  static TypeElement type(AnnotationMirror mirror, String member) {
    AnnotationValue value = value(mirror, member);
    if (value == null || !(value.getValue() instanceof TypeMirror)) {
      return null;
    }
    TypeMirror type = (TypeMirror) value.getValue();
    if (type.getKind() != TypeKind.DECLARED) {
      return null;
    }
    return (TypeElement) ((DeclaredType) type).asElement();
  }

  /** The annotations held by an array member (a container's {@code value}), or the single one. */
  static List<AnnotationMirror> annotations(AnnotationMirror mirror, String member) {
    List<AnnotationMirror> result = new ArrayList<>();
    AnnotationValue value = value(mirror, member);
    if (value == null) {
      return result;
    }
    Object raw = value.getValue();
    if (raw instanceof AnnotationMirror) {
      result.add((AnnotationMirror) raw);
    } else if (raw instanceof List) {
      for (Object item : (List<?>) raw) {
        Object inner = ((AnnotationValue) item).getValue();
        if (inner instanceof AnnotationMirror) {
          result.add((AnnotationMirror) inner);
        }
      }
    }
    return result;
  }

  /** The strings of a {@code String[]} member (a single value counts as a list of one). */
  static List<String> strings(AnnotationMirror mirror, String member) {
    List<String> result = new ArrayList<>();
    AnnotationValue value = value(mirror, member);
    if (value == null) {
      return result;
    }
    Object raw = value.getValue();
    if (raw instanceof String) {
      result.add((String) raw);
    } else if (raw instanceof List) {
      for (Object item : (List<?>) raw) {
        Object inner = ((AnnotationValue) item).getValue();
        if (inner instanceof String) {
          result.add((String) inner);
        }
      }
    }
    return result;
  }
}
