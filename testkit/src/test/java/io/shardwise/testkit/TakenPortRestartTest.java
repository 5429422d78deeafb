package io.shardwise.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A server restarted after a kill keeps its port; when another server took that port meanwhile (a
 * topology of another test run on the machine), the restart fails and says so. It used to read the
 * killed server's own {@code postmaster.pid}, still saying "ready", open a session on the other
 * server and report the node up, so the test went on against someone else's data.
 */
class TakenPortRestartTest {

  @Test
  void aRestartOntoAPortAnotherServerTookFailsInsteadOfReportingThatServer() throws Exception {
    try (PostgresTopology pg = PostgresTopology.builder().shards(2).start()) {
      PostgresNode killed = pg.shard(0).primary();
      PostgresNode other = pg.shard(1).primary();
      int port = killed.port();
      killed.kill();
      try (Forwarder squatter = new Forwarder(port, other.port())) {
        assertEquals(other.port(), serverPort(killed), "the squatter answers on the killed server's port");
        PostgresStartException refused = assertThrows(PostgresStartException.class, killed::start);
        assertTrue(refused.getMessage().contains("port " + port), refused.getMessage());
      }
      killed.start();
      assertEquals(port, serverPort(killed), "once the port is free again the server starts on it");
    }
  }

  private static int serverPort(PostgresNode node) throws Exception {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT inet_server_port()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Listens on a given loopback port and passes every connection on to another port. */
  private static final class Forwarder implements AutoCloseable {
    private final ServerSocket server;

    Forwarder(int port, int upstreamPort) throws IOException {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
      Thread acceptor = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket client = server.accept();
            Socket upstream = new Socket(InetAddress.getByName("127.0.0.1"), upstreamPort);
            pump(client.getInputStream(), upstream.getOutputStream(), client, upstream);
            pump(upstream.getInputStream(), client.getOutputStream(), client, upstream);
          } catch (IOException e) {
            return;
          }
        }
      }, "squatter-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    private static void pump(InputStream in, OutputStream out, Socket a, Socket b) {
      Thread t = new Thread(() -> {
        try (a; b) {
          in.transferTo(out);
        } catch (IOException ignored) {
          // either side closed
        }
      }, "squatter-pump");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
