package io.shardwise.hibernate.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Credentials never reach a message, and everything else about the URL still does. */
class JdbcUrlsTest {

  @Test
  void passwordsInTheQueryAreMaskedAndOtherParametersKept() {
    assertEquals("jdbc:postgresql://db:5432/shop?user=app&password=***&connectTimeout=2",
        JdbcUrls.redact("jdbc:postgresql://db:5432/shop?user=app&password=s3cret&connectTimeout=2"));
    assertEquals("jdbc:postgresql://db/shop?sslpassword=***&PASSWORD=***&authToken=***&ssl",
        JdbcUrls.redact("jdbc:postgresql://db/shop?sslpassword=a&PASSWORD=b&authToken=c&ssl"));
  }

  @Test
  void aPasswordInTheAuthorityIsMaskedAndTheUserKept() {
    assertEquals("jdbc:postgresql://app:***@db:5432/shop", JdbcUrls.redact("jdbc:postgresql://app:s3cret@db:5432/shop"));
    assertEquals("jdbc:postgresql://app@db/shop", JdbcUrls.redact("jdbc:postgresql://app@db/shop"));
    assertEquals("jdbc:postgresql://app:***@db/shop?password=***",
        JdbcUrls.redact("jdbc:postgresql://app:p@ss:word@db/shop?password=p@ss"));
  }

  @Test
  void urlsWithoutSecretsAreUnchanged() {
    assertEquals("jdbc:postgresql://db1:5432,db2:5433/shop?targetServerType=primary",
        JdbcUrls.redact("jdbc:postgresql://db1:5432,db2:5433/shop?targetServerType=primary"));
    assertEquals("jdbc:postgresql:shop", JdbcUrls.redact("jdbc:postgresql:shop"));
    assertEquals("null", JdbcUrls.redact(null));
  }

  @Test
  void hostPortLeavesOutCredentialsAndParameters() {
    assertEquals("db:5432", JdbcUrls.hostPort("jdbc:postgresql://app:s3cret@db:5432/shop?password=x"));
    assertEquals("db:5432", JdbcUrls.hostPort("jdbc:postgresql://db:5432?password=x"));
  }

  @Test
  void databaseIsThePathAfterTheServer() {
    assertEquals("shop", JdbcUrls.database("jdbc:postgresql://app:s3/cret@db:5432/shop?password=x"));
    assertEquals("shop", JdbcUrls.database("jdbc:postgresql://db1:5432,db2:5432/shop"));
    assertNull(JdbcUrls.database("jdbc:postgresql://db:5432?user=app"));
    assertNull(JdbcUrls.database("jdbc:postgresql://db:5432/"));
  }
}
