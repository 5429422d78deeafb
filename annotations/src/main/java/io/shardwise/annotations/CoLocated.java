package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Places a sharded entity on the same shard as another: its own {@link ShardKey} holds the key of
 * the entity named in {@link #with()}. Orders, order items and inventory of one merchant share the
 * merchant's shard, so joins between them and transactions over them stay on one database.
 *
 * <pre>{@code
 * @Entity @CoLocated(with = Merchant.class)
 * class OrderItem {
 *   @Id Long id;
 *   @ShardKey Long merchantId;
 *   @ManyToOne PurchaseOrder order;   // allowed: PurchaseOrder is co-located with Merchant too
 * }
 * }</pre>
 *
 * <p>Associations between sharded entities are only allowed inside one co-location group (an
 * entity with {@code @ShardKey} and every entity co-located with it, directly or through another);
 * the shard-key types of a group must match. Both are checked when the session factory starts.
 *
 * <p>A co-located entity that reaches the entity named in {@code with} through its associations can
 * say so with {@link #via()}; Shardwise then fills its {@code @ShardKey} from that entity when it
 * is persisted, and refuses a row whose key disagrees:
 *
 * <pre>{@code
 * @Entity @CoLocated(with = Owner.class, via = "pet.owner")
 * class Visit {
 *   @Id Long id;
 *   @ShardKey Long ownerId;            // filled from pet.owner's key; the column stays in the table
 *   @ManyToOne Pet pet;
 * }
 * }</pre>
 *
 * <p>A row with two possible parents names a path to each; the first that is set gives the key and
 * any other that is set must agree:
 *
 * <pre>{@code
 * @Entity @CoLocated(with = Realm.class, via = {"client.realm", "clientScope.realm"})
 * class ProtocolMapper {
 *   @Id Long id;
 *   @ShardKey Long realmId;
 *   @ManyToOne Client client;          // one of the two is set
 *   @ManyToOne ClientScope clientScope;
 * }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface CoLocated {

  /** The sharded entity whose shard this entity shares. */
  Class<?> with();

  /**
   * The path of to-one associations ({@code @ManyToOne}, {@code @OneToOne}) from this entity to
   * the entity named in {@link #with()}, hops separated by dots ({@code "pet.owner"}); empty (the
   * default) when the application sets the key itself. With a path, a null {@code @ShardKey} is
   * filled from the end entity's key on {@code persist}, {@code merge} and at flush, and a key that
   * disagrees with it is refused before any SQL.
   *
   * <p>A row that belongs to one of several parents names one path per parent, in order:
   * {@code via = {"client.realm", "clientScope.realm"}}. The first path whose hops are all set gives
   * the key; every other path that is set must lead to the same key, else the row is refused; when
   * none is set and the key is null, the row is refused too.
   */
  String[] via() default {};

  /**
   * The collection of the entity named in {@link #with()} that holds this entity, when that is a
   * unidirectional {@code @OneToMany @JoinColumn} and this entity has no association back (for
   * {@code Owner.pets}: {@code @CoLocated(with = Owner.class, listedIn = "pets")}). The key is filled
   * from the owner whose collection, in the same session, holds this entity. Not together with
   * {@link #via()}.
   */
  String listedIn() default "";
}
