package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.internal.query.QueryGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.engine.spi.LoadQueryInfluencers;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.metamodel.mapping.JdbcMapping;
import org.hibernate.query.spi.QueryOptions;
import org.hibernate.query.spi.QueryParameterBindings;
import org.hibernate.query.sqm.internal.DomainParameterXref;
import org.hibernate.query.sqm.tree.SqmStatement;
import org.hibernate.query.sqm.tree.select.SqmSelectStatement;
import org.hibernate.sql.ast.spi.SqlSelection;
import org.hibernate.sql.ast.tree.select.SelectStatement;
import org.hibernate.sql.exec.spi.JdbcParameterBindings;
import org.hibernate.sql.exec.spi.JdbcSelect;
import org.hibernate.sql.results.graph.DomainResult;
import org.hibernate.sql.results.graph.basic.BasicResult;
import org.hibernate.type.descriptor.ValueExtractor;
import org.hibernate.type.descriptor.WrapperOptions;

/**
 * A shard part that returns scalars (aggregates, grouped aggregates) as one plain JDBC statement:
 * the SQL Hibernate renders for the shard query, translated once per query text, then run on each
 * shard's connection with no query object, parameter metadata, result-set processing or
 * persistence context. Each value is read by the same extractor and converter Hibernate would use
 * (an enum stored as text comes back as the enum), so a part read this way and one read through a
 * Hibernate query give equal rows ({@code ScalarPartSqlTest}).
 *
 * <p>Only for a shard query Hibernate translates without parameters, without filters, whose every
 * selection is one basic value in one column: anything else ({@link #compile} answers null) is read
 * through Hibernate as before. The text is the same for every shard and every execution, so
 * pgjdbc's per-connection statement cache prepares it on the server once per pooled connection.
 */
final class ScalarPartSql {
  private final String sql;
  private final JdbcMapping[] columns;
  private final WrapperOptions options;

  private ScalarPartSql(String sql, JdbcMapping[] columns, WrapperOptions options) {
    this.sql = sql;
    this.columns = columns;
    this.options = options;
  }

  /** The SQL the shards run. */
  String sql() {
    return sql;
  }

  /**
   * The plain statement of {@code shardHql}, or null when it must be read through Hibernate (it has
   * parameters, selects an entity or a multi-column value, the factory defines filters or inspects
   * statements, or this Hibernate version translates it in a way not understood here).
   */
  static ScalarPartSql compile(SessionFactoryImplementor factory, String shardHql) {
    if (!factory.getDefinedFilterNames().isEmpty()
        || factory.getSessionFactoryOptions().getStatementInspector() != null) {
      return null;
    }
    try {
      return QueryGuard.bypass(() -> translate(factory, shardHql));
    } catch (RuntimeException | LinkageError notUnderstood) {
      return null; // read through Hibernate, which reports any real error of the query itself
    }
  }

  private static ScalarPartSql translate(SessionFactoryImplementor factory, String shardHql) {
    SqmStatement<Object[]> statement = factory.getQueryEngine().interpretHql(shardHql, Object[].class)
        .getSqmStatement();
    if (!(statement instanceof SqmSelectStatement<Object[]> select) || !select.getSqmParameters().isEmpty()) {
      return null;
    }
    SelectStatement ast = factory.getQueryEngine().getSqmTranslatorFactory().createSelectTranslator(select,
        QueryOptions.NONE, DomainParameterXref.from(select), QueryParameterBindings.empty(),
        new LoadQueryInfluencers(factory), factory.getSqlTranslationEngine(), false).translate().getSqlAst();
    List<DomainResult<?>> results = ast.getDomainResultDescriptors();
    List<SqlSelection> selections = ast.getQuerySpec().getSelectClause().getSqlSelections();
    if (results.size() != selections.size()) {
      return null;
    }
    JdbcMapping[] columns = new JdbcMapping[selections.size()];
    for (int i = 0; i < columns.length; i++) {
      SqlSelection selection = selections.get(i);
      if (!(results.get(i) instanceof BasicResult<?>) || selection.getValuesArrayPosition() != i
          || selection.getJdbcResultSetIndex() != i + 1 || selection.getExpressionType() == null
          || selection.getExpressionType().getJdbcTypeCount() != 1) {
        return null;
      }
      columns[i] = selection.getExpressionType().getSingleJdbcMapping();
    }
    JdbcSelect jdbc = factory.getJdbcServices().getJdbcEnvironment().getSqlAstTranslatorFactory()
        .buildSelectTranslator(factory, ast).translate(JdbcParameterBindings.NO_BINDINGS, QueryOptions.NONE);
    if (!jdbc.getParameterBinders().isEmpty() || jdbc.usesLimitParameters()) {
      return null;
    }
    return new ScalarPartSql(jdbc.getSqlString(), columns, factory.getWrapperOptions());
  }

  /**
   * Runs the statement on {@code connection} and reads up to {@code maxRows} rows (all when -1);
   * the connection's deadline (its query timeout) applies as to any of its statements.
   */
  List<Object[]> read(Connection connection, int maxRows) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      if (maxRows >= 0) {
        statement.setMaxRows(maxRows);
      }
      try (ResultSet rs = statement.executeQuery()) {
        List<Object[]> rows = new ArrayList<>();
        int width = columns.length;
        while (rs.next()) {
          Object[] row = new Object[width];
          for (int i = 0; i < width; i++) {
            JdbcMapping column = columns[i];
            ValueExtractor<?> extractor = column.getJdbcValueExtractor();
            row[i] = column.convertToDomainValue(extractor.extract(rs, i + 1, options));
          }
          rows.add(row);
        }
        return rows;
      }
    }
  }
}
