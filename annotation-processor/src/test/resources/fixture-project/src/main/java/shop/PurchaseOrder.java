package shop;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;

@Entity
@CoLocated(with = Merchant.class)
@NamedQuery(name = "PurchaseOrder.ofMerchant", query = "from PurchaseOrder o where o.merchantId = :m")
@NamedQuery(name = "PurchaseOrder.byCustomer", query = "from PurchaseOrder o where o.customer = :c")
public class PurchaseOrder {
  @Id
  Long id;

  @ShardKey
  long merchantId;

  String customer;
}
