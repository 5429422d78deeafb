package io.shardwise.hibernate.internal.query;

import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.query.ShardKeyValues.KeyPins;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.hibernate.metamodel.mapping.JdbcMapping;
import org.hibernate.sql.exec.internal.JdbcParameterImpl;
import org.hibernate.sql.exec.spi.ExecutionContext;
import org.hibernate.sql.exec.spi.JdbcParameterBindings;

/**
 * A shard key pinned to a literal ({@code o.merchantId = 42}), sent as a JDBC parameter whose
 * value is that literal, so that every execution checks it against the session's shard: a literal
 * rendered into the SQL text would be judged once, for whichever session translated it first.
 */
final class CheckedKeyLiteral extends JdbcParameterImpl {
  private final Object value;
  private final ShardedEntity entity;
  private final KeyPins pins;
  private final ShardKeyValues values;

  CheckedKeyLiteral(JdbcMapping mapping, Object value, ShardedEntity entity, KeyPins pins, ShardKeyValues values) {
    super(mapping);
    this.value = value;
    this.entity = entity;
    this.pins = pins;
    this.values = values;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void bindParameterValue(PreparedStatement statement, int startPosition, JdbcParameterBindings bindings,
      ExecutionContext executionContext) throws SQLException {
    values.requireQueryValue(pins, entity, value, executionContext.getSession());
    JdbcMapping mapping = getJdbcMapping();
    Object jdbcValue = mapping.getJdbcJavaType().wrap(value, executionContext.getSession());
    ((org.hibernate.type.descriptor.ValueBinder) mapping.getJdbcValueBinder())
        .bind(statement, jdbcValue, startPosition, executionContext.getSession());
  }
}
