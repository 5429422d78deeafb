package io.shardwise.hibernate.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Collection;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The routing metadata {@code shardwise-processor} writes at build time to {@value #RESOURCE}: per
 * entity class its kind, shard-key attribute and co-location, and per named query the parameter
 * that carries the shard key. Every such resource the entity classes' class loaders see is read
 * and merged (one per compiled module); for a key present in several, the first one found wins.
 *
 * <p>Keys (class names are binary names, as {@link Class#getName()} gives them):
 * <pre>
 * entity.‹class›.kind=sharded|reference
 * entity.‹class›.shardKey=‹attribute›
 * entity.‹class›.shardKeyIsId=true|false
 * entity.‹class›.keyType=long|int|short|String|UUID
 * entity.‹class›.coLocatedWith=‹class›   (only when @CoLocated)
 * entity.‹class›.keyPath=‹hop›.‹hop›[,‹hop›.‹hop›...]   (only when @CoLocated(via = ...); one per path, in order)
 * entity.‹class›.listedIn=‹collection›   (only when @CoLocated(listedIn = ...))
 * entity.‹class›.group=‹class at the root of the co-location group›
 * query.‹named query›.shardKeyParameter=‹parameter›
 * </pre>
 */
public final class RoutingMetadata {

  public static final String RESOURCE = "META-INF/shardwise/routing.properties";

  private static final RoutingMetadata EMPTY = new RoutingMetadata(Map.of());

  private final Map<String, String> values;

  RoutingMetadata(Map<String, String> values) {
    this.values = Map.copyOf(values);
  }

  public static RoutingMetadata empty() {
    return EMPTY;
  }

  /** Reads and merges every {@value #RESOURCE} visible to these class loaders. */
  public static RoutingMetadata load(Collection<ClassLoader> loaders) {
    Set<String> seen = new LinkedHashSet<>();
    Map<String, String> merged = new LinkedHashMap<>();
    for (ClassLoader loader : loaders) {
      if (loader == null) {
        continue;
      }
      try {
        Enumeration<URL> urls = loader.getResources(RESOURCE);
        while (urls.hasMoreElements()) {
          URL url = urls.nextElement();
          if (!seen.add(url.toExternalForm())) {
            continue;
          }
          Properties properties = new Properties();
          try (InputStream in = url.openStream()) {
            properties.load(in);
          }
          properties.stringPropertyNames().forEach(k -> merged.putIfAbsent(k, properties.getProperty(k).trim()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + RESOURCE + " through " + loader, e);
      }
    }
    return merged.isEmpty() ? EMPTY : new RoutingMetadata(merged);
  }

  /** Whether the metadata lists this entity class. */
  public boolean lists(Class<?> type) {
    return entity(type, "kind") != null;
  }

  public boolean reference(Class<?> type) {
    return "reference".equals(entity(type, "kind"));
  }

  public String shardKey(Class<?> type) {
    return entity(type, "shardKey");
  }

  public String keyType(Class<?> type) {
    return entity(type, "keyType");
  }

  /** The class name {@code @CoLocated} names, or null. */
  public String coLocatedWith(Class<?> type) {
    return entity(type, "coLocatedWith");
  }

  /** The association paths {@code @CoLocated(via)} declares, separated by commas, or null. */
  public String keyPath(Class<?> type) {
    return entity(type, "keyPath");
  }

  /** The collection {@code @CoLocated(listedIn)} names, or null. */
  public String listedIn(Class<?> type) {
    return entity(type, "listedIn");
  }

  /** The parameter of a named query that carries its shard key, or null when none is known. */
  public String shardKeyParameter(String namedQuery) {
    return values.get("query." + namedQuery + ".shardKeyParameter");
  }

  private String entity(Class<?> type, String property) {
    return values.get("entity." + type.getName() + "." + property);
  }
}
