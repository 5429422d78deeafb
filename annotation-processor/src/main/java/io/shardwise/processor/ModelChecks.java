package io.shardwise.processor;

import io.shardwise.processor.EntityModel.Entity;
import io.shardwise.processor.EntityModel.Member;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;

/**
 * The rules of the sharding model, the ones the runtime enforces when the session factory starts,
 * checked per entity class so that each culprit gets its own error on its own element.
 */
final class ModelChecks {

  static final String ONE_KEY_RULE = "exactly one attribute per sharded entity carries @ShardKey";
  static final String KEY_TYPE_RULE =
      "a shard key is a long, int, short, String or UUID (or a wrapper)";
  static final String GROUP_RULE =
      "associations between sharded entities are only allowed inside one co-location group"
          + " (an entity with @ShardKey and every entity co-located with it)";

  private final EntityModel model;
  private final Reporter reporter;

  ModelChecks(EntityModel model, Reporter reporter) {
    this.model = model;
    this.reporter = reporter;
  }

  void check(Entity entity) {
    checkKind(entity);
    checkKeyTypes(entity);
    checkCoLocation(entity);
    checkAssociations(entity);
  }

  private void checkKind(Entity entity) {
    String name = entity.simpleName();
    if (entity.reference) {
      for (Member key : entity.shardKeys) {
        reporter.error(Tag.ReferenceWithShardKey, key.element(),
            "Reference table " + name + " has @ShardKey on " + key.name() + "; a reference table"
                + " is copied in full to every shard and has no shard key. Fix: remove @ShardKey,"
                + " or remove @ReferenceTable to shard " + name + " by " + key.name() + ".");
      }
      if (entity.coLocated != null) {
        reporter.error(Tag.ReferenceWithShardKey, entity.type, entity.coLocated,
            "Reference table " + name + " is also @CoLocated; a reference table is copied in"
                + " full to every shard and is not co-located with anything. Fix: remove"
                + " @CoLocated, or remove @ReferenceTable to shard " + name + ".");
      }
      return;
    }
    if (!entity.sharded()) {
      reporter.error(Tag.ShardKeyMissing, entity.type,
          "Entity " + name + " is neither sharded nor a reference table. Fix: put @ShardKey on"
              + " the attribute whose value picks its shard, or mark " + name
              + " @ReferenceTable if it is a small table copied to every shard.");
      return;
    }
    if (entity.shardKeys.isEmpty()) {
      TypeElement with = entity.coLocatedWith();
      String hint = with == null
          ? "put @ShardKey on the attribute that holds the key of the entity it is co-located with"
          : "put @ShardKey on the attribute that holds the shard key of " + with.getSimpleName();
      reporter.error(Tag.ShardKeyMissing, entity.type, entity.coLocated,
          "Sharded entity " + name + " has no @ShardKey attribute; " + ONE_KEY_RULE + ". Fix: "
              + hint + ".");
    } else if (entity.shardKeys.size() > 1) {
      List<String> names = new ArrayList<>();
      entity.shardKeys.forEach(key -> names.add(key.name()));
      for (Member key : entity.shardKeys) {
        reporter.error(Tag.ShardKeyDuplicate, key.element(),
            "Sharded entity " + name + " has " + entity.shardKeys.size() + " @ShardKey attributes "
                + names + "; " + ONE_KEY_RULE + ". Fix: keep @ShardKey on one of them only.");
      }
    }
  }

  private void checkKeyTypes(Entity entity) {
    for (Member key : entity.shardKeys) {
      if (EntityModel.keyTypeName(key.type()) == null) {
        reporter.error(Tag.ShardKeyType, key.element(),
            "Shard key " + key.describe(entity) + " has type " + key.type() + "; "
                + KEY_TYPE_RULE + ". Fix: change the type of " + key.name()
                + ", or put @ShardKey on another attribute.");
      }
    }
  }

  private void checkCoLocation(Entity entity) {
    if (entity.coLocated == null || entity.reference) {
      return;
    }
    String name = entity.simpleName();
    AnnotationValue withValue = Mirrors.value(entity.coLocated, "with");
    TypeElement with = entity.coLocatedWith();
    Entity target = with == null ? null : model.entity(with);
    String prefix = name + " is @CoLocated(with = "
        + (with == null ? "?" : with.getSimpleName()) + ".class), but ";
    if (target == null) {
      reporter.error(Tag.CoLocatedTarget, entity.type, entity.coLocated, withValue,
          prefix + (with == null ? "the class cannot be resolved" : with.getSimpleName()
              + " is not an @Entity") + ". Fix: name the sharded entity whose shard " + name
              + " shares.");
      return;
    }
    if (!target.sharded()) {
      reporter.error(Tag.CoLocatedTarget, entity.type, entity.coLocated, withValue,
          prefix + target.simpleName() + " is not a sharded entity ("
              + (target.reference ? "it is a @ReferenceTable" : "it has no @ShardKey")
              + "). Fix: name a sharded entity, or shard " + target.simpleName()
              + " with @ShardKey.");
      return;
    }
    if (entity.groupHead() == null) {
      reporter.error(Tag.CoLocatedTarget, entity.type, entity.coLocated, withValue,
          prefix + "the @CoLocated chain from " + name + " runs in a circle and never reaches an"
              + " entity that is sharded by its own @ShardKey. Fix: remove @CoLocated from the"
              + " entity at the head of the group.");
      return;
    }
    String own = entity.keyType();
    String theirs = target.keyType();
    if (own != null && theirs != null && !own.equals(theirs)) {
      reporter.error(Tag.CoLocatedKeyType, entity.type, entity.coLocated, withValue,
          prefix + "its shard key " + entity.keyMember().describe(entity) + " is "
              + EntityModel.declaredTypeName(entity.keyMember().type()) + " while "
              + target.keyMember().describe(target) + " is "
              + EntityModel.declaredTypeName(target.keyMember().type())
              + "; the shard-key types of a co-location group must match. Fix: declare "
              + entity.keyMember().name() + " as "
              + EntityModel.declaredTypeName(target.keyMember().type()) + ".");
    }
  }

