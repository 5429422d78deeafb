package io.shardwise.spring.boot.autoconfigure.shop;

import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;

/** A repository fragment whose query runs on every shard. */
public interface OrderSearch {
  Page<PurchaseOrder> everywhereByStatus(String status, Pageable pageable);
}
