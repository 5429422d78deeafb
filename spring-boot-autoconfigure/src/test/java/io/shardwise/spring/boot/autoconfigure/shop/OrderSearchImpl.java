package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.spring.ScatterPages;
import java.util.Map;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;

class OrderSearchImpl implements OrderSearch {
  private final ScatterPages pages;

  OrderSearchImpl(ScatterPages pages) {
    this.pages = pages;
  }

  @Override
  public Page<PurchaseOrder> everywhereByStatus(String status, Pageable pageable) {
    return pages.find("from PurchaseOrder o where o.status = :status", PurchaseOrder.class, Map.of("status", status),
        pageable);
  }

  @Override
  public Slice<PurchaseOrder> sliceEverywhereByStatus(String status, Pageable pageable) {
    return pages.findSlice("from PurchaseOrder where status = :status", PurchaseOrder.class, Map.of("status", status),
        pageable);
  }
}
