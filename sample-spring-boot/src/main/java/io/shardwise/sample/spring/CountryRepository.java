package io.shardwise.sample.spring;

import org.springframework.data.jpa.repository.JpaRepository;

interface CountryRepository extends JpaRepository<Country, String> {
}
