package io.shardwise.spring.boot.autoconfigure.scatterrefused;

import io.shardwise.spring.boot.autoconfigure.scatter.ScatterOwner;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;

@SpringBootApplication
@EntityScan(basePackageClasses = ScatterOwner.class)
public class RefusedScatterApplication {
}
