package io.shardwise.processor;

import io.shardwise.processor.EntityModel.Entity;
import io.shardwise.processor.EntityModel.Member;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.TypeElement;

/**
 * The path of {@code @CoLocated(with = Owner.class, via = "pet.owner")}: every hop is an attribute
 * of the entity before it, a {@code @ManyToOne} or {@code @OneToOne} to a sharded entity of the same
 * co-location group, and the last one leads to the entity {@code with} names. Each broken path gets
 * one error on its value, naming the hop where it breaks. A row with several possible parents names
 * one path per parent ({@code via = {"client.realm", "clientScope.realm"}}); each is checked alone,
 * and a path named twice is an error.
 *
 * <p>{@code @CoLocated(with = Owner.class, listedIn = "pets")} instead names the unidirectional
 * {@code @OneToMany} (no {@code mappedBy}) of {@code Owner} whose elements are this entity.
 */
final class KeyPathChecks {

  private final EntityModel model;
  private final Reporter reporter;

  KeyPathChecks(EntityModel model, Reporter reporter) {
    this.model = model;
    this.reporter = reporter;
  }

  /** The declared paths separated by commas, as the routing metadata holds them; null when none is declared. */
  static String pathOf(Entity entity) {
    List<String> paths = entity.coLocated == null ? List.of() : Mirrors.strings(entity.coLocated, "via");
    return paths.isEmpty() || paths.equals(List.of("")) ? null : String.join(",", paths);
  }

  /** The declared collection of the {@code with} entity that lists this one, or null. */
  static String listedInOf(Entity entity) {
    return declared(entity, "listedIn");
  }

  private static String declared(Entity entity, String member) {
    String value = entity.coLocated == null ? null : Mirrors.string(entity.coLocated, member);
    return value == null || value.isEmpty() ? null : value;
  }

  void check(Entity entity) {
    String declaredPaths = pathOf(entity);
    TypeElement with = entity.coLocatedWith();
    Entity target = with == null ? null : model.entity(with);
    if (entity.reference || target == null || !target.sharded()) {
      return; // a broken @CoLocated that ModelChecks reports
    }
    String listedIn = listedInOf(entity);
    if (listedIn != null) {
      checkListedIn(entity, target, listedIn, declaredPaths != null);
      return;
    }
    if (declaredPaths == null) {
      return;
    }
    List<String> paths = List.of(declaredPaths.split(",", -1));
    List<? extends AnnotationValue> values = pathValues(entity);
    for (int i = 0; i < paths.size(); i++) {
      AnnotationValue value = i < values.size() ? values.get(i) : Mirrors.value(entity.coLocated, "via");
      if (paths.subList(0, i).contains(paths.get(i))) {
        report(entity, paths, i, value, "it is named twice. Fix: name each parent's path once.");
      } else {
        checkPath(entity, target, paths, i, value);
      }
    }
  }

  /** The value of each declared path, so that an error points at the path it is about. */
  private static List<? extends AnnotationValue> pathValues(Entity entity) {
    AnnotationValue via = Mirrors.value(entity.coLocated, "via");
    if (via != null && via.getValue() instanceof List<?> items) {
      List<AnnotationValue> values = new ArrayList<>();
      for (Object item : items) {
        values.add((AnnotationValue) item);
      }
      return values;
    }
    return via == null ? List.of() : List.of(via);
  }

  private void checkPath(Entity entity, Entity target, List<String> paths, int index, AnnotationValue value) {
    String via = paths.get(index);
    Entity current = entity;
    for (String hop : via.split("\\.", -1)) {
      String problem = problemOf(entity, current, hop);
      if (problem != null) {
        report(entity, paths, index, value, "hop '" + hop + "' " + problem);
        return;
      }
      current = current.associationTarget(current.member(hop));
    }
    if (current != target) {
      report(entity, paths, index, value, "the path ends at " + current.simpleName() + ", not at "
          + target.simpleName() + " (named by with). Fix: end the path at " + target.simpleName()
          + ", or name " + current.simpleName() + " in with.");
    }
  }

  private void checkListedIn(Entity entity, Entity target, String listedIn, boolean alsoVia) {
    Member member = target.member(listedIn);
    AnnotationMirror association = member == null ? null : EntityModel.associationAnnotation(member);
    String mappedBy = association == null ? null : Mirrors.string(association, "mappedBy");
    String problem;
    if (alsoVia) {
      problem = "it declares via as well. Fix: keep one of the two.";
    } else if (association == null || !Mirrors.nameOf(association).equals(Mirrors.ONE_TO_MANY)
        || target.associationTarget(member) != entity) {
      problem = target.simpleName() + "." + listedIn + " is not a @OneToMany of " + entity.simpleName()
          + ". Fix: name the collection of " + target.simpleName() + " that holds " + entity.simpleName() + ".";
    } else if (mappedBy != null && !mappedBy.isEmpty()) {
      problem = target.simpleName() + "." + listedIn + " is mappedBy \"" + mappedBy + "\", so "
          + entity.simpleName() + " has an association back. Fix: use via = \"" + mappedBy + "\".";
    } else {
      return;
    }
    reporter.error(Tag.KeyPath, entity.type, entity.coLocated, Mirrors.value(entity.coLocated, "listedIn"),
        entity.simpleName() + " is @CoLocated(listedIn = \"" + listedIn + "\"), but " + problem);
  }

  /** Why a hop from {@code current} does not lead on, or null when it does. */
  private String problemOf(Entity entity, Entity current, String hop) {
    Member member = hop.isEmpty() ? null : current.member(hop);
    if (member == null) {
      return "is not an attribute of " + current.simpleName() + ". Fix: name the to-one"
          + " associations from " + entity.simpleName() + " to its root, separated by dots.";
    }
    AnnotationMirror association = EntityModel.associationAnnotation(member);
    String kind = association == null ? null : Mirrors.nameOf(association);
    if (kind == null) {
      return "(" + member.describe(current) + ") is not an association. Fix: name a @ManyToOne or"
          + " @OneToOne attribute.";
    }
    if (kind.equals(Mirrors.ONE_TO_MANY) || kind.equals(Mirrors.MANY_TO_MANY)) {
      return "(" + member.describe(current) + ") is a collection; every hop must lead to exactly"
          + " one entity. Fix: name a @ManyToOne or @OneToOne attribute.";
    }
    Entity next = current.associationTarget(member);
    if (next == null || !next.sharded()) {
      return "(" + member.describe(current) + ") leads to "
          + (next == null ? "a type that is not an @Entity" : next.simpleName() + ", which is not sharded")
          + ". Fix: the path must stay inside " + entity.simpleName() + "'s co-location group.";
    }
    Entity ownHead = entity.groupHead();
    if (ownHead != null && next.groupHead() != ownHead) {
      return "(" + member.describe(current) + ") leads to " + next.simpleName()
          + ", which is not in the co-location group of " + ownHead.simpleName()
          + ". Fix: the path must stay inside the group.";
    }
    return null;
  }

  private void report(Entity entity, List<String> paths, int index, AnnotationValue value, String problem) {
    String declared = paths.size() == 1 ? "via = \"" + paths.get(0) + "\"), but "
        : "via = {\"" + String.join("\", \"", paths) + "\"}), but in path \"" + paths.get(index) + "\": ";
    reporter.error(Tag.KeyPath, entity.type, entity.coLocated, value,
        entity.simpleName() + " is @CoLocated(" + declared + problem);
  }

}
