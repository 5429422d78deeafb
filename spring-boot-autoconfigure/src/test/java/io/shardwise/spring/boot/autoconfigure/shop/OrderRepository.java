package io.shardwise.spring.boot.autoconfigure.shop;

import java.util.List;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface OrderRepository extends JpaRepository<PurchaseOrder, Long>, OrderSearch {

  List<PurchaseOrder> findByMerchantIdAndStatusOrderById(long merchantId, String status);

  Page<PurchaseOrder> findByMerchantId(long merchantId, Pageable pageable);

  @Query("select o from PurchaseOrder o where o.merchantId = :merchantId and o.totalCents >= :minCents order by o.id")
  List<PurchaseOrder> atLeast(@Param("merchantId") long merchantId, @Param("minCents") long minCents);

  /** No shard key: refused before any SQL. */
  List<PurchaseOrder> findByStatus(String status);
}
