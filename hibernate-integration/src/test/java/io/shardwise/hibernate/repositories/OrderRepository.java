package io.shardwise.hibernate.repositories;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.shop.PurchaseOrder;
import jakarta.data.repository.By;
import jakarta.data.repository.Delete;
import jakarta.data.repository.Find;
import jakarta.data.repository.Insert;
import jakarta.data.repository.Query;
import jakarta.data.repository.Repository;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** A Jakarta Data repository as an application writes it; hibernate-processor generates OrderRepository_. */
@Repository
public interface OrderRepository {
  @Insert
  void add(PurchaseOrder order);

  @Insert
  void addAll(List<PurchaseOrder> orders);

  @Delete
  void remove(PurchaseOrder order);

  @Find
  List<PurchaseOrder> byMerchant(long merchantId);

  @Find
  Optional<PurchaseOrder> one(@By("merchantId") long merchant, @By("id") long id);

  @Find
  Stream<PurchaseOrder> streamed(long merchantId);

  @Query("where merchantId = :merchant and customer = :customer")
  List<PurchaseOrder> ofCustomer(long merchant, String customer);

  @Query("select count(o) from PurchaseOrder o where o.merchantId = :m")
  long countOf(@ShardKey long m);

  /** The processor reports this one at build time too: it does not say which shard to ask. */
  @Find
  List<PurchaseOrder> byCustomer(String customer);

  @ScatterGather
  @Query("where customer = :customer order by id desc")
  List<PurchaseOrder> newestOfCustomerEverywhere(String customer);

  @ScatterGather
  @Query("select count(o) from PurchaseOrder o where o.customer = :customer")
  long countEverywhere(String customer);

  @ScatterGather
  @Find
  List<PurchaseOrder> everywhere(String customer);

  /** Which kind of node answered: true on a replica. */
  @Query("select function('pg_is_in_recovery') from PurchaseOrder o where o.merchantId = :merchantId")
  List<Object> servedByReplica(long merchantId);

  default long countBoth(long merchant, String customer) {
    return ofCustomer(merchant, customer).size();
  }
}
