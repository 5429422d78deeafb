package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.spring.boot.autoconfigure.SeedStatements.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Splitting a script into statements with their lines, as routing and its messages need. */
class SeedStatementsTest {

  @Test
  void statementsKeepTheirStartLineAndStringsStayWhole() {
    String script = """
        -- a comment; with a separator
        INSERT INTO t (id, s) VALUES (1, 'a;b -- c'), (2, 'it''s');

        /* block
           comment; */ INSERT INTO t (id, s)
          VALUES (3, $$x;y$$);
        UPDATE "Odd;Name" SET s = 'z'""";
    List<Statement> statements = SeedStatements.split(script, "data.sql", ";");
    assertThat(statements).extracting(Statement::where).containsExactly("data.sql:2", "data.sql:5", "data.sql:7");
    assertThat(statements.get(0).sql()).isEqualTo("INSERT INTO t (id, s) VALUES (1, 'a;b -- c'), (2, 'it''s')");
    assertThat(statements.get(1).sql()).endsWith("VALUES (3, $$x;y$$)");
    assertThat(statements.get(2).sql()).isEqualTo("UPDATE \"Odd;Name\" SET s = 'z'");
  }

  @Test
  void tokensUnquoteStringsAndLowerCaseWords() {
    assertThat(SeedStatements.tokens("INSERT INTO \"Mixed\" VALUES ('O''Hara', -7::bigint)"))
        .extracting(SeedStatements.Token::value)
        .containsExactly("insert", "into", "Mixed", "values", "(", "O'Hara", ",", "-", "7", "::", "bigint", ")");
  }
}
