package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Global-index table names: qualified, never truncated by the server, never shared; the scripts. */
class ShardwiseDdlTest {

  @Test
  void aShortNameIsReadableAndQualified() {
    assertEquals("shardwise.gidx_customer_email",
        ShardwiseDdl.globalIndexTable("com.example.Customer", "Customer", "email", false));
    assertEquals("\"shardwise\".\"gidx_customer_email\"", ShardwiseDdl.quoted("shardwise.gidx_customer_email"));
  }

  @Test
  void aLongNameIsCutWithAHashAndTwoLongNamesWithTheSamePrefixDiffer() {
    String entity = "SubscriptionRenewalReminderPreference";
    String a = ShardwiseDdl.globalIndexTable("com.example." + entity, entity, "secondaryNotificationAddressA", false);
    String b = ShardwiseDdl.globalIndexTable("com.example." + entity, entity, "secondaryNotificationAddressB", false);
    for (String name : new String[] {a, b}) {
      String bare = name.substring("shardwise.".length());
      assertTrue(bare.getBytes(StandardCharsets.UTF_8).length <= 63, name);
      assertTrue(bare.matches("gidx_subscriptionrenewal.*_[0-9a-f]{8}"), name);
    }
    assertNotEquals(a, b);
  }

  @Test
  void namesThatCollideAreDisambiguatedByTheEntitysFullName() {
    String a = ShardwiseDdl.globalIndexTable("a.Customer", "Customer", "email", true);
    String b = ShardwiseDdl.globalIndexTable("b.Customer", "Customer", "email", true);
    assertNotEquals(a, b);
    assertTrue(a.startsWith("shardwise.gidx_customer_email_"), a);
  }

  @Test
  void multiByteNamesAreCutOnCharacterBoundaries() {
    String name = ShardwiseDdl.globalIndexTable("x.Ärger", "Ärger" + "ü".repeat(40), "wert", false);
    String bare = name.substring("shardwise.".length());
    assertTrue(bare.getBytes(StandardCharsets.UTF_8).length <= 63, name);
    assertEquals(bare, new String(bare.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
  }

  @Test
  void aScriptCreatesIdempotentlyAndGrantsTheRoleWhatItNeeds() {
    String script = ShardwiseDdl.Feature.SAGA_MARKERS.script("app\"role");
    assertTrue(script.contains("CREATE SCHEMA IF NOT EXISTS shardwise;"), script);
    assertTrue(script.contains("CREATE TABLE IF NOT EXISTS shardwise.saga_applied ("), script);
    assertTrue(script.contains("GRANT USAGE ON SCHEMA shardwise TO \"app\"\"role\";"), script);
    assertTrue(script.contains("GRANT SELECT, INSERT ON \"shardwise\".\"saga_applied\" TO \"app\"\"role\";"), script);
  }
}
