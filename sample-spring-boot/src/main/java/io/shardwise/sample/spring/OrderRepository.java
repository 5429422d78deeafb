package io.shardwise.sample.spring;

import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/** Ordinary Spring Data: every query names the merchant, the shard key. */
interface OrderRepository extends JpaRepository<ShopOrder, Long> {
  Page<ShopOrder> findByMerchantId(long merchantId, Pageable pageable);

  @Query("select count(o) from ShopOrder o where o.merchantId = :merchantId and o.sku = :sku")
  long countSold(@Param("merchantId") long merchantId, @Param("sku") String sku);
}
