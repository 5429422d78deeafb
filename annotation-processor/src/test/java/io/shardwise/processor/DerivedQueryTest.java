package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.shardwise.processor.DerivedQuery.Operator;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Method names as Spring Data's PartTree splits them, as data: name, subject, parts, order. */
class DerivedQueryTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "findByStatus                                  | findBy             | Status=SIMPLE_PROPERTY |",
      "findByMerchantIdAndStatus                     | findBy             | MerchantId=SIMPLE_PROPERTY & Status=SIMPLE_PROPERTY |",
      "findByMerchantIdOrStatusIn                    | findBy             | MerchantId=SIMPLE_PROPERTY / Status=IN |",
      "findDistinctTop3ByMerchantIdIsOrderByIdDesc   | findDistinctTop3By | MerchantId=SIMPLE_PROPERTY | IdDesc",
      "countByMerchantIdNotIn                        | countBy            | MerchantId=NOT_IN |",
      "existsByMerchantIdEquals                      | existsBy           | MerchantId=SIMPLE_PROPERTY |",
      "deleteAllByStatusIsNull                       | deleteAllBy        | Status=IS_NULL |",
      "streamByCustomer_IdAndTotalBetween            | streamBy           | Customer_Id=SIMPLE_PROPERTY & Total=BETWEEN |",
      "findByOrderDateBeforeAndStatusNot             | findBy             | OrderDate=BEFORE & Status=NEGATING_SIMPLE_PROPERTY |",
      "findByNameIgnoreCaseAndTagsContaining         | findBy             | Name=SIMPLE_PROPERTY~ & Tags=CONTAINING |",
      "findFirstByOrderByIdDesc                      | findFirstBy        | | IdDesc",
      "findTop10By                                   | findTop10By        | |",
      "getByActiveTrueAndPriceLessThanEqual          | getBy              | Active=TRUE & Price=LESS_THAN_EQUAL |",
  })
  void splitsLikeSpringData(String name, String subject, String parts, String orderBy) {
    DerivedQuery query = DerivedQuery.parse(name);
    assertEquals(subject, query.subject());
    String rendered = query.branches().stream()
        .map(b -> b.parts().stream()
            .map(p -> p.property() + "=" + p.operator() + (p.ignoreCase() ? "~" : ""))
            .collect(Collectors.joining(" & ")))
        .collect(Collectors.joining(" / "));
    assertEquals(parts == null ? "" : parts, rendered);
    assertEquals(orderBy, query.orderBy());
  }

  @ParameterizedTest
  @ValueSource(strings = {"save", "findAll", "count", "flush", "lockForCheckout", "getOne"})
  void namesWithoutFindByAreNoDerivedQueries(String name) {
    assertNull(DerivedQuery.parse(name));
  }

  @ParameterizedTest
  @ValueSource(strings = {"findByStatusAllIgnoreCase", "findByStatusAllIgnoringCase"})
  void allIgnoreCaseIsNotAPart(String name) {
    DerivedQuery query = DerivedQuery.parse(name);
    assertEquals(List.of("Status"), query.branches().get(0).parts().stream()
        .map(DerivedQuery.Part::property).toList());
    assertEquals(true, query.allIgnoreCase());
    assertEquals(Operator.SIMPLE_PROPERTY, query.branches().get(0).parts().get(0).operator());
  }
}
