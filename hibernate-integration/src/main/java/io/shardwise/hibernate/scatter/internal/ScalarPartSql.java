package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.internal.query.QueryGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.engine.spi.LoadQueryInfluencers;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.metamodel.mapping.JdbcMapping;
import org.hibernate.metamodel.mapping.MappingModelExpressible;
import org.hibernate.query.QueryParameter;
import org.hibernate.query.spi.HqlInterpretation;
import org.hibernate.query.spi.Limit;
import org.hibernate.query.spi.ParameterMetadataImplementor;
import org.hibernate.query.spi.QueryOptions;
import org.hibernate.query.spi.QueryOptionsAdapter;
import org.hibernate.query.spi.QueryParameterBinding;
import org.hibernate.query.spi.QueryParameterBindings;
import org.hibernate.query.spi.QueryParameterImplementor;
import org.hibernate.query.sqm.internal.DomainParameterXref;
import org.hibernate.query.sqm.internal.SqmUtil;
import org.hibernate.query.sqm.spi.SqmParameterMappingModelResolutionAccess;
import org.hibernate.query.sqm.sql.SqmTranslation;
import org.hibernate.query.sqm.tree.expression.SqmParameter;
import org.hibernate.query.sqm.tree.select.SqmSelectStatement;
import org.hibernate.sql.ast.spi.SqlSelection;
import org.hibernate.sql.ast.tree.select.SelectStatement;
import org.hibernate.sql.exec.internal.BaseExecutionContext;
import org.hibernate.sql.exec.spi.JdbcParameterBinder;
import org.hibernate.sql.exec.spi.JdbcParameterBindings;
import org.hibernate.sql.exec.spi.JdbcParametersList;
import org.hibernate.sql.exec.spi.JdbcSelect;
import org.hibernate.sql.results.graph.DomainResult;
import org.hibernate.sql.results.graph.basic.BasicResult;
import org.hibernate.type.descriptor.ValueExtractor;
import org.hibernate.type.descriptor.WrapperOptions;

/**
 * A shard part that returns scalars only (aggregates, grouped aggregates, projections of basic
 * values) as one plain JDBC statement: the SQL Hibernate renders for the shard query, run on each
 * shard's connection with no query object, result-set processing or persistence context.
 *
 * <p>Hibernate's own machinery does every step that depends on types: it parses the text once
 * ({@link HqlInterpretation}), translates it to SQL once per shape of its parameters (whether a row
 * limit is rendered, how many values each {@code in (:list)} parameter has), turns the caller's
 * values into JDBC bindings ({@link SqmUtil#createJdbcParameterBindings}, so an enum, a date or a
 * converted value binds exactly as in a Hibernate query), binds them with the statement's own
 * {@link JdbcParameterBinder}s (the row limit among them), and reads each value with the extractor
 * and converter of its column. A part read this way and one read through a Hibernate query give
 * equal rows ({@code ScatterScalarPartTest}).
 *
 * <p>Not for a shard query that selects an entity, an embeddable or any multi-column value, nor
 * when the factory defines filters or inspects statements: {@link #compile} answers null and the
 * part is read through Hibernate. A shape whose SQL would depend on the bound values themselves
 * (not only on their number) is read through Hibernate too ({@link #bind} answers null). An
 * execution is translated and bound once ({@link #bind}), then run on every shard's connection,
 * outside any Hibernate session ({@link Bound#read}). The text of a shape is the same for every
 * shard and execution, so pgjdbc's per-connection statement cache prepares it on the server once
 * per pooled connection.
 */
final class ScalarPartSql {
  static final int MAX_SHAPES = 64;
  private final SessionFactoryImplementor factory;
  private final SqmSelectStatement<?> select;
  private final ParameterMetadataImplementor parameters;
  private final DomainParameterXref parameterXref;
  private final JdbcMapping[] columns;
  private final WrapperOptions options;
  /** By shape: 1 when a row limit is rendered (else 0), then each parameter's count of values (-1: one value). */
  private final Map<List<Integer>, Translation> translations = new ConcurrentHashMap<>();

  /** The SQL of one shape, and what turns the domain values into its JDBC bindings. */
  private record Translation(JdbcSelect jdbc, DomainParameterXref parameterXref,
      Map<QueryParameterImplementor<?>, Map<SqmParameter<?>, List<JdbcParametersList>>> jdbcParameters,
      SqmParameterMappingModelResolutionAccess parameterTypes) {}

  /** A translation Hibernate renders differently per bound value: such parts go through Hibernate. */
  private static final Translation VALUE_DEPENDENT = new Translation(null, null, Map.of(), null);

  private ScalarPartSql(SessionFactoryImplementor factory, SqmSelectStatement<?> select,
      ParameterMetadataImplementor parameters, DomainParameterXref parameterXref, JdbcMapping[] columns) {
    this.factory = factory;
    this.select = select;
    this.parameters = parameters;
    this.parameterXref = parameterXref;
    this.columns = columns;
    this.options = factory.getWrapperOptions();
  }

