package io.shardwise.hibernate.violation.api;

import io.shardwise.hibernate.internal.ShardPools;
import java.util.List;
import java.util.function.Supplier;

/** Public API that shows internal types, each in another kind of signature: for {@code RulesCatchViolationsTest} only. */
public class ApiExposingInternals {
  public static final class ReturnsOne {
    public ShardPools pools() {
      return null;
    }
  }

  public static final class TakesOneInAGenericParameter {
    public void use(List<Supplier<ShardPools>> pools) {}
  }

  public static final class HasAPublicField {
    public ShardPools pools;
  }

  public static final class HasAPublicConstructor {
    public HasAPublicConstructor(ShardPools pools) {}
  }

  public static final class KeepsItPrivate {
    private ShardPools pools;

    KeepsItPrivate(ShardPools pools) {
      this.pools = pools;
    }

    public int size() {
      return pools == null ? 0 : 1;
    }
  }
}
