package io.shardwise.sample.spring;

import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;

/**
 * A REST shop on sharded PostgreSQL, run with
 * {@code mvn -B -q -pl sample-spring-boot -am compile exec:java}: it starts the embedded topology
 * (2 shards, each a primary and a streaming replica), points shardwise.* at it and serves on
 * port 8080 (override with --server.port=...). A real application sets shardwise.* in
 * application.properties instead and has no testkit on its class path.
 */
@SpringBootApplication
public class ShopApplication {

  public static void main(String[] args) {
    PostgresTopology topology = PostgresTopology.builder().shards(2).replicasPerShard(1).start();
    SpringApplication app = new SpringApplication(ShopApplication.class);
    app.setDefaultProperties(Map.copyOf(shardwiseSettings(topology)));
    app.addListeners(event -> {
      if (event instanceof ContextClosedEvent) {
        topology.close();
      }
    });
    ConfigurableApplicationContext context = app.run(args);
    System.out.println("Shop up: try  curl -s localhost:" + context.getEnvironment().getProperty("local.server.port",
        "8080") + "/countries   (Ctrl-C stops the shop and its PostgreSQL servers)");
  }

  /** shardwise.* for a testkit topology: shard s<i> is shard i's primary with its replicas. */
  public static Map<String, Object> shardwiseSettings(PostgresTopology topology) {
    Map<String, Object> settings = new LinkedHashMap<>();
    StringBuilder ids = new StringBuilder();
    for (PostgresShard shard : topology.shards()) {
      String id = "s" + shard.index();
      ids.append(ids.isEmpty() ? "" : ",").append(id);
      settings.put("shardwise.shard." + id + ".url", shard.primary().jdbcUrl());
      settings.put("shardwise.shard." + id + ".replicas", String.join(",",
          shard.replicas().stream().map(r -> r.jdbcUrl()).toList()));
    }
    settings.put("shardwise.shards", ids.toString());
    settings.put("shardwise.user", "postgres");
    return settings;
  }
}
