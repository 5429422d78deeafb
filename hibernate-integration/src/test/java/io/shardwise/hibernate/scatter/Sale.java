package io.shardwise.hibernate.scatter;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.math.BigDecimal;

/** A sale of a merchant: sharded by merchant, queried across merchants by the scatter-gather tests. */
@Entity
@Table(name = "sale")
@NamedQuery(name = "Sale.byRegion", query = "select s.region, count(s) from Sale s group by s.region order by 1")
@NamedQuery(name = "Sale.ofMerchant", query = "from Sale s where s.merchantId = :merchant order by s.id")
@org.hibernate.annotations.NamedQuery(name = "Sale.pricedCount", query = "select count(s) from Sale s where s.price is not null")
@ScatterGather(queries = {"Sale.byRegion", "Sale.pricedCount"})
public class Sale {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "merchant_id")
  private Long merchantId;

  private String region;

  private String status;

  private Integer amount;

  @Column(precision = 10, scale = 2)
  private BigDecimal price;

  protected Sale() {}

  public Sale(long id, long merchantId, String region, String status, Integer amount, BigDecimal price) {
    this.id = id;
    this.merchantId = merchantId;
    this.region = region;
    this.status = status;
    this.amount = amount;
    this.price = price;
  }

  public Long getId() {
    return id;
  }

  public Long getMerchantId() {
    return merchantId;
  }

  public String getRegion() {
    return region;
  }

  public Integer getAmount() {
    return amount;
  }

  public String getStatus() {
    return status;
  }

  public BigDecimal getPrice() {
    return price;
  }
}
