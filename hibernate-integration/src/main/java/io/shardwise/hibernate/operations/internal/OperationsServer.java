package io.shardwise.hibernate.operations.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.shardwise.hibernate.NodeStatus;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.operations.HotspotReport;
import io.shardwise.hibernate.operations.OperationsPage;
import io.shardwise.hibernate.operations.OperationsPageException;
import io.shardwise.hibernate.operations.ShardKeyWarning;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The operations page: the JDK's {@link HttpServer} on one daemon thread, serving three static
 * files (HTML, CSS, JavaScript, no build step) and {@code /api/state}, the JSON the page fetches
 * every few seconds. Read-only: it answers GET and HEAD only and changes nothing anywhere. Each
 * state request reads the router's map, the counters and the monitors' last results in memory,
 * and asks every primary for its prepared transactions and the control database for sagas and
 * moves in flight; a failing database becomes an error line on the page, not a failed page.
 */
public final class OperationsServer implements OperationsPage {
  private static final long KEY_CHECK_EVERY_MS = 60_000;
  private static final Map<String, String> FILES = Map.of(
      "/", "operations.html", "/operations.css", "operations.css", "/operations.js", "operations.js");

  /** What the page shows, each read when a state request comes in. */
  public record Sources(String unitName, Supplier<ShardMap> map, CountedHotspots hotspots,
      Supplier<List<NodeStatus>> breakers, Supplier<List<ReplicaStatus>> replicas,
      Function<String, Connection> primaries, Supplier<Connection> control) {}

  private final HttpServer server;
  private final ExecutorService executor;
  private final Sources sources;
  private final URI uri;
  private List<ShardKeyWarning> keyWarnings = List.of();
  private long keyWarningsAt = -KEY_CHECK_EVERY_MS;

