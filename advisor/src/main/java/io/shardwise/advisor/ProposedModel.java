package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.Entity;
import io.shardwise.queryrules.QueryModel;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@link QueryModel} the annotations of a proposal would give the processor: the root and its
 * co-located entities carry their key attribute (existing or added) and the root as group;
 * reference tables carry no key. An entity the proposal cannot place is given a key no query can
 * name, so that the rule flags every query that reads it rather than pass it as unsharded.
 */
final class ProposedModel implements QueryModel {
  /** The key of an entity the proposal leaves unplaced: not a Java identifier, so never pinned. */
  static final String NO_KEY = "<no shard key>";

  private final JpaModel model;
  private final Proposal proposal;
  private final Map<JpaModel.Entity, Proposed> entities = new HashMap<>();

  ProposedModel(JpaModel model, Proposal proposal) {
    this.model = model;
    this.proposal = proposal;
  }

  @Override
  public QueryModel.Entity entity(String queryName) {
    JpaModel.Entity entity = model.entity(queryName);
    return entity == null ? null : proposed(entity);
  }

  Proposed proposed(JpaModel.Entity entity) {
    return entities.computeIfAbsent(entity, Proposed::new);
  }

  Placement placement(JpaModel.Entity entity) {
    return proposal.placement(entity);
  }

  JpaModel.Entity target(JpaModel.Attribute attribute) {
    return model.target(attribute);
  }

  String proposedRootName() {
    return proposal.root.simpleName();
  }

  /** One entity as the proposal's annotations would present it. */
  final class Proposed implements QueryModel.Entity {
    final JpaModel.Entity entity;
    final Placement placement;

    Proposed(JpaModel.Entity entity) {
      this.entity = entity;
      this.placement = proposal.placement(entity);
    }

    @Override
    public String simpleName() {
      return entity.simpleName();
    }

    @Override
    public String shardKey() {
      if (placement == null || placement.kind() == Placement.Kind.UNSHARDABLE) {
        return NO_KEY;
      }
      return placement.sharded() ? placement.keyAttribute() : null;
    }

    @Override
    public Object group() {
      if (placement == null || placement.kind() == Placement.Kind.UNSHARDABLE) {
        return "unplaced " + entity.className;
      }
      return placement.sharded() ? proposal.root.className : null;
    }

    @Override
    public boolean hasAttribute(String attribute) {
      return entity.attribute(attribute) != null
          || placement != null && attribute.equals(placement.keyAttribute());
    }

    @Override
    public QueryModel.Entity associationTarget(String attribute) {
      Attribute a = entity.attribute(attribute);
      JpaModel.Entity target = a == null ? null : model.target(a);
      return target == null ? null : proposed(target);
    }
  }
}
