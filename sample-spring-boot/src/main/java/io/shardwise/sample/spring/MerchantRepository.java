package io.shardwise.sample.spring;

import org.springframework.data.jpa.repository.JpaRepository;

interface MerchantRepository extends JpaRepository<Merchant, Long> {
}
