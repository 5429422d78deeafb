package io.shardwise.hibernate.resharding;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP forwarder with a switch that silences the connections open so far (bytes are
 * read and dropped, as behind a network partition) while new connections still pass: a router's
 * listening connection goes deaf, but the router can still reach the server when it asks. A full
 * {@link #partition()} also closes every new connection at once, until {@link #heal()}.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int upstreamPort;
  private final List<Pair> pairs = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile boolean partitioned;

  private static final class Pair {
    final Socket client;
    final Socket upstream;
    volatile boolean silenced;

    Pair(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }
  }

  TcpProxy(int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "tcp-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** From now on the connections open so far carry nothing in either direction. */
  void silenceOpenConnections() {
    pairs.forEach(p -> p.silenced = true);
  }

  /** Silences the open connections and closes new ones as they come: nothing gets through. */
  void partition() {
    partitioned = true;
    silenceOpenConnections();
  }

  /** Ends a partition: the silenced connections are closed (their clients reconnect), new ones pass. */
  void heal() throws IOException {
    partitioned = false;
    for (Pair p : pairs) {
      if (p.silenced) {
        p.client.close();
        p.upstream.close();
        pairs.remove(p);
      }
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (partitioned) {
          client.close();
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        Pair pair = new Pair(client, upstream);
        pairs.add(pair);
        pump(pair, client.getInputStream(), upstream.getOutputStream());
        pump(pair, upstream.getInputStream(), client.getOutputStream());
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void pump(Pair pair, InputStream in, OutputStream out) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (!pair.silenced) {
            out.write(buffer, 0, n);
            out.flush();
          }
        }
      } catch (IOException e) {
        // the other side closed
      } finally {
        try {
          pair.client.close();
          pair.upstream.close();
        } catch (IOException ignored) {
          // closing
        }
      }
    }, "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Pair p : pairs) {
      p.client.close();
      p.upstream.close();
    }
  }
}
