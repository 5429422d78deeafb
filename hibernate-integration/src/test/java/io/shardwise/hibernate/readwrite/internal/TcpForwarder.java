package io.shardwise.hibernate.readwrite.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback port that forwards TCP to a server the test chooses, and can be pointed at another
 * server, the way a DNS name or a virtual IP comes to lead to a rebuilt machine. Switching drops
 * every connection made through it, as the old machine's disappearance would.
 */
final class TcpForwarder implements AutoCloseable {
  private final ServerSocket listener;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile int targetPort;

  TcpForwarder(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon("forwarder-accept-" + listener.getLocalPort(), this::acceptLoop);
  }

  int port() {
    return listener.getLocalPort();
  }

  /** New connections go to {@code port}; the ones made so far are cut. */
  void switchTo(int port) {
    targetPort = port;
    sockets.forEach(TcpForwarder::closeQuietly);
    sockets.clear();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      try {
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(server);
        daemon("forwarder-up", () -> pump(client, server));
        daemon("forwarder-down", () -> pump(server, client));
      } catch (IOException e) {
        closeQuietly(client); // the target is down: the client sees its connection refused-like close
      }
    }
  }

  private void pump(Socket from, Socket to) {
    try {
      from.getInputStream().transferTo(to.getOutputStream());
    } catch (IOException e) {
      // one side went away: end the pair
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  private static void daemon(String name, Runnable work) {
    Thread t = new Thread(work, name);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a broken socket: nothing left to do
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    switchTo(targetPort);
  }
}
