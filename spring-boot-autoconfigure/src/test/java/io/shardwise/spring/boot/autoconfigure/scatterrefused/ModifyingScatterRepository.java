package io.shardwise.spring.boot.autoconfigure.scatterrefused;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.spring.boot.autoconfigure.scatter.ScatterOwner;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;

public interface ModifyingScatterRepository extends JpaRepository<ScatterOwner, Long> {

  @ScatterGather
  @Modifying
  @Query("update ScatterOwner o set o.city = 'Nowhere'")
  int moveEveryone();
}
