package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ModelChecksTest {

  private static Compilation compile(String path, String source) {
    return Fixtures.model().source(path, source).compileWith(new ShardwiseProcessor());
  }

  @Test
  void aValidModelCompilesClean() {
    Fixtures.model().compileWith(new ShardwiseProcessor()).assertClean();
  }

  @Test
  void anEntityNeitherShardedNorReferenceIsMissingItsKey() {
    Compilation c = compile("app/Note.java", """
        package app;
        @jakarta.persistence.Entity
        public class Note {
          @jakarta.persistence.Id Long id;
        }
        """);
    String message = c.assertError(Tag.ShardKeyMissing, "app/Note.java", "public class Note");
    assertTrue(message.contains("@ReferenceTable"), message);
    c.assertErrorCount(1);
  }

  @Test
  void aCoLocatedEntityWithoutShardKeyIsMissingItsKey() {
    Compilation c = compile("app/Invoice.java", """
        package app;
        @jakarta.persistence.Entity
        @io.shardwise.annotations.CoLocated(with = Merchant.class)
        public class Invoice {
          @jakarta.persistence.Id Long id;
          Long merchantId;
        }
        """);
    String message = c.assertError(Tag.ShardKeyMissing, "app/Invoice.java", "@io.shardwise");
    assertTrue(message.contains("shard key of Merchant"), message);
    c.assertErrorCount(1);
  }

  @Test
  void twoShardKeysAreBothReported() {
    Compilation c = compile("app/Invoice.java", """
        package app;
        import io.shardwise.annotations.ShardKey;
        @jakarta.persistence.Entity
        public class Invoice {
          @jakarta.persistence.Id @ShardKey Long id;
          @ShardKey Long merchantId;
        }
        """);
    c.assertError(Tag.ShardKeyDuplicate, "app/Invoice.java", "@ShardKey Long id");
    String message = c.assertError(Tag.ShardKeyDuplicate, "app/Invoice.java", "Long merchantId");
    assertTrue(message.contains("[id, merchantId]") && message.contains("Fix:"), message);
    c.assertErrorCount(2);
  }

  @Test
  void unsupportedKeyTypesAreReportedOnTheKey() {
    Compilation c = compile("app/Ledger.java", """
        package app;
        import io.shardwise.annotations.ShardKey;
        @jakarta.persistence.Entity
        public class Ledger {
          @jakarta.persistence.Id Long id;
          @ShardKey java.math.BigDecimal amount;
        }
        """);
    String message = c.assertError(Tag.ShardKeyType, "app/Ledger.java", "BigDecimal amount");
    assertTrue(message.contains("long, int, short, String or UUID"), message);
    c.assertErrorCount(1);
  }

  @Test
  void allSupportedKeyTypesOnGettersToo() {
    Fixtures.model().source("app/Tenant.java", """
        package app;
        import io.shardwise.annotations.ShardKey;
        @jakarta.persistence.Entity
        public class Tenant {
          private short code;
          @jakarta.persistence.Id @ShardKey public Short getCode() { return code; }
        }
        """).source("app/Account.java", """
        package app;
        import io.shardwise.annotations.ShardKey;
        @jakarta.persistence.Entity
        public class Account {
          @jakarta.persistence.Id @ShardKey String login;
        }
        """).compileWith(new ShardwiseProcessor()).assertClean();
  }

  @Test
  void coLocatedWithANonShardedEntityOrNonEntity() {
    Compilation c = Fixtures.model().source("app/Invoice.java", """
        package app;
        import io.shardwise.annotations.*;
        @jakarta.persistence.Entity
        @CoLocated(with = Country.class)
        public class Invoice {
          @jakarta.persistence.Id Long id;
          @ShardKey String countryCode;
        }
        """).source("app/Receipt.java", """
        package app;
        import io.shardwise.annotations.*;
        @jakarta.persistence.Entity
        @CoLocated(with = String.class)
        public class Receipt {
          @jakarta.persistence.Id Long id;
          @ShardKey String code;
        }
        """).compileWith(new ShardwiseProcessor());
    String first = c.assertError(Tag.CoLocatedTarget, "app/Invoice.java", "@CoLocated");
    assertTrue(first.contains("@ReferenceTable"), first);
    String second = c.assertError(Tag.CoLocatedTarget, "app/Receipt.java", "@CoLocated");
    assertTrue(second.contains("not an @Entity"), second);
    c.assertErrorCount(2);
  }

  @Test
  void coLocatedKeyTypesMustMatch() {
    Compilation c = compile("app/Invoice.java", """
        package app;
        import io.shardwise.annotations.*;
        @jakarta.persistence.Entity
        @CoLocated(with = Merchant.class)
        public class Invoice {
          @jakarta.persistence.Id Long id;
          @ShardKey String merchantId;
        }
        """);
    String message = c.assertError(Tag.CoLocatedKeyType, "app/Invoice.java", "@CoLocated");
    assertTrue(message.contains("is String while Merchant.id is Long")
        && message.contains("declare merchantId as Long."), message);
    c.assertErrorCount(1);
  }

  @Test
  void aReferenceTableWithAShardKey() {
    Compilation c = compile("app/Currency.java", """
        package app;
        import io.shardwise.annotations.*;
        @jakarta.persistence.Entity
        @ReferenceTable
        public class Currency {
          @jakarta.persistence.Id @ShardKey String code;
        }
        """);
    c.assertError(Tag.ReferenceWithShardKey, "app/Currency.java", "@ShardKey String code");
    c.assertErrorCount(1);
  }

  @Test
  void associationsAcrossGroupsAndFromReferenceTables() {
    Compilation c = Fixtures.model().source("app/Review.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        import java.util.Set;
        @Entity
        @CoLocated(with = Merchant.class)
        public class Review {
          @Id Long id;
          @ShardKey Long merchantId;
          @ManyToOne PurchaseOrder order;
          @ManyToOne Customer author;
          @ManyToMany Set<Customer> readers;
        }
        """).source("app/Region.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @Entity
        @ReferenceTable
        public class Region {
          @Id String code;
          @ManyToOne Country country;
          @OneToOne Merchant headquarters;
        }
        """).compileWith(new ShardwiseProcessor());
    String message =
        c.assertError(Tag.AssociationAcrossShards, "app/Review.java", "Customer author");
    assertTrue(message.contains("co-location group of Customer"), message);
    c.assertError(Tag.AssociationAcrossShards, "app/Review.java", "Set<Customer> readers");
    c.assertError(Tag.ReferenceToSharded, "app/Region.java", "Merchant headquarters");
    c.assertErrorCount(3);
  }

  @Test
  void snowflakeIdOnlyOnALongId() {
    Compilation c = Fixtures.model().source("io/shardwise/hibernate/id/SnowflakeId.java", """
        package io.shardwise.hibernate.id;
        /** Stands in for the runtime module's annotation, which the processor knows by name. */
        public @interface SnowflakeId {}
        """).source("app/Ticket.java", """
        package app;
        import io.shardwise.annotations.*;
        import io.shardwise.hibernate.id.SnowflakeId;
        import jakarta.persistence.*;
        @Entity
        @CoLocated(with = Merchant.class)
        public class Ticket {
          @Id @SnowflakeId String id;
          @ShardKey Long merchantId;
          @SnowflakeId long sequence;
        }
        """).source("app/Good.java", """
        package app;
        import io.shardwise.annotations.*;
        import io.shardwise.hibernate.id.SnowflakeId;
        import jakarta.persistence.*;
        @Entity
        @CoLocated(with = Merchant.class)
        public class Good {
          @Id @SnowflakeId Long id;
          @ShardKey Long merchantId;
        }
        """).compileWith(new ShardwiseProcessor());
    c.assertError(Tag.SnowflakeIdType, "app/Ticket.java", "String id");
    String message = c.assertError(Tag.SnowflakeIdType, "app/Ticket.java", "long sequence");
    assertTrue(message.contains("is not the @Id"), message);
    c.assertErrorCount(2);
  }

  @Test
  void aGeneratedShardKeyIdIsAWarningThatNamesTheSetting() {
    Compilation c = Fixtures.model().source("app/Owner.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @Entity
        public class Owner {
          @Id @ShardKey @GeneratedValue(strategy = GenerationType.IDENTITY) Integer id;
        }
        """).source("app/Ledger.java", """
        package app;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        @Entity
        public class Ledger {
          @SuppressWarnings("GeneratedShardKey")
          @Id @ShardKey @GeneratedValue(strategy = GenerationType.SEQUENCE) Long id;
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertWarning(Tag.GeneratedShardKey, "app/Owner.java", "Integer id");
    assertTrue(message.contains("Fix: set shardwise.ids.generated = cluster"), message);
    assertEquals(1, c.warnings(Tag.GeneratedShardKey).size(), "the suppressed one is quiet");
    c.assertErrorCount(0);
  }
}