  private OperationsServer(HttpServer server, ExecutorService executor, Sources sources) {
    this.server = server;
    this.executor = executor;
    this.sources = sources;
    InetSocketAddress bound = server.getAddress();
    String host = bound.getAddress().getHostAddress();
    this.uri = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort() + "/");
  }

  /** Starts serving at {@code address} (port 0: any free port; see {@link #uri()}). */
  public static OperationsServer start(InetSocketAddress address, Sources sources) {
    HttpServer server;
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new OperationsPageException("The operations page of persistence unit '" + sources.unitName()
          + "' cannot listen on " + address + ": " + e.getMessage() + ". Choose a free port (0 picks one).", e);
    }
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "shardwise-operations-page-" + sources.unitName());
      t.setDaemon(true);
      return t;
    });
    OperationsServer page = new OperationsServer(server, executor, sources);
    server.setExecutor(executor);
    server.createContext("/", page::handle);
    server.start();
    return page;
  }

  @Override
  public URI uri() {
    return uri;
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain", "The operations page is read-only.\n");
        return;
      }
      String path = exchange.getRequestURI().getPath();
      if (path.equals("/api/state")) {
        send(exchange, 200, "application/json", state());
        return;
      }
      String file = FILES.get(path);
      if (file == null) {
        send(exchange, 404, "text/plain", "Not found: the page is at /, its data at /api/state.\n");
        return;
      }
      send(exchange, 200, contentType(file), resource(file));
    } catch (RuntimeException e) {
      send(exchange, 500, "text/plain", "The operations page failed: " + e + "\n");
    }
  }

  private static String contentType(String file) {
    return file.endsWith(".html") ? "text/html" : file.endsWith(".css") ? "text/css" : "text/javascript";
  }

  private static String resource(String file) throws IOException {
    try (InputStream in = OperationsServer.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new IOException(file + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  // ---- the state ---------------------------------------------------------------------------

  String state() {
    ShardMap map = sources.map().get();
    List<String> shardIds = new ArrayList<>(map.shards().keySet());
    long[] traffic = sources.hotspots().bucketCounts();
    Json json = new Json().beginObject()
        .member("unit", sources.unitName())
        .member("generatedAt", System.currentTimeMillis())
        .member("mapVersion", map.version())
        .member("bucketCount", map.bucketCount());
    json.name("shards").beginArray();
    for (ShardDescriptor shard : map.shards().values()) {
      long sessions = 0;
      int buckets = 0;
      for (int b = 0; b < map.bucketCount(); b++) {
        if (shard.id().equals(map.ownerOf(b))) {
          buckets++;
          sessions += b < traffic.length ? traffic[b] : 0;
        }
      }
      json.beginObject().member("id", shard.id()).member("state", shard.state().name())
          .member("weight", shard.weight()).member("buckets", buckets).member("sessions", sessions).endObject();
    }
    json.endArray();
    json.name("owners").beginArray();
    for (int b = 0; b < map.bucketCount(); b++) {
      json.value(shardIds.indexOf(map.ownerOf(b)));
    }
    json.endArray();
    json.name("traffic");
    if (sources.hotspots().counting()) {
      json.beginArray();
      for (long count : traffic) {
        json.value(count);
      }
      json.endArray();
    } else {
      json.value((String) null);
    }
    nodes(json, map);
    inDoubt(json, shardIds);
    control(json);
    hotspots(json);
    json.name("keyWarnings").beginArray();
    for (ShardKeyWarning w : keyWarnings()) {
      json.beginObject().member("kind", w.kind().name()).member("table", w.table()).member("column", w.column())
          .member("shard", w.shardId()).member("message", w.message()).endObject();
    }
    json.endArray();
    return json.endObject().toString();
  }

  private void nodes(Json json, ShardMap map) {
    json.name("nodes").beginArray();
    List<NodeStatus> breakers = sources.breakers().get();
    for (ShardDescriptor shard : map.shards().values()) {
      String node = JdbcUrls.hostPort(shard.primaryUrl());
      NodeStatus breaker = breakers.stream()
          .filter(s -> s.shardId().equals(shard.id()) && s.node().equals("primary " + node))
          .findFirst().orElse(null);
      json.beginObject().member("shard", shard.id()).member("role", "primary").member("node", node)
          .member("state", breaker == null ? "not used yet" : breaker.state().name())
          .member("healthy", breaker == null || breaker.state() == io.shardwise.hibernate.BreakerState.CLOSED)
          .member("lagMillis", 0).member("lagBytes", 0)
          .member("detail", breaker == null || breaker.lastFailure() == null ? "" : breaker.lastFailure())
          .endObject();
    }
    for (ReplicaStatus replica : sources.replicas().get()) {
      json.beginObject().member("shard", replica.shardId()).member("role", "replica")
          .member("node", JdbcUrls.hostPort(replica.url()))
          .member("state", replica.healthy() ? "serving reads" : "out of rotation")
          .member("healthy", replica.healthy()).member("lagMillis", replica.lagMillis())
          .member("lagBytes", replica.lagBytes()).member("detail", replica.reason()).endObject();
    }
    json.endArray();
  }

  private void inDoubt(Json json, List<String> shardIds) {
    json.name("inDoubt").beginArray();
    List<String[]> errors = new ArrayList<>();
    for (String shardId : shardIds) {
      try (Connection c = sources.primaries().apply(shardId);
          PreparedStatement ps = c.prepareStatement("SELECT gid, prepared, owner FROM pg_prepared_xacts"
              + " WHERE database = current_database() ORDER BY prepared")) {
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            json.beginObject().member("shard", shardId).member("gid", rs.getString(1))
                .member("prepared", rs.getTimestamp(2).toInstant().toString()).member("owner", rs.getString(3))
                .endObject();
          }
        }
      } catch (SQLException | RuntimeException e) {
        errors.add(new String[] {shardId, e.getMessage()});
      }
    }
    json.endArray();
    json.name("inDoubtErrors").beginArray();
    errors.forEach(e -> json.beginObject().member("shard", e[0]).member("error", e[1]).endObject());
    json.endArray();
  }

  /** Sagas and moves in flight, from the control database (null members without one). */
  private void control(Json json) {
    if (sources.control() == null) {
      json.member("control", "no control database (shardwise.control.url): sagas and moves are not recorded");
      json.name("sagas").value((String) null).name("resharding").value((String) null).name("routers")
          .value((String) null);
      return;
    }
    try (Connection c = sources.control().get()) {
      json.member("control", "ok");
      json.name("sagas");
      rows(json, c, "SELECT id, name, state, next_step, updated_at, last_error FROM shardwise.saga"
          + " WHERE state IN ('RUNNING', 'COMPENSATING') ORDER BY created_at LIMIT 100",
          "id", "name", "state", "nextStep", "updatedAt", "lastError");
      json.name("resharding");
      rows(json, c, "SELECT id, source, target, cardinality(buckets), phase, updated_at, last_error"
          + " FROM shardwise.reshard_workflow ORDER BY updated_at DESC LIMIT 20",
          "id", "source", "target", "buckets", "phase", "updatedAt", "lastError");
      json.name("routers");
      rows(json, c, "SELECT id, unit, version, (extract(epoch FROM clock_timestamp() - last_seen) * 1000)::bigint,"
          + " lease_ms, CASE WHEN clock_timestamp() - last_seen < lease_ms * interval '1 millisecond' THEN 'runs'"
          + " ELSE 'ran out' END FROM shardwise.router ORDER BY id LIMIT 200",
          "id", "unit", "version", "seenMillisAgo", "leaseMillis", "lease");
    } catch (SQLException | RuntimeException e) {
      json.member("control", "unreachable: " + e.getMessage());
      json.name("sagas").value((String) null).name("resharding").value((String) null).name("routers")
          .value((String) null);
    }
  }

  /** The rows as an array of objects, or null when the table does not exist (that feature never ran). */
  private static void rows(Json json, Connection c, String sql, String... names) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      json.beginArray();
      while (rs.next()) {
        json.beginObject();
        for (int i = 0; i < names.length; i++) {
          json.member(names[i], rs.getString(i + 1));
        }
        json.endObject();
      }
      json.endArray();
    } catch (SQLException e) {
      if (!"42P01".equals(e.getSQLState())) {
        throw e;
      }
      json.value((String) null);
    }
  }

  private void hotspots(Json json) {
    if (!sources.hotspots().counting()) {
      json.name("hotspots").value((String) null);
      return;
    }
    HotspotReport report = sources.hotspots().report();
    json.name("hotspots").beginObject().member("total", report.totalSessions())
        .member("sampleEvery", report.sampleEvery());
    json.name("keys").beginArray();
    for (HotspotReport.ShardTraffic shard : report.shards()) {
      for (HotspotReport.KeyLoad key : shard.hottestKeys()) {
        json.beginObject().member("shard", shard.shardId()).member("key", String.valueOf(key.key()))
            .member("bucket", key.bucket()).member("sessions", key.estimatedSessions())
            .member("share", key.shareOfShard()).endObject();
      }
    }
    json.endArray();
    json.name("findings").beginArray();
    for (HotspotReport.Finding f : report.findings()) {
      json.beginObject().member("kind", f.kind().name()).member("shard", f.shardId()).member("subject", f.subject())
          .member("share", f.share()).member("advice", f.advice()).endObject();
    }
    json.endArray().endObject();
  }

  /** The shard key check's warnings, read again at most once a minute (it queries every primary). */
  private List<ShardKeyWarning> keyWarnings() {
    long now = System.currentTimeMillis();
    if (now - keyWarningsAt >= KEY_CHECK_EVERY_MS) {
      keyWarningsAt = now;
      try {
        keyWarnings = sources.hotspots().checkShardKeys();
      } catch (RuntimeException e) {
        keyWarnings = List.of();
      }
    }
    return keyWarnings;
  }
}