  /**
   * The plain statement of {@code shardHql}, or null when it must be read through Hibernate (it
   * selects an entity or a multi-column value, the factory defines filters or inspects statements,
   * or this Hibernate version translates it in a way not understood here).
   */
  static ScalarPartSql compile(SessionFactoryImplementor factory, String shardHql) {
    if (!factory.getDefinedFilterNames().isEmpty()
        || factory.getSessionFactoryOptions().getStatementInspector() != null) {
      return null;
    }
    try {
      return QueryGuard.bypass(() -> interpret(factory, shardHql));
    } catch (RuntimeException | LinkageError notUnderstood) {
      return null; // read through Hibernate, which reports any real error of the query itself
    }
  }

  private static ScalarPartSql interpret(SessionFactoryImplementor factory, String shardHql) {
    HqlInterpretation<Object[]> interpretation = factory.getQueryEngine().interpretHql(shardHql, Object[].class);
    if (!(interpretation.getSqmStatement() instanceof SqmSelectStatement<?> select)) {
      return null;
    }
    ParameterMetadataImplementor parameters = interpretation.getParameterMetadata();
    DomainParameterXref xref = interpretation.getDomainParameterXref();
    SelectStatement ast = factory.getQueryEngine().getSqmTranslatorFactory().createSelectTranslator(select,
        QueryOptions.NONE, xref.copy(), parameters.createBindings(factory), new LoadQueryInfluencers(factory),
        factory.getSqlTranslationEngine(), false).translate().getSqlAst();
    JdbcMapping[] columns = basicColumns(ast);
    if (columns == null) {
      return null;
    }
    ScalarPartSql part = new ScalarPartSql(factory, select, parameters, xref, columns);
    QueryParameterBindings unbound = parameters.createBindings(factory);
    Translation unlimited = part.translate(unbound, false);
    if (unlimited == VALUE_DEPENDENT) {
      return null;
    }
    part.translations.put(List.copyOf(shapeOf(-1, unbound)), unlimited);
    return part;
  }

  /** The mapping of each selected column, or null unless every selection is one basic value in one column. */
  private static JdbcMapping[] basicColumns(SelectStatement ast) {
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
    return columns;
  }

  /** The SQL of {@code bindings}' shape, with a row limit rendered as a parameter when {@code limited}. */
  private Translation translate(QueryParameterBindings bindings, boolean limited) {
    DomainParameterXref xref = parameterXref.copy();
    SqmTranslation<SelectStatement> translation = factory.getQueryEngine().getSqmTranslatorFactory()
        .createSelectTranslator(select, limited ? new RowLimit(1) : QueryOptions.NONE, xref, bindings,
            new LoadQueryInfluencers(factory), factory.getSqlTranslationEngine(), false).translate();
    if (basicColumns(translation.getSqlAst()) == null) {
      return VALUE_DEPENDENT;
    }
    JdbcSelect jdbc = factory.getJdbcServices().getJdbcEnvironment().getSqlAstTranslatorFactory()
        .buildSelectTranslator(factory, translation.getSqlAst())
        .translate(JdbcParameterBindings.NO_BINDINGS, limited ? new RowLimit(1) : QueryOptions.NONE);
    if (jdbc.dependsOnParameterBindings() || limited != jdbc.usesLimitParameters()) {
      return VALUE_DEPENDENT;
    }
    Map<SqmParameter<?>, MappingModelExpressible<?>> types = translation.getSqmParameterMappingModelTypeResolutions();
    return new Translation(jdbc, xref, SqmUtil.generateJdbcParamsXref(xref, translation::getJdbcParamsBySqmParam),
        new SqmParameterMappingModelResolutionAccess() {
          @Override
          @SuppressWarnings("unchecked")
          public <T> MappingModelExpressible<T> getResolvedMappingModelType(SqmParameter<T> parameter) {
            return (MappingModelExpressible<T>) types.get(parameter);
          }
        });
  }

  private static List<Integer> shapeOf(int maxRows, QueryParameterBindings bindings) {
    List<Integer> shape = new ArrayList<>();
    shape.add(maxRows >= 0 ? 1 : 0);
    bindings.visitBindings((parameter, binding) ->
        shape.add(binding.isMultiValued() ? binding.getBindValues().size() : -1));
    return shape;
  }

