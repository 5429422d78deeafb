package io.shardwise.hibernate.badmodel;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import java.util.List;

/** {@code @CoLocated(via)} paths that break at one hop each, for the bootstrap checks. */
public final class BadKeyPaths {
  private BadKeyPaths() {}

  @Entity(name = "Farm")
  public static class Farm {
    @Id @ShardKey Long id;
    @OneToMany(mappedBy = "farm") List<Barn> barns;
  }

  /** A valid path, the base of the others. */
  @Entity(name = "Barn")
  @CoLocated(with = Farm.class, via = "farm")
  public static class Barn {
    @Id Long id;
    @ShardKey Long farmId;
    @ManyToOne Farm farm;
  }

  @Entity(name = "Cow")
  @CoLocated(with = Farm.class, via = "barn.roof")
  public static class Cow {
    @Id Long id;
    @ShardKey Long farmId;
    @ManyToOne Barn barn;
  }

  @Entity(name = "Hen")
  @CoLocated(with = Farm.class, via = "name")
  public static class Hen {
    @Id Long id;
    @ShardKey Long farmId;
    String name;
  }

  @Entity(name = "Pig")
  @CoLocated(with = Farm.class, listedIn = "barns")
  public static class Pig {
    @Id Long id;
    @ShardKey Long farmId;
  }

  @Entity(name = "Goat")
  @CoLocated(with = Farm.class, via = "barn")
  public static class Goat {
    @Id Long id;
    @ShardKey Long farmId;
    @ManyToOne Barn barn;
  }

  /** A valid first path and a broken second one: the second is reported on its own. */
  @Entity(name = "Sheep")
  @CoLocated(with = Farm.class, via = {"farm", "barn.roof"})
  public static class Sheep {
    @Id Long id;
    @ShardKey Long farmId;
    @ManyToOne Farm farm;
    @ManyToOne Barn barn;
  }
}
