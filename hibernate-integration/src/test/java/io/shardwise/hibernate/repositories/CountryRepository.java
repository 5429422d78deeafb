package io.shardwise.hibernate.repositories;

import io.shardwise.hibernate.shop.Country;
import jakarta.data.repository.Find;
import jakarta.data.repository.Repository;
import java.util.Optional;

/** A repository of a reference table: its reads need no shard. */
@Repository
public interface CountryRepository {
  @Find
  Optional<Country> byCode(String code);
}
