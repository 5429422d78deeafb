package io.shardwise.hibernate.badmodel;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ReferenceTable;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import java.util.List;

/** Entity classes that break one sharding rule each, for the bootstrap checks. */
public final class BadModels {
  private BadModels() {}

  @Entity(name = "Tenant")
  public static class Tenant {
    @Id @ShardKey Long id;
  }

  @Entity(name = "Unannotated")
  public static class Unannotated {
    @Id Long id;
  }

  @Entity(name = "DoubleKeyed")
  public static class DoubleKeyed {
    @Id @ShardKey Long id;
    @ShardKey Long other;
  }

  @Entity(name = "DecimalKeyed")
  public static class DecimalKeyed {
    @Id Long id;
    @ShardKey Double amount;
  }

  @Entity(name = "Customer")
  public static class Customer {
    @Id @ShardKey String email;
  }

  /** Sharded by tenant, but points at a Customer that is sharded by e-mail: could be on another shard. */
  @Entity(name = "Ticket")
  @CoLocated(with = Tenant.class)
  public static class Ticket {
    @Id Long id;
    @ShardKey Long tenantId;
    @ManyToOne Customer reporter;
  }

  @Entity(name = "WrongKeyType")
  @CoLocated(with = Tenant.class)
  public static class WrongKeyType {
    @Id Long id;
    @ShardKey String tenantId;
  }

  @Entity(name = "Currency")
  @ReferenceTable
  public static class Currency {
    @Id String code;
    @OneToMany List<Tenant> users;
  }

  @Entity(name = "KeyedReference")
  @ReferenceTable
  public static class KeyedReference {
    @Id @ShardKey Long id;
  }

  @Entity(name = "CoLocatedWithReference")
  @CoLocated(with = Currency.class)
  public static class CoLocatedWithReference {
    @Id @ShardKey Long id;
  }
}
