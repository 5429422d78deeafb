package io.shardwise.spring.boot.autoconfigure.shop;

import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;

/** A repository fragment whose query runs on every shard. */
public interface OrderSearch {
  Page<PurchaseOrder> everywhereByStatus(String status, Pageable pageable);

  Slice<PurchaseOrder> sliceEverywhereByStatus(String status, Pageable pageable);
}
