package io.shardwise.spring.boot.autoconfigure.scatter;

import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class ScatterTestApplication {
}
