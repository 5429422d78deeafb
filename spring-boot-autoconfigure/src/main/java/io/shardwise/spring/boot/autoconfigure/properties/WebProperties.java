package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.web.*}: choosing the shard of a web request (Spring MVC) and carrying the consistency token; the starter's own, never handed to Hibernate. */
public class WebProperties {
  /** Request header that carries the shard key, e.g. X-Merchant-Id. */
  private String keyHeader;

  /** Path variable that carries the shard key, e.g. merchantId for /merchants/{merchantId}/orders. */
  private String keyPathVariable;

  /** Java type of the shard key read from the request: long, int, string or uuid. */
  private String keyType = "long";

  /** Response header naming the shard that served the request (leave empty for none). */
  private String shardHeader;

  /**
   * Request and response header carrying the signed consistency token (read-your-writes across
   * requests), e.g. X-Consistency-Token; needs shardwise.ryw.secret. Empty: no token.
   */
  private String consistencyHeader;

  /**
   * Cookie carrying the consistency token, like consistency-header; set on any response of a
   * request that committed a write (redirects and views too). Empty: no cookie.
   */
  private String consistencyCookie;

  public String getConsistencyHeader() {
    return consistencyHeader;
  }

  public void setConsistencyHeader(String consistencyHeader) {
    this.consistencyHeader = consistencyHeader;
  }

  public String getConsistencyCookie() {
    return consistencyCookie;
  }

  public void setConsistencyCookie(String consistencyCookie) {
    this.consistencyCookie = consistencyCookie;
  }

  public String getKeyHeader() {
    return keyHeader;
  }

  public void setKeyHeader(String keyHeader) {
    this.keyHeader = keyHeader;
  }

  public String getKeyPathVariable() {
    return keyPathVariable;
  }

  public void setKeyPathVariable(String keyPathVariable) {
    this.keyPathVariable = keyPathVariable;
  }

  public String getKeyType() {
    return keyType;
  }

  public void setKeyType(String keyType) {
    this.keyType = keyType;
  }

  public String getShardHeader() {
    return shardHeader;
  }

  public void setShardHeader(String shardHeader) {
    this.shardHeader = shardHeader;
  }
}
