package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.readwrite.Consistency;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.ConsistencyTokenException;
import io.shardwise.hibernate.readwrite.Pin;
import io.shardwise.hibernate.readwrite.PinStore;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@link Consistency} with tokens signed by HMAC-SHA256 under {@code shardwise.ryw.secret}:
 * {@code v2.<base64url payload>.<signature>}, the payload holding the scope id, the expiry and one
 * line per pinned shard; the MAC also covers a label and the persistence unit's name (the token
 * format and its checks are described on {@link Consistency}).
 */
public final class SignedTokenConsistency implements Consistency {
  private static final String VERSION = "v2";
  /** What the MAC covers before the unit name and payload: no other use of the secret can produce it. */
  private static final String MAC_LABEL = "shardwise consistency token " + VERSION + "\n";

  private final PinStore store;
  private final byte[] secret;
  private final byte[] acceptedSecret;
  private final String unitName;
  private final long minLifetimeMillis;

  /**
   * @param secret signs and verifies tokens; null when none is configured
   * @param acceptedSecret verifies tokens only (secret rotation); null when none
   * @param minLifetimeMillis how long a token lives at least, pins or not
   */
  public SignedTokenConsistency(PinStore store, byte[] secret, byte[] acceptedSecret, String unitName,
      long minLifetimeMillis) {
    this.store = store;
    this.secret = secret;
    this.acceptedSecret = acceptedSecret;
    this.unitName = unitName;
    this.minLifetimeMillis = minLifetimeMillis;
  }

  @Override
  public ConsistencyScope scope(String id) {
    return new ConsistencyScope(id);
  }

  @Override
  public Map<String, Pin> pins(ConsistencyScope scope) {
    return store.pins(scope.id());
  }

  @Override
  public PinStore store() {
    return store;
  }

  @Override
  public String token(ConsistencyScope scope) {
    byte[] key = signingSecret();
    Map<String, Pin> pins = new TreeMap<>(store.pins(scope.id()));
    long expires = System.currentTimeMillis() + minLifetimeMillis;
    StringBuilder body = new StringBuilder();
    for (Map.Entry<String, Pin> e : pins.entrySet()) {
      Pin p = e.getValue();
      expires = Math.max(expires, p.expiresAtMillis());
      body.append('\n').append(e.getKey()).append(' ').append(Long.toUnsignedString(p.minLsn(), 16)).append(' ')
          .append(p.primaryUntilMillis()).append(' ').append(p.maxWaitMillis()).append(' ').append(p.expiresAtMillis());
    }
    String payload = scope.id() + "\n" + expires + body;
    String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
    return VERSION + "." + encoded + "." + mac(key, encoded);
  }

  @Override
  public ConsistencyScope fromToken(ConsistencyScope expected, String token) {
    Objects.requireNonNull(expected, "expected scope");
    return verifyAndPin(token, expected);
  }

  @Override
  public ConsistencyScope fromToken(String token) {
    return verifyAndPin(token, null);
  }

  private ConsistencyScope verifyAndPin(String token, ConsistencyScope expected) {
    if (token == null || token.isBlank()) {
      throw new ConsistencyTokenException("No consistency token given: expected the value that token(scope)"
          + " returned, sent back by the client unchanged");
    }
    String[] parts = token.trim().split("\\.");
    if (parts.length != 3 || !parts[0].startsWith("v")) {
      throw new ConsistencyTokenException("Not a Shardwise consistency token (expected " + VERSION
          + ".<payload>.<signature>): '" + abbreviate(token) + "'");
    }
    if (!parts[0].equals(VERSION)) {
      throw new ConsistencyTokenException("Consistency token of version " + abbreviate(parts[0]) + " refused: this"
          + " instance reads " + VERSION + " tokens only (" + VERSION + " binds a token to its persistence unit)."
          + " Start a new scope with consistency().scope(id).");
    }
    if (!signedHere(parts[1], parts[2])) {
      throw new ConsistencyTokenException("Consistency token rejected: its signature does not match (forged,"
          + " altered, issued by another persistence unit than '" + unitName + "', or signed with a secret that"
          + " is neither " + ShardwiseSettings.RYW_SECRET + " nor " + ShardwiseSettings.RYW_ACCEPTED_SECRET
          + "). Start a new scope instead of trusting it.");
    }
    String[] lines;
    try {
      lines = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8).split("\n");
    } catch (IllegalArgumentException e) {
      throw new ConsistencyTokenException("Consistency token rejected: its payload is not base64url");
    }
    ConsistencyScope scope;
    long expires;
    Map<String, Pin> pins = new TreeMap<>();
    try {
      scope = new ConsistencyScope(lines[0]);
      expires = Long.parseLong(lines[1]);
      for (int i = 2; i < lines.length; i++) {
        String[] f = lines[i].split(" ");
        pins.put(f[0], new Pin(Long.parseUnsignedLong(f[1], 16), Long.parseLong(f[2]), Long.parseLong(f[3]),
            Long.parseLong(f[4])));
      }
    } catch (RuntimeException e) {
      // signed by a holder of the secret, yet not what token(...) writes
      throw new ConsistencyTokenException("Consistency token rejected: its signature is valid but its payload is"
          + " malformed (" + e + "); check that every instance runs the same Shardwise version");
    }
    if (expected != null && !expected.equals(scope)) {
      throw new ConsistencyTokenException("Consistency token rejected: it was issued for scope '" + scope.id()
          + "', not for scope '" + expected.id() + "' of this request; a token cannot be replayed for another"
          + " scope. Start the scope afresh with consistency().scope(id).");
    }
    long now = System.currentTimeMillis();
    if (now >= expires) {
      throw new ConsistencyTokenException("Consistency token for scope '" + scope.id() + "' expired "
          + (now - expires) + " ms ago; its writes are old enough that any healthy replica has them. Start a new"
          + " scope with consistency().scope(id).");
    }
    pins.forEach((shard, pin) -> {
      if (!pin.expired(now)) {
        store.pin(scope.id(), shard, pin);
      }
    });
    return scope;
  }

  private boolean signedHere(String encodedPayload, String signature) {
    byte[] given = signature.getBytes(StandardCharsets.US_ASCII);
    boolean match = MessageDigest.isEqual(mac(signingSecret(), encodedPayload).getBytes(StandardCharsets.US_ASCII),
        given);
    if (acceptedSecret != null) {
      // always computed, so the time taken does not tell which secret matched
      match |= MessageDigest.isEqual(mac(acceptedSecret, encodedPayload).getBytes(StandardCharsets.US_ASCII), given);
    }
    return match;
  }

  private byte[] signingSecret() {
    if (secret == null) {
      throw new ShardingConfigurationException("Consistency tokens need a signing secret: set "
          + ShardwiseSettings.RYW_SECRET + " (at least 32 random bytes, the same on every instance) in persistence"
          + " unit '" + unitName + "'. Start-up did not require it because the unit maps no @ReadYourWrites"
          + " entity: its scopes pin nothing, and its tokens would carry no pins");
    }
    return secret;
  }

  private String mac(byte[] key, String encodedPayload) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(MAC_LABEL.getBytes(StandardCharsets.UTF_8));
      mac.update((unitName + "\n").getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(
          mac.doFinal(encodedPayload.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }
}
