package io.shardwise.hibernate.scatter;

import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/** A session factory for planning queries only: the PostgreSQL dialect, no database connection. */
final class PlanOnlySessionFactory {
  private PlanOnlySessionFactory() {}

  static SessionFactory of(Class<?>... entities) {
    Configuration configuration = new Configuration();
    for (Class<?> entity : entities) {
      configuration.addAnnotatedClass(entity);
    }
    return configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
        .setProperty("hibernate.boot.allow_jdbc_metadata_access", "false")
        .setProperty("hibernate.hbm2ddl.auto", "none")
        .buildSessionFactory();
  }
}
