package io.shardwise.sample.spring;

import jakarta.persistence.LockModeType;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Lock;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

interface ProductRepository extends JpaRepository<Product, String> {
  /** SELECT ... FOR NO KEY UPDATE: concurrent checkouts of one product queue on its row. */
  @Lock(LockModeType.PESSIMISTIC_WRITE)
  @Query("select p from Product p where p.merchantId = :merchantId and p.sku = :sku")
  Optional<Product> lockForCheckout(@Param("merchantId") long merchantId, @Param("sku") String sku);
}
