package io.shardwise.spring.boot.autoconfigure.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class ShopTestApplication {
}