  /**
   * The statement of one execution, its values bound, the same for every shard: the values the
   * caller set ({@code named}, {@code positional}, {@code keyset}: a parameter the shard query does
   * not use is ignored, as a HAVING parameter that only the merge evaluates), turned into JDBC
   * bindings once by a session from {@code owner} (one that never needs a connection; asked for
   * only when the statement has something to bind), and a row limit of {@code maxRows} (none when
   * -1). Null when this shape must be read through Hibernate.
   */
  Bound bind(java.util.function.Supplier<SharedSessionContractImplementor> owner, Map<String, Object> named,
      Map<Integer, Object> positional, Map<String, Object> keyset, int maxRows) {
    QueryParameterBindings bindings = parameters.createBindings(factory);
    parameters.visitParameters(parameter -> bind(bindings, parameter, named, positional, keyset));
    bindings.validate();
    List<Integer> shape = shapeOf(maxRows, bindings);
    Translation translation = translations.get(shape);
    if (translation == null) {
      translation = translate(bindings, maxRows >= 0);
      if (translations.size() < MAX_SHAPES) {
        translations.putIfAbsent(shape, translation); // past that, lists of ever new lengths are translated each time
      }
    }
    if (translation == VALUE_DEPENDENT) {
      return null;
    }
    JdbcSelect jdbc = translation.jdbc();
    if (jdbc.getParameterBinders().isEmpty()) {
      return new Bound(jdbc.getSqlString(), new JdbcParameterBinder[0], null, null); // nothing to bind: no session
    }
    SharedSessionContractImplementor session = owner.get();
    JdbcParameterBindings jdbcBindings = SqmUtil.createJdbcParameterBindings(bindings, translation.parameterXref(),
        translation.jdbcParameters(), translation.parameterTypes(), session);
    QueryOptions queryOptions = maxRows >= 0 ? new RowLimit(maxRows) : QueryOptions.NONE;
    BaseExecutionContext execution = new BaseExecutionContext(session) {
      @Override
      public QueryOptions getQueryOptions() {
        return queryOptions;
      }
    };
    return new Bound(jdbc.getSqlString(), jdbc.getParameterBinders().toArray(JdbcParameterBinder[]::new), jdbcBindings,
        execution);
  }

  /**
   * One execution's statement with its values, run on any shard's connection: read-only once
   * built, so the fan-out's threads share it. The connection's deadline (its query timeout) applies
   * as to any of its statements.
   */
  final class Bound {
    private final String sql;
    private final JdbcParameterBinder[] binders;
    private final JdbcParameterBindings bindings;
    private final BaseExecutionContext execution;

    private Bound(String sql, JdbcParameterBinder[] binders, JdbcParameterBindings bindings,
        BaseExecutionContext execution) {
      this.sql = sql;
      this.binders = binders;
      this.bindings = bindings;
      this.execution = execution;
    }

    /**
     * The rows on {@code connection}: all at once, or, with a positive {@code fetchSize} (in a
     * transaction), through a cursor that fetches that many at a time, {@code eachRow} told of every
     * row as it arrives (it may throw to stop the read).
     */
    List<Object[]> read(Connection connection, int fetchSize, Runnable eachRow) throws SQLException {
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        // a scatter part pins no shard: the binders' check of key values against a session's shard stands aside
        SQLException bindFailure = QueryGuard.bypass(() -> {
          try {
            for (int i = 0; i < binders.length; i++) {
              binders[i].bindParameterValue(statement, i + 1, bindings, execution);
            }
            return null;
          } catch (SQLException e) {
            return e;
          }
        });
        if (bindFailure != null) {
          throw bindFailure;
        }
        if (fetchSize > 0) {
          statement.setFetchSize(fetchSize);
        }
        try (ResultSet rs = statement.executeQuery()) {
          List<Object[]> rows = new ArrayList<>();
          int width = columns.length;
          while (rs.next()) {
            if (eachRow != null) {
              eachRow.run();
            }
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

  /** Binds {@code parameter} as a Hibernate query's {@code setParameter} would, when the caller set it. */
  @SuppressWarnings("unchecked")
  private static void bind(QueryParameterBindings bindings, QueryParameter<?> parameter, Map<String, Object> named,
      Map<Integer, Object> positional, Map<String, Object> keyset) {
    Object value;
    if (parameter.getName() != null) {
      Map<String, Object> source = keyset.containsKey(parameter.getName()) ? keyset : named;
      if (!source.containsKey(parameter.getName())) {
        return; // left unbound: validate() names it, as Hibernate would
      }
      value = source.get(parameter.getName());
    } else {
      if (!positional.containsKey(parameter.getPosition())) {
        return;
      }
      value = positional.get(parameter.getPosition());
    }
    QueryParameterBinding<Object> binding = bindings.getBinding((QueryParameterImplementor<Object>) parameter);
    if (parameter.allowsMultiValuedBinding() && value instanceof Collection<?> values) {
      binding.setBindValues(values);
    } else {
      binding.setBindValue(value, false);
    }
  }

  /** Query options with a row limit: Hibernate renders it as a parameter, which its binder binds. */
  private static final class RowLimit extends QueryOptionsAdapter {
    private final Limit limit;

    RowLimit(int maxRows) {
      this.limit = new Limit(null, maxRows);
    }

    @Override
    public Limit getLimit() {
      return limit;
    }
  }
}
