package io.shardwise.spring.boot.autoconfigure;

import java.util.List;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;

/**
 * Defaults of a Shardwise application, below everything the application sets:
 * <ul>
 *   <li>{@code spring.jpa.open-in-view=false}: an EntityManager opened for the whole web request
 *       would open before the request's shard is known, and every transaction of the request would
 *       join it — on no shard, and never on a replica.</li>
 *   <li>{@code spring.jpa.hibernate.ddl-auto=none}: Hibernate's schema tools reach one shard only;
 *       {@code shardwise.schema.action} runs them on every shard. (It also spares Boot a probe
 *       connection at startup to guess a default.)</li>
 * </ul>
 */
public final class ShardwiseEnvironmentPostProcessor implements EnvironmentPostProcessor {
  static final String SOURCE = "shardwiseDefaults";

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (!configured(environment) || environment.getPropertySources().contains(SOURCE)) {
      return;
    }
    environment.getPropertySources().addLast(new MapPropertySource(SOURCE, Map.of(
        "spring.jpa.open-in-view", "false",
        "spring.jpa.hibernate.ddl-auto", "none")));
  }

  static boolean configured(Environment environment) {
    return environment.containsProperty("shardwise.control.url")
        || Binder.get(environment).bind("shardwise.shards", Bindable.listOf(String.class))
            .map(List::isEmpty).map(empty -> !empty).orElse(false);
  }
}