  private void checkAssociations(Entity entity) {
    for (Member member : entity.members) {
      Entity target = entity.associationTarget(member);
      if (target == null || !target.sharded()) {
        continue;
      }
      AnnotationMirror association = EntityModel.associationAnnotation(member);
      if (entity.reference) {
        reporter.error(Tag.ReferenceToSharded, member.element(), association,
            "Reference table " + entity.simpleName() + " references sharded entity "
                + target.simpleName() + " through " + member.name() + "; a reference table is"
                + " on every shard and must not reference a sharded entity, which lives on one"
                + " shard only. Fix: keep the association on the " + target.simpleName()
                + " side, or store its id as a plain value.");
        continue;
      }
      if (!entity.sharded()) {
        continue;
      }
      Entity ownHead = entity.groupHead();
      Entity targetHead = target.groupHead();
      if (ownHead != null && targetHead != null && ownHead != targetHead) {
        reporter.error(Tag.AssociationAcrossShards, member.element(), association,
            member.describe(entity) + " associates sharded entity " + entity.simpleName()
                + " (co-location group of " + ownHead.simpleName() + ") with sharded entity "
                + target.simpleName() + " (co-location group of " + targetHead.simpleName()
                + "); " + GROUP_RULE + ". Fix: make " + entity.simpleName() + " @CoLocated(with ="
                + " " + targetHead.simpleName() + ".class) if they share a key, or replace the"
                + " association with the plain id of " + target.simpleName() + ".");
      }
    }
  }

  /**
   * A shard key that is a {@code @GeneratedValue} id: each shard's database would number it unless
   * the unit sets {@code shardwise.ids.generated = cluster}, a runtime setting this processor cannot
   * see, so a warning that names it (the session factory refuses to start without it).
   */
  void checkGeneratedShardKeys(TypeElement type) {
    for (Element element : type.getEnclosedElements()) {
      AnnotationMirror generated = Mirrors.find(element, Mirrors.GENERATED_VALUE);
      if (generated == null || !Mirrors.has(element, Mirrors.ID) || !Mirrors.has(element, Mirrors.SHARD_KEY)
          || suppressed(element, Tag.GeneratedShardKey)) {
        continue;
      }
      reporter.report(javax.tools.Diagnostic.Kind.WARNING, Tag.GeneratedShardKey, element, generated, null,
          type.getSimpleName() + "." + element.getSimpleName() + " is the shard key and a @GeneratedValue id, which"
              + " each shard's database would number on its own. Fix: set shardwise.ids.generated = cluster"
              + " (with shardwise.control.url): the id keeps its type and mapping, and its values come from a"
              + " counter in the control database, each routing to its root's shard; or use @SnowflakeId on a"
              + " Long id. Without either the session factory refuses to start. Mark the attribute"
              + " @SuppressWarnings(\"" + Tag.GeneratedShardKey + "\") once the setting is made.");
    }
  }

  private static boolean suppressed(Element element, Tag tag) {
    for (Element e = element; e != null && !(e instanceof javax.lang.model.element.PackageElement);
        e = e.getEnclosingElement()) {
      AnnotationMirror suppress = Mirrors.find(e, "java.lang.SuppressWarnings");
      if (suppress != null && Mirrors.strings(suppress, "value").contains(tag.name())) {
        return true;
      }
    }
    return false;
  }

  /** {@code @SnowflakeId} belongs on a long or Long {@code @Id} attribute only. */
  void checkSnowflakeIds(TypeElement type) {
    for (Element element : type.getEnclosedElements()) {
      AnnotationMirror snowflake = Mirrors.findSnowflakeId(element);
      if (snowflake == null) {
        continue;
      }
      TypeMirror valueType;
      if (element.getKind() == ElementKind.FIELD) {
        valueType = element.asType();
      } else if (element.getKind() == ElementKind.METHOD) {
        valueType = ((ExecutableElement) element).getReturnType();
      } else {
        valueType = null;
      }
      boolean isLong = valueType != null && "long".equals(EntityModel.keyTypeName(valueType))
          && (valueType.getKind() == javax.lang.model.type.TypeKind.LONG
              || valueType.toString().equals("java.lang.Long"));
      boolean isId = Mirrors.has(element, Mirrors.ID);
      if (!isLong || !isId) {
        String what = type.getSimpleName() + "." + element.getSimpleName();
        String problem = !isId && !isLong
            ? "is neither an @Id nor of type long/Long"
            : !isId ? "is not the @Id" : "has type " + valueType + ", not long/Long";
        reporter.error(Tag.SnowflakeIdType, element, snowflake,
            "@SnowflakeId on " + what + ", which " + problem + "; a Snowflake id is a 64-bit"
                + " time-ordered number generated for the @Id. Fix: put @SnowflakeId on a"
                + " long or Long @Id attribute, or use another generator here.");
      }
    }
  }
}
