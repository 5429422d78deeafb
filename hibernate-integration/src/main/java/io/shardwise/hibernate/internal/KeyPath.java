package io.shardwise.hibernate.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hibernate.mapping.ManyToOne;
import org.hibernate.mapping.OneToOne;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.Value;

/**
 * How a co-located entity reaches the entity whose key it holds: a chain of to-one associations
 * ({@code @CoLocated(via = "pet.owner")}), each hop naming the entity it leads to; or the collection
 * of the {@code with} entity that lists it ({@code @CoLocated(listedIn = "pets")}).
 *
 * @param path the path as declared, for messages ({@code Owner.pets} for a collection)
 * @param hops the association attributes, in order; empty for a collection
 * @param hopEntities the entity name each hop leads to; the last is the entity named in {@code with}
 * @param listedIn the {@code with} entity's collection that holds this entity, or null
 */
public record KeyPath(String path, List<String> hops, List<String> hopEntities, String listedIn) {

  public KeyPath {
    hops = List.copyOf(hops);
    hopEntities = List.copyOf(hopEntities);
  }

  /** The entity at the end of the path, whose shard key this entity's key copies. */
  public String endEntity() {
    return hopEntities.get(hopEntities.size() - 1);
  }

  /**
   * Resolves {@code path} from {@code start} against Hibernate's mapping, or adds a problem naming
   * the hop that does not lead on and returns null.
   *
   * @param withEntity the entity name {@code @CoLocated(with)} names; the path must end there
   */
  static KeyPath resolve(PersistentClass start, String path, String withEntity, Map<String, PersistentClass> bindings,
      List<String> problems) {
    String entity = start.getMappedClass().getSimpleName();
    List<String> hops = new ArrayList<>();
    List<String> targets = new ArrayList<>();
    PersistentClass current = start;
    for (String hop : path.split("\\.", -1)) {
      String where = "[KeyPath] " + entity + " is @CoLocated(via = \"" + path + "\"), but hop '" + hop + "' ";
      Property property = hop.isEmpty() ? null : propertyOf(current, hop);
      if (property == null) {
        problems.add(where + "is not a persistent attribute of " + simpleName(current)
            + ": name the to-one associations from " + entity + " to its root, separated by dots");
        return null;
      }
      Value value = property.getValue();
      if (!(value instanceof ManyToOne) && !(value instanceof OneToOne)) {
        problems.add(where + "(" + simpleName(current) + "." + hop + ") is not a @ManyToOne or @OneToOne association:"
            + " every hop must lead to exactly one entity");
        return null;
      }
      String target = ((org.hibernate.mapping.ToOne) value).getReferencedEntityName();
      hops.add(hop);
      targets.add(target);
      current = bindings.get(target);
      if (current == null) {
        problems.add(where + "leads to " + target + ", which is not an entity of this persistence unit");
        return null;
      }
    }
    if (!current.getEntityName().equals(withEntity)) {
      problems.add("[KeyPath] " + entity + " is @CoLocated(via = \"" + path + "\"), which ends at "
          + simpleName(current) + ", but with names " + simpleName(bindings.get(withEntity))
          + ": the path must end at the entity whose key " + entity + " holds");
      return null;
    }
    return new KeyPath(path, hops, targets, null);
  }

  /**
   * Resolves {@code @CoLocated(listedIn = collection)}: a {@code @OneToMany} of the {@code with}
   * entity, without {@code mappedBy}, whose elements are {@code start}; else adds a problem and
   * returns null.
   */
  static KeyPath listedIn(PersistentClass start, String collection, PersistentClass with, List<String> problems) {
    String entity = start.getMappedClass().getSimpleName();
    String where = simpleName(with) + "." + collection;
    Property property = propertyOf(with, collection);
    Value value = property == null ? null : property.getValue();
    if (value instanceof org.hibernate.mapping.Collection list
        && list.getElement() instanceof org.hibernate.mapping.OneToMany element
        && element.getReferencedEntityName().equals(start.getEntityName()) && list.getMappedByProperty() == null) {
      return new KeyPath(where, List.of(), List.of(with.getEntityName()), collection);
    }
    problems.add("[KeyPath] " + entity + " is @CoLocated(listedIn = \"" + collection + "\"), but " + where + " is "
        + (property == null ? "not a persistent attribute" : "not a @OneToMany of " + entity + " without mappedBy")
        + ": name the unidirectional @OneToMany @JoinColumn collection of " + simpleName(with) + " that holds "
        + entity + ", or use via with a @ManyToOne of " + entity);
    return null;
  }

  private static Property propertyOf(PersistentClass pc, String attribute) {
    try {
      return pc.getProperty(attribute);
    } catch (org.hibernate.MappingException e) {
      return null;
    }
  }

  private static String simpleName(PersistentClass pc) {
    return pc == null ? "?" : pc.getMappedClass() == null ? pc.getEntityName() : pc.getMappedClass().getSimpleName();
  }
}
