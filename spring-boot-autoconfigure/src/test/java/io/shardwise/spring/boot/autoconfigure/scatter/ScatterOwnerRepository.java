package io.shardwise.spring.boot.autoconfigure.scatter;

import io.shardwise.annotations.ScatterGather;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface ScatterOwnerRepository extends JpaRepository<ScatterOwner, Long> {

  @ScatterGather
  List<ScatterOwner> findByLastNameStartingWith(String prefix);

  @ScatterGather
  Page<ScatterOwner> findByLastNameStartingWith(String prefix, Pageable pageable);

  @ScatterGather
  List<ScatterOwner> findByLastNameContaining(String part);

  @ScatterGather
  List<ScatterOwner> findByLastNameEndingWithIgnoreCase(String suffix);

  @ScatterGather
  Page<ScatterOwner> findByCity(String city, Pageable pageable);

  @ScatterGather
  Slice<ScatterOwner> findSliceByCity(String city, Pageable pageable);

  @ScatterGather
  Stream<ScatterOwner> streamByCityOrderByLastNameDesc(String city);

  @ScatterGather
  Optional<ScatterOwner> findByLastName(String lastName);

  @ScatterGather
  ScatterOwner findFirstByCityOrderByLastNameAsc(String city);

  @ScatterGather
  long countByCity(String city);

  @ScatterGather
  boolean existsByLastName(String lastName);

  @ScatterGather
  @Query("select o from ScatterOwner o where o.city = :city and o.lastName like :prefix%")
  Page<ScatterOwner> inCityStartingWith(@Param("city") String city, @Param("prefix") String prefix, Pageable pageable);

  @ScatterGather
  @Query("select o.lastName from #{#entityName} o where o.city = ?1 order by o.lastName")
  List<String> lastNamesIn(String city);

  /** Unmarked: Spring Data runs it on the session's shard, as before. */
  List<ScatterOwner> findByIdAndCity(long id, String city);
}
