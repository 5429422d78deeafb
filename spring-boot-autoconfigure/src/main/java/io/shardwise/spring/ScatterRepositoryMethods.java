package io.shardwise.spring;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.ShardingConfigurationException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import jakarta.persistence.EntityManager;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.support.JpaEntityInformation;
import org.springframework.data.jpa.repository.support.JpaRepositoryFactoryBean;
import org.springframework.data.jpa.repository.support.JpaRepositoryFragmentsContributor;
import org.springframework.data.querydsl.EntityPathResolver;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.core.RepositoryMetadata;
import org.springframework.data.repository.core.support.RepositoryComposition.RepositoryFragments;
import org.springframework.data.repository.core.support.RepositoryFragment;
import org.springframework.util.ReflectionUtils;

/**
 * Runs the Spring Data JPA repository methods marked {@link ScatterGather} (on the method, or on the
 * interface that declares it) on every shard, through {@link ShardedSessions#scatter()}: derived
 * query methods and {@code @Query} methods, returning the entity, {@code Optional}, {@code List},
 * {@code Stream}, {@code Page}, {@code Slice}, a count or an exists. Inside {@code @Transactional} the
 * query joins the transaction (its shard's part sees its uncommitted writes).
 *
 * <p>Each marked method is checked when its repository is created: a shape that cannot run on every
 * shard (a modifying or native query, a projection, a criterion through a collection, ...) stops the
 * application with {@link ShardingConfigurationException} naming the method, so that no marked
 * method ever runs on one shard only. Registered by the starter's auto-configuration; the marked
 * methods of each JPA repository become one repository fragment, called inside Spring Data's
 * transaction and exception translation advices like a custom implementation.
 */
public final class ScatterRepositoryMethods implements BeanPostProcessor {
  private final Supplier<ShardedSessions> shards;

  public ScatterRepositoryMethods(Supplier<ShardedSessions> shards) {
    this.shards = shards;
  }

  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    if (bean instanceof JpaRepositoryFactoryBean<?, ?, ?> factoryBean) {
      factoryBean.setRepositoryFragmentsContributor(factoryBean.getRepositoryFragmentsContributor().andThen(
          new JpaRepositoryFragmentsContributor() {
            @Override
            public RepositoryFragments contribute(RepositoryMetadata repository, JpaEntityInformation<?, ?> entity,
                EntityManager entityManager, EntityPathResolver resolver) {
              return markedMethods(repository);
            }

            @Override
            public RepositoryFragments describe(RepositoryMetadata repository) {
              return RepositoryFragments.empty();
            }
          }));
    }
    return bean;
  }

  /**
   * The marked methods of a repository, as one fragment that implements them: Spring Data then
   * treats them like the methods of a custom implementation, creates no query of its own for them
   * (which would run on one shard) and calls the fragment.
   */
  private RepositoryFragments markedMethods(RepositoryMetadata repository) {
    Map<Method, ScatterQueryMethod> marked = new HashMap<>();
    Class<?> repositoryInterface = repository.getRepositoryInterface();
    for (Method method : repositoryInterface.getMethods()) {
      if (!isMarked(method) || method.isDefault() || !Repository.class.isAssignableFrom(method.getDeclaringClass())) {
        continue;
      }
      if (ReflectionUtils.findMethod(JpaRepository.class, method.getName(), method.getParameterTypes()) != null) {
        throw refused(method, "Spring Data implements it itself (a CRUD method of JpaRepository); declare a query"
            + " method instead, e.g. findAllBy()");
      }
      marked.put(method, new ScatterQueryMethod(method, repository, shards));
    }
    if (marked.isEmpty()) {
      return RepositoryFragments.empty();
    }
    Object implementation = Proxy.newProxyInstance(repositoryInterface.getClassLoader(),
        new Class<?>[] {repositoryInterface}, (proxy, method, arguments) -> {
          ScatterQueryMethod scatter = marked.get(method);
          if (scatter == null) {
            throw new IllegalStateException(describe(method) + " is not a @ScatterGather method");
          }
          return scatter.invoke(arguments == null ? new Object[0] : arguments);
        });
    return RepositoryFragments.of(new MarkedMethods(repositoryInterface, implementation, Set.copyOf(marked.keySet())));
  }

  /** The fragment: the marked methods only, implemented by a proxy of the repository interface. */
  private record MarkedMethods(Class<?> repositoryInterface, Object implementation, Set<Method> marked)
      implements RepositoryFragment<Object> {

    @Override
    public boolean hasMethod(Method method) {
      return marked.stream().anyMatch(m -> m.getName().equals(method.getName())
          && Arrays.equals(m.getParameterTypes(), method.getParameterTypes()));
    }

    @Override
    public Optional<Object> getImplementation() {
      return Optional.of(implementation);
    }

    @Override
    public Stream<Method> methods() {
      return marked.stream();
    }

    @Override
    public List<Method> findMethods(String name) {
      return marked.stream().filter(m -> m.getName().equals(name)).toList();
    }

    @Override
    public Class<?> getSignatureContributor() {
      return repositoryInterface;
    }

    @Override
    public RepositoryFragment<Object> withImplementation(Object other) {
      return new MarkedMethods(repositoryInterface, other, marked);
    }
  }

  private static boolean isMarked(Method method) {
    return method.isAnnotationPresent(ScatterGather.class)
        || method.getDeclaringClass().isAnnotationPresent(ScatterGather.class);
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }

  static ShardingConfigurationException refused(Method method, String why) {
    return new ShardingConfigurationException("@ScatterGather repository method " + describe(method)
        + " cannot run on every shard: " + why + ". Remove @ScatterGather to run it on the session's shard, or change"
        + " the method.");
  }
}
