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
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@link Consistency} with tokens signed by HMAC-SHA256 under {@code shardwise.ryw.secret}:
 * {@code v1.<base64url payload>.<signature>}, the payload holding the scope id, the expiry and one
 * line per pinned shard.
 */
public final class SignedTokenConsistency implements Consistency {
  private static final String VERSION = "v1";

  private final PinStore store;
  private final byte[] secret;
  private final String unitName;

  public SignedTokenConsistency(PinStore store, byte[] secret, String unitName) {
    this.store = store;
    this.secret = secret;
    this.unitName = unitName;
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
    Map<String, Pin> pins = new TreeMap<>(store.pins(scope.id()));
    long expires = System.currentTimeMillis();
    StringBuilder body = new StringBuilder();
    for (Map.Entry<String, Pin> e : pins.entrySet()) {
      Pin p = e.getValue();
      expires = Math.max(expires, p.expiresAtMillis());
      body.append('\n').append(e.getKey()).append(' ').append(Long.toUnsignedString(p.minLsn(), 16)).append(' ')
          .append(p.primaryUntilMillis()).append(' ').append(p.maxWaitMillis()).append(' ').append(p.expiresAtMillis());
    }
    String payload = scope.id() + "\n" + expires + body;
    String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(payload.getBytes(StandardCharsets.UTF_8));
    return VERSION + "." + encoded + "." + sign(VERSION + "." + encoded);
  }

  @Override
  public ConsistencyScope fromToken(String token) {
    if (token == null || token.isBlank()) {
      throw new ConsistencyTokenException("No consistency token given: expected the value that token(scope)"
          + " returned, sent back by the client unchanged");
    }
    String[] parts = token.trim().split("\\.");
    if (parts.length != 3 || !parts[0].equals(VERSION)) {
      throw new ConsistencyTokenException("Not a Shardwise consistency token (expected v1.<payload>.<signature>):"
          + " '" + abbreviate(token) + "'");
    }
    byte[] expected = sign(parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, parts[2].getBytes(StandardCharsets.US_ASCII))) {
      throw new ConsistencyTokenException("Consistency token rejected: its signature does not match (forged,"
          + " altered, or signed with another shardwise.ryw.secret). Start a new scope instead of trusting it.");
    }
    String payload;
    try {
      payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new ConsistencyTokenException("Consistency token rejected: its payload is not base64url");
    }
    String[] lines = payload.split("\n");
    long now = System.currentTimeMillis();
    long expires = Long.parseLong(lines[1]);
    if (now >= expires) {
      throw new ConsistencyTokenException("Consistency token for scope '" + lines[0] + "' expired "
          + (now - expires) + " ms ago; its writes are old enough that any healthy replica has them. Start a new"
          + " scope with consistency().scope(id).");
    }
    ConsistencyScope scope = new ConsistencyScope(lines[0]);
    for (int i = 2; i < lines.length; i++) {
      String[] f = lines[i].split(" ");
      Pin pin = new Pin(Long.parseUnsignedLong(f[1], 16), Long.parseLong(f[2]), Long.parseLong(f[3]),
          Long.parseLong(f[4]));
      if (!pin.expired(now)) {
        store.pin(scope.id(), f[0], pin);
      }
    }
    return scope;
  }

  private String sign(String data) {
    if (secret == null) {
      throw new ShardingConfigurationException("Consistency tokens need a signing secret: set "
          + ShardwiseSettings.RYW_SECRET + " (at least 32 random bytes, the same on every instance) in persistence"
          + " unit '" + unitName + "'");
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(data.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }
}
