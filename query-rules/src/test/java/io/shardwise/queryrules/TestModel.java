package io.shardwise.queryrules;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** A {@link QueryModel} written out by hand, for the rule's tests. */
final class TestModel implements QueryModel {
  private final Map<String, TestEntity> byName = new HashMap<>();

  @Override
  public Entity entity(String name) {
    return byName.get(name);
  }

  /** A sharded entity of the group headed by {@code group}, its id named {@code id}. */
  TestModel sharded(String name, String group, String key, Set<String> attributes,
      Map<String, String> associations) {
    byName.put(name, new TestEntity(name, key, group, "id", attributes, associations, this));
    return this;
  }

  TestModel reference(String name, Set<String> attributes, Map<String, String> associations) {
    byName.put(name, new TestEntity(name, null, null, "id", attributes, associations, this));
    return this;
  }

  private record TestEntity(
      String simpleName, String shardKey, Object group, String identifier, Set<String> attributes,
      Map<String, String> associations, TestModel model) implements QueryModel.Entity {

    @Override
    public boolean hasAttribute(String attribute) {
      return attributes.contains(attribute) || associations.containsKey(attribute);
    }

    @Override
    public QueryModel.Entity associationTarget(String attribute) {
      String target = associations.get(attribute);
      return target == null ? null : model.entity(target);
    }
  }
}
