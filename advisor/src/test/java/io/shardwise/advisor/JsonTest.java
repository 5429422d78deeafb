package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void writesNestedValuesWithEscapes() {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("query", "select o from Owner o where o.name = 'a\"b'\n\\");
    value.put("share", 0.2988);
    value.put("calls", 40L);
    value.put("whole", 1.0);
    value.put("none", null);
    value.put("list", List.of(true, List.of()));
    assertEquals("""
        {
          "query": "select o from Owner o where o.name = 'a\\"b'\\u000a\\\\",
          "share": 0.2988,
          "calls": 40,
          "whole": 1,
          "none": null,
          "list": [
            true,
            []
          ]
        }
        """, Json.write(value));
  }
}
