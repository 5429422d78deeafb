package io.shardwise.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the sources of a sharded application with a given number of queries, for
 * {@link BuildTimeBenchmark}: co-location groups of a root ({@code Merchant‹g›}, sharded by its
 * id) and four entities co-located with it ({@code Order‹g›}, {@code Item‹g›},
 * {@code Invoice‹g›}, {@code Payment‹g›}, sharded by {@code merchantId}), ten reference tables
 * ({@code Ref‹k›}), and {@value #QUERIES_PER_GROUP} queries per group: half as
 * {@code @NamedQuery} on the entity they read, half as {@code static final} constants passed to
 * {@code EntityManager.createQuery} in one DAO per group. Of every ten queries seven pin the shard
 * key, two are scatter-gather (marked {@code @ScatterGather}) and one reads a reference table.
 * Every query is valid HQL and JPQL (a select clause, aliases everywhere) and passes Shardwise's
 * checks, so a build of the model succeeds with any processor.
 */
final class BuildTimeModel {

  static final int QUERIES_PER_GROUP = 20;
  static final int REFERENCE_TABLES = 10;

  /** The entity each pinned template reads, and the template ({@code %g} group, {@code %q} number). */
  private static final List<String[]> PINNED = List.of(
      new String[] {"Order", "select o from Order%g o where o.merchantId = :merchantId"
          + " and o.status = :status and o.amount > %q"},
      new String[] {"Item", "select i from Item%g i join i.order o where o.merchantId = :merchantId"
          + " and i.quantity > %q"},
      new String[] {"Merchant", "select m from Merchant%g m where m.id = :id and m.name <> 'x%q'"},
      new String[] {"Payment", "select count(p) from Payment%g p where p.merchantId in :merchants"
          + " and p.amount > %q"},
      new String[] {"Invoice", "update Invoice%g v set v.status = :status where v.merchantId ="
          + " :merchantId and v.amount = %q"},
      new String[] {"Order", "select o from Order%g o where o.merchantId = :merchantId and exists"
          + " (select 1 from Item%g i where i.merchantId = o.merchantId and i.order = o"
          + " and i.quantity > %q)"},
      new String[] {"Order", "select o.status, count(o) from Order%g o where o.merchantId ="
          + " :merchantId and o.amount < %q group by o.status"});

  private static final List<String[]> SCATTER = List.of(
      new String[] {"Order", "select o from Order%g o where o.status = :status and o.amount > %q"},
      new String[] {"Item", "select count(i) from Item%g i where i.quantity > %q"});

  private static final String REFERENCE = "select r from Ref%k r where r.name like :name"
      + " and r.code <> 'c%q'";

  private BuildTimeModel() {}

  /** The number of co-location groups for a number of queries. */
  static int groups(int queries) {
    if (queries % QUERIES_PER_GROUP != 0) {
      throw new IllegalArgumentException("queries must be a multiple of " + QUERIES_PER_GROUP
          + " (one group per " + QUERIES_PER_GROUP + " queries); got " + queries);
    }
    return queries / QUERIES_PER_GROUP;
  }

  /** Writes the model under {@code root} and returns the source files, in a stable order. */
  static List<Path> write(Path root, int queries) throws IOException {
    List<Path> files = new ArrayList<>();
    for (int k = 0; k < REFERENCE_TABLES; k++) {
      files.add(source(root, "Ref" + k, """
          package model;
          @jakarta.persistence.Entity
          @io.shardwise.annotations.ReferenceTable
          public class Ref%k {
            @jakarta.persistence.Id String code;
            String name;
          }
          """.replace("%k", String.valueOf(k))));
    }
    int groups = groups(queries);
    for (int g = 0; g < groups; g++) {
      writeGroup(root, g, files);
    }
    return files;
  }

  private static void writeGroup(Path root, int g, List<Path> files) throws IOException {
    Map<String, List<String>> named = new LinkedHashMap<>();
    Map<String, List<String>> scatterNamed = new LinkedHashMap<>();
    for (String entity : List.of("Merchant", "Order", "Item", "Invoice", "Payment")) {
      named.put(entity, new ArrayList<>());
      scatterNamed.put(entity, new ArrayList<>());
    }
    StringBuilder constants = new StringBuilder();
    StringBuilder calls = new StringBuilder();
    for (int i = 0; i < QUERIES_PER_GROUP; i++) {
      int q = g * QUERIES_PER_GROUP + i;
      String entity;
      String hql;
      boolean scatter = false;
      int kind = i % 10;
      if (kind < 7) {
        String[] template = PINNED.get((i / 2) % PINNED.size());
        entity = template[0];
        hql = template[1];
      } else if (kind < 9) {
        String[] template = SCATTER.get(kind - 7);
        entity = template[0];
        hql = template[1];
        scatter = true;
      } else {
        entity = "Merchant";
        hql = REFERENCE.replace("%k", String.valueOf(q % REFERENCE_TABLES));
      }
      hql = hql.replace("%g", String.valueOf(g)).replace("%q", String.valueOf(q));
      // Named and constant alternate, shifted in the second half so each kind gets both forms.
      if ((i + i / 10) % 2 == 0) {
        String name = entity + g + ".q" + q;
        named.get(entity).add("@NamedQuery(name = \"" + name + "\", query = \"" + hql + "\")");
        if (scatter) {
          scatterNamed.get(entity).add("\"" + name + "\"");
        }
      } else {
        constants.append(scatter ? "  @ScatterGather\n" : "")
            .append("  static final String Q").append(q).append(" = \"").append(hql).append("\";\n");
        calls.append("  Object q").append(q).append("() {\n    return em.createQuery(Q").append(q)
            .append(hql.startsWith("update") ? ").executeUpdate();\n" : ").getResultList();\n")
            .append("  }\n");
      }
    }
    files.add(source(root, "Merchant" + g, entity("""
        public class Merchant%g {
          @Id @ShardKey Long id;
          String name;
        }
        """, named.get("Merchant"), scatterNamed.get("Merchant"), g)));
    files.add(source(root, "Order" + g, entity("""
        @CoLocated(with = Merchant%g.class)
        public class Order%g {
          @Id Long id;
          @ShardKey long merchantId;
          String status;
          int amount;
          @ManyToOne Merchant%g merchant;
          @OneToMany(mappedBy = "order") List<Item%g> items;
          @ManyToOne Ref%r country;
        }
        """.replace("%r", String.valueOf(g % REFERENCE_TABLES)),
        named.get("Order"), scatterNamed.get("Order"), g)));
    files.add(source(root, "Item" + g, entity("""
        @CoLocated(with = Merchant%g.class)
        public class Item%g {
          @Id Long id;
          @ShardKey long merchantId;
          int quantity;
          @ManyToOne Order%g order;
        }
        """, named.get("Item"), scatterNamed.get("Item"), g)));
    files.add(source(root, "Invoice" + g, entity("""
        @CoLocated(with = Merchant%g.class)
        public class Invoice%g {
          @Id Long id;
          @ShardKey long merchantId;
          String status;
          int amount;
          @ManyToOne Order%g order;
        }
        """, named.get("Invoice"), scatterNamed.get("Invoice"), g)));
    files.add(source(root, "Payment" + g, entity("""
        @CoLocated(with = Merchant%g.class)
        public class Payment%g {
          @Id Long id;
          @ShardKey long merchantId;
          int amount;
          @ManyToOne Invoice%g invoice;
        }
        """, named.get("Payment"), scatterNamed.get("Payment"), g)));
    files.add(source(root, "Dao" + g, """
        package model;
        import io.shardwise.annotations.ScatterGather;
        import jakarta.persistence.EntityManager;
        public class Dao%g {
        %constants
          private final EntityManager em;
          public Dao%g(EntityManager em) {
            this.em = em;
          }
        %calls}
        """.replace("%constants", constants).replace("%calls", calls)
        .replace("%g", String.valueOf(g))));
  }

  private static String entity(String body, List<String> namedQueries, List<String> scatter, int g) {
    StringBuilder text = new StringBuilder("""
        package model;
        import io.shardwise.annotations.*;
        import jakarta.persistence.*;
        import java.util.List;
        @Entity
        """);
    namedQueries.forEach(query -> text.append(query).append('\n'));
    if (!scatter.isEmpty()) {
      text.append("@ScatterGather(queries = {").append(String.join(", ", scatter)).append("})\n");
    }
    return text.append(body.replace("%g", String.valueOf(g))).toString();
  }

  /**
   * The extra file of the incremental case: one query without its shard key (and one with it),
   * in another package, naming its entity by entity name only. Shardwise must report it when the
   * file is compiled alone against the model's output.
   */
  static Path writeOneMoreFile(Path root) throws IOException {
    Path file = root.resolve("reports/OneMore.java");
    Files.createDirectories(file.getParent());
    Files.writeString(file, """
        package reports;
        import jakarta.persistence.EntityManager;
        public class OneMore {
          static final String OPEN = "select o from Order0 o where o.status = 'OPEN'";
          static final String MINE = "select o from Order0 o where o.merchantId = :merchantId";
          Object open(EntityManager em) {
            return em.createQuery(OPEN).getResultList();
          }
          Object mine(EntityManager em) {
            return em.createQuery(MINE).getResultList();
          }
        }
        """);
    return file;
  }

  private static Path source(Path root, String className, String text) throws IOException {
    Path file = root.resolve("model/" + className + ".java");
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return file;
  }
}
