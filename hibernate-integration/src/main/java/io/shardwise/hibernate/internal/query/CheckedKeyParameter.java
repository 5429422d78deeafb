package io.shardwise.hibernate.internal.query;

import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.query.ShardKeyValues.KeyPins;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.hibernate.sql.exec.internal.SqlTypedMappingJdbcParameter;
import org.hibernate.sql.exec.spi.ExecutionContext;
import org.hibernate.sql.exec.spi.JdbcParameterBinding;
import org.hibernate.sql.exec.spi.JdbcParameterBindings;

/**
 * The JDBC parameter of a shard key pin ({@code key = :p}): on every execution, before its value
 * is bound, the value must belong to the shard of the session that runs the statement. Takes the
 * place of the parameter Hibernate created, with the same type mapping and id.
 */
final class CheckedKeyParameter extends SqlTypedMappingJdbcParameter {
  private final ShardedEntity entity;
  private final KeyPins pins;
  private final ShardKeyValues values;

  CheckedKeyParameter(SqlTypedMappingJdbcParameter replaced, ShardedEntity entity, KeyPins pins,
      ShardKeyValues values) {
    super(replaced.getSqlTypedMapping(), replaced.getParameterId());
    this.entity = entity;
    this.pins = pins;
    this.values = values;
  }

  @Override
  public void bindParameterValue(PreparedStatement statement, int startPosition, JdbcParameterBindings bindings,
      ExecutionContext executionContext) throws SQLException {
    JdbcParameterBinding binding = bindings.getBinding(this);
    if (binding != null) {
      values.requireQueryValue(pins, entity, binding.getBindValue(), executionContext.getSession());
    }
    super.bindParameterValue(statement, startPosition, bindings, executionContext);
  }
}
