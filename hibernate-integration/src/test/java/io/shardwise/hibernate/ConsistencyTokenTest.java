package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.readwrite.Consistency;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.ConsistencyTokenException;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.hibernate.scatter.Sale;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** What a consistency token is bound to, how long it lives, and when a missing secret is found. */
@ShardedPostgres(shards = 1, scope = ShardedPostgres.Scope.RUN)
class ConsistencyTokenTest {
  private static final String SECRET = "0123456789abcdef0123456789abcdef-test-only";
  private static final String NEW_SECRET = "fedcba9876543210fedcba9876543210-rotated";
  private static final AtomicLong ids = new AtomicLong(1);

  private static Shardwise.Builder builder(PostgresTopology pg, String unit) {
    return Shardwise.configure().credentials("postgres", null).entities(Profile.class).schema("update")
        .property("hibernate.persistenceUnitName", unit)
        .shard("s0", pg.shard(0).primary().jdbcUrl());
  }

  @Test
  void aTokenCannotBeReplayedForAnotherScope(PostgresTopology pg) {
    try (SessionFactory sf = builder(pg, "profiles").property(ShardwiseSettings.RYW_SECRET, SECRET).buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long alice = ids.getAndIncrement();
      ConsistencyScope aliceScope = shards.consistency().scope("user:" + alice);
      shards.forKey(alice).within(aliceScope).inTransaction(s -> s.persist(new Profile(alice, "alice")));
      String aliceToken = shards.consistency().token(aliceScope);

      ConsistencyScope mallory = shards.consistency().scope("user:mallory");
      ConsistencyTokenException replay = assertThrows(ConsistencyTokenException.class,
          () -> shards.consistency().fromToken(mallory, aliceToken));
      assertTrue(replay.getMessage().contains("issued for scope 'user:" + alice + "', not for scope 'user:mallory'"),
          replay.getMessage());
      assertTrue(shards.consistency().pins(mallory).isEmpty(), "the replayed token pinned nothing");

      // swapping the scope id inside the payload breaks the MAC, which covers it
      String[] parts = aliceToken.split("\\.");
      String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
      String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(
          payload.replaceFirst("^user:" + alice, "user:mallory").getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
      assertTrue(assertThrows(ConsistencyTokenException.class, () -> shards.consistency().fromToken(mallory, forged))
          .getMessage().contains("signature does not match"));

      assertEquals(aliceScope, shards.consistency().fromToken(aliceScope, aliceToken), "its own scope reads it");
      assertEquals(1, shards.consistency().pins(aliceScope).size());
    }
  }

  @Test
  void aTokenOfAnotherPersistenceUnitWithTheSameSecretIsRefused(PostgresTopology pg) {
    try (SessionFactory orders = builder(pg, "orders").property(ShardwiseSettings.RYW_SECRET, SECRET).buildSessionFactory();
        SessionFactory billing = builder(pg, "billing").property(ShardwiseSettings.RYW_SECRET, SECRET).buildSessionFactory()) {
      ConsistencyScope scope = ShardedSessions.of(orders).consistency().scope("user:1");
      String token = ShardedSessions.of(orders).consistency().token(scope);
      ConsistencyTokenException e = assertThrows(ConsistencyTokenException.class,
          () -> ShardedSessions.of(billing).consistency().fromToken(scope, token));
      assertTrue(e.getMessage().contains("issued by another persistence unit than 'billing'"), e.getMessage());
      assertEquals(scope, ShardedSessions.of(orders).consistency().fromToken(scope, token));
    }
  }

  @Test
  void aTokenIssuedWithoutPinsIsReadableOnTheNextRequest(PostgresTopology pg) {
    try (SessionFactory sf = builder(pg, "profiles").property(ShardwiseSettings.RYW_SECRET, SECRET).buildSessionFactory()) {
      Consistency consistency = ShardedSessions.of(sf).consistency();
      ConsistencyScope fresh = consistency.scope("user:nothing-written-yet");
      String token = consistency.token(fresh);
      // used to expire the moment it was issued: its expiry was "now" when it had no pin to outlive
      assertEquals(fresh, consistency.fromToken(fresh, token));
      assertEquals(fresh, consistency.fromToken(token));
    }
  }

  @Test
  void aMissingSecretFailsAtStartUpWhenTheUnitPins(PostgresTopology pg) {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> builder(pg, "profiles").buildSessionFactory().close());
    assertTrue(e.getMessage().contains("Persistence unit 'profiles' maps @ReadYourWrites entities [Profile] but has no"
        + " shardwise.ryw.secret"), e.getMessage());

    // a unit without @ReadYourWrites entities pins nothing and starts without one; asking it for a
    // token says why start-up did not insist
    try (SessionFactory plain = Shardwise.configure().credentials("postgres", null).entities(Sale.class)
        .schema("update").property("hibernate.persistenceUnitName", "sales")
        .shard("s0", pg.shard(0).primary().jdbcUrl()).buildSessionFactory()) {
      Consistency consistency = ShardedSessions.of(plain).consistency();
      ShardingConfigurationException late = assertThrows(ShardingConfigurationException.class,
          () -> consistency.token(consistency.scope("user:1")));
      assertTrue(late.getMessage().contains("maps no @ReadYourWrites entity"), late.getMessage());
    }
  }

  @Test
  void anAcceptedSecretLetsTokensSurviveARotation(PostgresTopology pg) {
    try (SessionFactory before = builder(pg, "profiles").property(ShardwiseSettings.RYW_SECRET, SECRET).buildSessionFactory();
        SessionFactory after = builder(pg, "profiles").property(ShardwiseSettings.RYW_SECRET, NEW_SECRET)
            .property(ShardwiseSettings.RYW_ACCEPTED_SECRET, SECRET).buildSessionFactory();
        SessionFactory unaware = builder(pg, "profiles").property(ShardwiseSettings.RYW_SECRET, NEW_SECRET)
            .buildSessionFactory()) {
      ConsistencyScope scope = ShardedSessions.of(before).consistency().scope("user:2");
      String oldToken = ShardedSessions.of(before).consistency().token(scope);
      assertEquals(scope, ShardedSessions.of(after).consistency().fromToken(scope, oldToken));
      assertThrows(ConsistencyTokenException.class, () -> ShardedSessions.of(unaware).consistency().fromToken(oldToken));
      // the accepted secret verifies only: tokens are signed with the new one
      String newToken = ShardedSessions.of(after).consistency().token(scope);
      assertEquals(scope, ShardedSessions.of(unaware).consistency().fromToken(scope, newToken));
      assertThrows(ConsistencyTokenException.class, () -> ShardedSessions.of(before).consistency().fromToken(newToken));
    }
  }

  @Test
  void aVersionOneTokenIsRefusedWithTheReason(PostgresTopology pg) {
    try (SessionFactory sf = builder(pg, "profiles").property(ShardwiseSettings.RYW_SECRET, SECRET).buildSessionFactory()) {
      ConsistencyTokenException e = assertThrows(ConsistencyTokenException.class,
          () -> ShardedSessions.of(sf).consistency().fromToken("v1.dXNlcjoxCjE3OTk5OTk5OTk5OTk.c2ln"));
      assertTrue(e.getMessage().contains("version v1 refused") && e.getMessage().contains("persistence unit"),
          e.getMessage());
    }
  }
}
