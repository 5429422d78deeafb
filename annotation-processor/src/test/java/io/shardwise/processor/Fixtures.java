package io.shardwise.processor;

/** A small, valid sharded model: one co-location group, a second group, a reference table. */
final class Fixtures {

  static final String MERCHANT = """
      package app;
      import io.shardwise.annotations.ShardKey;
      import jakarta.persistence.*;
      import java.util.List;
      @Entity
      public class Merchant {
        @Id @ShardKey Long id;
        String name;
        @OneToMany(mappedBy = "merchant") List<PurchaseOrder> orders;
      }
      """;

  static final String ORDER = """
      package app;
      import io.shardwise.annotations.*;
      import jakarta.persistence.*;
      import java.util.List;
      @Entity
      @CoLocated(with = Merchant.class)
      public class PurchaseOrder {
        @Id Long id;
        @ShardKey long merchantId;
        String status;
        @ManyToOne Merchant merchant;
        @OneToMany(mappedBy = "order") List<OrderItem> items;
        @ManyToOne Country country;
      }
      """;

  static final String ITEM = """
      package app;
      import io.shardwise.annotations.*;
      import jakarta.persistence.*;
      @Entity
      @CoLocated(with = PurchaseOrder.class)
      public class OrderItem {
        @Id Long id;
        @ShardKey Long merchantId;
        @ManyToOne PurchaseOrder order;
        int quantity;
      }
      """;

  static final String CUSTOMER = """
      package app;
      import io.shardwise.annotations.ShardKey;
      import jakarta.persistence.*;
      import java.util.UUID;
      @Entity
      public class Customer {
        @Id @ShardKey UUID id;
        String email;
      }
      """;

  static final String COUNTRY = """
      package app;
      import io.shardwise.annotations.ReferenceTable;
      import jakarta.persistence.*;
      @Entity
      @ReferenceTable
      public class Country {
        @Id String code;
        String name;
      }
      """;

  private Fixtures() {}

  static Compilation model() {
    return new Compilation()
        .source("app/Merchant.java", MERCHANT)
        .source("app/PurchaseOrder.java", ORDER)
        .source("app/OrderItem.java", ITEM)
        .source("app/Customer.java", CUSTOMER)
        .source("app/Country.java", COUNTRY);
  }
}
