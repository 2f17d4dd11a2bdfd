package org.example.clients;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A port on 127.0.0.1 that accepts each connection, counts it and closes it at once, so every
 * request sent there fails, and the count proves whether a client tried to send at all.
 */
final class CountingPort implements AutoCloseable {
  private final ServerSocket socket;
  private final AtomicInteger connections = new AtomicInteger();

  CountingPort() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "counting-port");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  int connections() {
    return connections.get();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        connections.incrementAndGet();
        s.close();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
