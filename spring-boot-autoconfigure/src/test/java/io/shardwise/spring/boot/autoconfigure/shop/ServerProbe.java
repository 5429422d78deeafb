package io.shardwise.spring.boot.autoconfigure.shop;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/** Asks PostgreSQL which server runs the current transaction. */
@Component
public class ServerProbe {
  @PersistenceContext
  private EntityManager em;

  @Transactional(readOnly = true)
  public ShopService.Server readOnly() {
    return server();
  }

  @Transactional
  public ShopService.Server readWrite() {
    return server();
  }

  /** No shard chosen before: the transaction binds to the merchant's shard when it reads the merchant. */
  @Transactional(readOnly = true)
  public ShopService.Server readOnlyAfterFinding(long merchantId) {
    em.find(Merchant.class, merchantId);
    return server();
  }

  /** The same, read-write. */
  @Transactional
  public ShopService.Server readWriteAfterFinding(long merchantId) {
    em.find(Merchant.class, merchantId);
    return server();
  }

  private ShopService.Server server() {
    Object[] row = (Object[]) em.createNativeQuery("select inet_server_port(), pg_is_in_recovery()").getSingleResult();
    return new ShopService.Server(((Number) row[0]).intValue(), (Boolean) row[1]);
  }
}
