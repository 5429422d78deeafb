package io.shardwise.spring.boot.autoconfigure.seed;

import org.springframework.data.jpa.repository.JpaRepository;

public interface SeedOwnerRepository extends JpaRepository<SeedOwner, Long> {
}
