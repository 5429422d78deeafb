package io.shardwise.spring.boot.autoconfigure.seed;

import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class SeedTestApplication {
}
