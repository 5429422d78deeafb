package io.shardwise.processor;

import java.util.Map;

/**
 * Minimal stand-ins for the Spring Data types the processor recognises by name, compiled with each
 * test: the processor has no Spring dependency, and neither have its tests. Same packages and
 * names as Spring Data Commons / JPA, only the members the fixtures use.
 */
final class SpringDataFixtures {

  static final Map<String, String> STAND_INS = Map.ofEntries(
      Map.entry("org/springframework/data/repository/Repository.java", """
          package org.springframework.data.repository;
          public interface Repository<T, ID> {}
          """),
      Map.entry("org/springframework/data/repository/NoRepositoryBean.java", """
          package org.springframework.data.repository;
          public @interface NoRepositoryBean {}
          """),
      Map.entry("org/springframework/data/repository/RepositoryDefinition.java", """
          package org.springframework.data.repository;
          public @interface RepositoryDefinition {
            Class<?> domainClass();
            Class<?> idClass();
          }
          """),
      Map.entry("org/springframework/data/repository/CrudRepository.java", """
          package org.springframework.data.repository;
          import java.util.Optional;
          @NoRepositoryBean
          public interface CrudRepository<T, ID> extends Repository<T, ID> {
            <S extends T> S save(S entity);
            Optional<T> findById(ID id);
            boolean existsById(ID id);
            Iterable<T> findAll();
            Iterable<T> findAllById(Iterable<ID> ids);
            long count();
            void deleteById(ID id);
            void delete(T entity);
            void deleteAll();
          }
          """),
      Map.entry("org/springframework/data/repository/ListCrudRepository.java", """
          package org.springframework.data.repository;
          import java.util.List;
          @NoRepositoryBean
          public interface ListCrudRepository<T, ID> extends CrudRepository<T, ID> {
            List<T> findAll();
          }
          """),
      Map.entry("org/springframework/data/repository/PagingAndSortingRepository.java", """
          package org.springframework.data.repository;
          import org.springframework.data.domain.*;
          @NoRepositoryBean
          public interface PagingAndSortingRepository<T, ID> extends Repository<T, ID> {
            Iterable<T> findAll(Sort sort);
            Page<T> findAll(Pageable pageable);
          }
          """),
      Map.entry("org/springframework/data/jpa/repository/JpaRepository.java", """
          package org.springframework.data.jpa.repository;
          import java.util.List;
          import org.springframework.data.repository.*;
          @NoRepositoryBean
          public interface JpaRepository<T, ID>
              extends ListCrudRepository<T, ID>, PagingAndSortingRepository<T, ID> {
            void flush();
            T getReferenceById(ID id);
          }
          """),
      Map.entry("org/springframework/data/jpa/repository/Query.java", """
          package org.springframework.data.jpa.repository;
          public @interface Query {
            String value() default "";
            String countQuery() default "";
            boolean nativeQuery() default false;
          }
          """),
      Map.entry("org/springframework/data/jpa/repository/NativeQuery.java", """
          package org.springframework.data.jpa.repository;
          public @interface NativeQuery {
            String value() default "";
          }
          """),
      Map.entry("org/springframework/data/repository/query/Param.java", """
          package org.springframework.data.repository.query;
          public @interface Param {
            String value();
          }
          """),
      Map.entry("org/springframework/data/domain/Sort.java", """
          package org.springframework.data.domain;
          public class Sort {}
          """),
      Map.entry("org/springframework/data/domain/Pageable.java", """
          package org.springframework.data.domain;
          public interface Pageable {}
          """),
      Map.entry("org/springframework/data/domain/Page.java", """
          package org.springframework.data.domain;
          public interface Page<T> extends Iterable<T> {}
          """),
      Map.entry("org/springframework/data/domain/Example.java", """
          package org.springframework.data.domain;
          public interface Example<T> {}
          """));

  private SpringDataFixtures() {}

  /** The sharded model of {@link Fixtures} with the Spring Data stand-ins beside it. */
  static Compilation model() {
    Compilation compilation = Fixtures.model();
    STAND_INS.forEach(compilation::source);
    return compilation;
  }
}
