package io.shardwise.spring.boot.autoconfigure.shop;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class ShopTestApplication {
  /** The application's registry: the starter hands it to Shardwise (docs/operations.md). */
  @Bean
  SimpleMeterRegistry meterRegistry() {
    return new SimpleMeterRegistry();
  }

  /** The application's observation registry: the starter hands it to Shardwise. */
  @Bean
  TestObservationRegistry observationRegistry() {
    return TestObservationRegistry.create();
  }
}
