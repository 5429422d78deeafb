package io.shardwise.hibernate.routing;

import java.util.function.Consumer;

/**
 * Where a router gets its {@link ShardMap} from. The router calls {@link #current()} on every
 * routing decision, so it must be a plain volatile read; a source that follows a changing map
 * swaps in a whole new snapshot and then tells its listeners.
 *
 * <p>Two implementations ship: {@link StaticShardMapSource} for a map fixed in configuration, and
 * {@link ControlDatabaseShardMapSource}, which follows the map kept in a {@link ControlDatabase}.
 *
 * <pre>{@code
 * try (ShardMapSource maps = ControlDatabaseShardMapSource.builder(controlDatabase).start()) {
 *   maps.addListener(map -> log.info("now routing with shard map version " + map.version()));
 *   String owner = maps.current().ownerOf(bucket);
 * }
 * }</pre>
 */
public interface ShardMapSource extends AutoCloseable {

  /** The newest snapshot this source knows; never null, never blocks. */
  ShardMap current();

  /**
   * Calls {@code listener} with every snapshot published after this call, once {@link #current()}
   * already returns it. Listeners run one at a time on the source's own thread and should return
   * quickly; an exception from one is logged and does not stop the others.
   */
  void addListener(Consumer<ShardMap> listener);

  /**
   * Calls {@code listener} with a map a change has staged but not yet committed (an online move's
   * write switch announces it before its freeze), so that work it will need — connections to a
   * shard that gains buckets — can be done in advance. Routing never uses a staged map; it is
   * published to the ordinary listeners once its change commits. A source that learns of no staged
   * change never calls it (the default).
   */
  default void addStagedListener(Consumer<ShardMap> listener) {
    // no staged changes from this source
  }

  /**
   * Asks the map's home for its newest version now, instead of waiting for the next notification
   * or check; publishes it (listeners included) if it is newer, and returns the current map. A
   * source whose map never changes returns {@link #current()}. Used when a shard refuses a write
   * because its bucket has moved, which means this router missed a change.
   *
   * @throws RuntimeException if the home of the map cannot be reached; routing keeps the current map
   */
  default ShardMap refresh() {
    return current();
  }

  /**
   * {@link #refresh()} unless {@link #current()} is at version {@code atLeast} or newer already. A
   * source that follows notifications may first wait a moment for the one announcing that version
   * (the shard that refused a write names it), which costs the caller no round trip of its own.
   */
  default ShardMap refresh(long atLeast) {
    ShardMap map = current();
    return atLeast >= 0 && map.version() >= atLeast ? map : refresh();
  }

  /** Stops following changes and releases threads and connections; {@link #current()} keeps working. */
  @Override
  void close();
}
