package io.shardwise.spring;

import java.util.List;
import java.util.Map;

/**
 * The HQL of one call of a {@code @ScatterGather} repository method, before paging and sorting:
 * {@code rows} selects the rows (it may end in an ORDER BY of its own when the method declared
 * one), {@code count} counts them (null when the method has no count), {@code alias} is the root
 * entity's alias that sort properties are prefixed with (null when the query does not select the
 * root entity, which then cannot be sorted or paged).
 */
record ScatterQueryText(String rows, String count, String alias, boolean ordered, List<Object> positional,
    Map<String, Object> named) {

  /** Renders the query of one invocation from the method's bindable arguments (Pageable, Sort and Limit left out). */
  interface Renderer {
    ScatterQueryText render(Object[] bindable);
  }
}
