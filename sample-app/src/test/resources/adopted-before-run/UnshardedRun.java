package io.shardwise.sample.adopted;

import java.time.LocalDate;
import java.util.List;
import java.util.function.Function;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * Compiled by {@code UnshardedOriginalTest} together with the unsharded model in
 * {@code sample-app/adopted-before}: what that application does, with plain Hibernate on one
 * database. Takes a JDBC URL, answers how many owners the search by last name found.
 */
public class UnshardedRun implements Function<String, String> {
  @Override
  public String apply(String url) {
    Configuration plain = new Configuration().setProperty("hibernate.connection.url", url)
        .setProperty("hibernate.connection.username", "postgres").setProperty("hibernate.hbm2ddl.auto", "create")
        .addAnnotatedClass(Owner.class).addAnnotatedClass(Pet.class).addAnnotatedClass(Visit.class)
        .addAnnotatedClass(PetType.class);
    try (SessionFactory sf = plain.buildSessionFactory()) {
      sf.inTransaction(session -> {
        PetType cat = new PetType(1, "cat");
        session.persist(cat);
        for (String lastName : List.of("Davis", "Franklin", "Davis")) {
          Owner owner = new Owner("George", lastName, "Madison");
          owner.addPet("Leo", cat).addVisit(LocalDate.of(2026, 1, 1), "rabies shot");
          session.persist(owner);
        }
      });
      return sf.fromSession(session -> session.createNamedQuery("Owner.byLastName", Owner.class)
          .setParameter("lastName", "Davis").getResultList().size()) + " Davis";
    }
  }
}
