package io.shardwise.hibernate.internal.jdbc;

import io.shardwise.hibernate.internal.jdbc.StatementTimer.Operation;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;

/** A prepared statement of a {@link ShardConnection}; see {@link ShardStatement}. */
final class ShardPreparedStatement extends ShardStatement<PreparedStatement> implements PreparedStatement {

  ShardPreparedStatement(ShardConnection connection, PreparedStatement target) {
    super(connection, target);
  }

  @Override
  public ResultSet executeQuery() throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      ResultSet result = results(target.executeQuery());
      connection.statementEnded(Operation.QUERY, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.QUERY, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public int executeUpdate() throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      int result = target.executeUpdate();
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public void setNull(int index, int sqlType) throws SQLException {
    target.setNull(index, sqlType);
  }

  @Override
  public void setBoolean(int index, boolean value) throws SQLException {
    target.setBoolean(index, value);
  }

  @Override
  public void setByte(int index, byte value) throws SQLException {
    target.setByte(index, value);
  }

  @Override
  public void setShort(int index, short value) throws SQLException {
    target.setShort(index, value);
  }

  @Override
  public void setInt(int index, int value) throws SQLException {
    target.setInt(index, value);
  }

  @Override
  public void setLong(int index, long value) throws SQLException {
    target.setLong(index, value);
  }

  @Override
  public void setFloat(int index, float value) throws SQLException {
    target.setFloat(index, value);
  }

  @Override
  public void setDouble(int index, double value) throws SQLException {
    target.setDouble(index, value);
  }

  @Override
  public void setBigDecimal(int index, BigDecimal value) throws SQLException {
    target.setBigDecimal(index, value);
  }

  @Override
  public void setString(int index, String value) throws SQLException {
    target.setString(index, value);
  }

  @Override
  public void setBytes(int index, byte[] value) throws SQLException {
    target.setBytes(index, value);
  }

  @Override
  public void setDate(int index, Date value) throws SQLException {
    target.setDate(index, value);
  }

  @Override
  public void setTime(int index, Time value) throws SQLException {
    target.setTime(index, value);
  }

  @Override
  public void setTimestamp(int index, Timestamp value) throws SQLException {
    target.setTimestamp(index, value);
  }

  @Override
  public void setAsciiStream(int index, InputStream value, int length) throws SQLException {
    target.setAsciiStream(index, value, length);
  }

  @Override
  public void setUnicodeStream(int index, InputStream value, int length) throws SQLException {
    target.setUnicodeStream(index, value, length);
  }

  @Override
  public void setBinaryStream(int index, InputStream value, int length) throws SQLException {
    target.setBinaryStream(index, value, length);
  }

  @Override
  public void clearParameters() throws SQLException {
    target.clearParameters();
  }

  @Override
  public void setObject(int index, Object value, int targetSqlType) throws SQLException {
    target.setObject(index, value, targetSqlType);
  }

  @Override
  public void setObject(int index, Object value) throws SQLException {
    target.setObject(index, value);
  }

  @Override
  public boolean execute() throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      boolean result = target.execute();
      connection.statementEnded(Operation.EXECUTE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.EXECUTE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public void addBatch() throws SQLException {
    target.addBatch();
  }

  @Override
  public void setCharacterStream(int index, Reader reader, int length) throws SQLException {
    target.setCharacterStream(index, reader, length);
  }

  @Override
  public void setRef(int index, Ref value) throws SQLException {
    target.setRef(index, value);
  }

  @Override
  public void setBlob(int index, Blob value) throws SQLException {
    target.setBlob(index, value);
  }

  @Override
  public void setClob(int index, Clob value) throws SQLException {
    target.setClob(index, value);
  }

  @Override
  public void setArray(int index, Array value) throws SQLException {
    target.setArray(index, value);
  }

  @Override
  public ResultSetMetaData getMetaData() throws SQLException {
    connection.requireAlive("run a statement");
    try {
      return target.getMetaData();
    } catch (SQLException e) {
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public void setDate(int index, Date value, Calendar calendar) throws SQLException {
    target.setDate(index, value, calendar);
  }

  @Override
  public void setTime(int index, Time value, Calendar calendar) throws SQLException {
    target.setTime(index, value, calendar);
  }

  @Override
  public void setTimestamp(int index, Timestamp value, Calendar calendar) throws SQLException {
    target.setTimestamp(index, value, calendar);
  }

  @Override
  public void setNull(int index, int sqlType, String typeName) throws SQLException {
    target.setNull(index, sqlType, typeName);
  }

  @Override
  public void setURL(int index, URL value) throws SQLException {
    target.setURL(index, value);
  }

  @Override
  public ParameterMetaData getParameterMetaData() throws SQLException {
    connection.requireAlive("run a statement");
    try {
      return target.getParameterMetaData();
    } catch (SQLException e) {
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public void setRowId(int index, RowId value) throws SQLException {
    target.setRowId(index, value);
  }

  @Override
  public void setNString(int index, String value) throws SQLException {
    target.setNString(index, value);
  }

  @Override
  public void setNCharacterStream(int index, Reader value, long length) throws SQLException {
    target.setNCharacterStream(index, value, length);
  }

  @Override
  public void setNClob(int index, NClob value) throws SQLException {
    target.setNClob(index, value);
  }

  @Override
  public void setClob(int index, Reader reader, long length) throws SQLException {
    target.setClob(index, reader, length);
  }

  @Override
  public void setBlob(int index, InputStream stream, long length) throws SQLException {
    target.setBlob(index, stream, length);
  }

  @Override
  public void setNClob(int index, Reader reader, long length) throws SQLException {
    target.setNClob(index, reader, length);
  }

  @Override
  public void setSQLXML(int index, SQLXML value) throws SQLException {
    target.setSQLXML(index, value);
  }

  @Override
  public void setObject(int index, Object value, int targetSqlType, int scaleOrLength) throws SQLException {
    target.setObject(index, value, targetSqlType, scaleOrLength);
  }

  @Override
  public void setAsciiStream(int index, InputStream stream, long length) throws SQLException {
    target.setAsciiStream(index, stream, length);
  }

  @Override
  public void setBinaryStream(int index, InputStream stream, long length) throws SQLException {
    target.setBinaryStream(index, stream, length);
  }

  @Override
  public void setCharacterStream(int index, Reader reader, long length) throws SQLException {
    target.setCharacterStream(index, reader, length);
  }

  @Override
  public void setAsciiStream(int index, InputStream stream) throws SQLException {
    target.setAsciiStream(index, stream);
  }

  @Override
  public void setBinaryStream(int index, InputStream stream) throws SQLException {
    target.setBinaryStream(index, stream);
  }

  @Override
  public void setCharacterStream(int index, Reader reader) throws SQLException {
    target.setCharacterStream(index, reader);
  }

  @Override
  public void setNCharacterStream(int index, Reader value) throws SQLException {
    target.setNCharacterStream(index, value);
  }

  @Override
  public void setClob(int index, Reader reader) throws SQLException {
    target.setClob(index, reader);
  }

  @Override
  public void setBlob(int index, InputStream stream) throws SQLException {
    target.setBlob(index, stream);
  }

  @Override
  public void setNClob(int index, Reader reader) throws SQLException {
    target.setNClob(index, reader);
  }

  @Override
  public void setObject(int index, Object value, SQLType targetSqlType, int scaleOrLength) throws SQLException {
    target.setObject(index, value, targetSqlType, scaleOrLength);
  }

  @Override
  public void setObject(int index, Object value, SQLType targetSqlType) throws SQLException {
    target.setObject(index, value, targetSqlType);
  }

  @Override
  public long executeLargeUpdate() throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      long result = target.executeLargeUpdate();
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }
}
