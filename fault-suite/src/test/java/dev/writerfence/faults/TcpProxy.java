package dev.writerfence.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A TCP forwarder on 127.0.0.1 for the network-cut fault: {@link #cut()} makes it stop forwarding
 * in both directions on every connection, open or new, without closing any, as a dropped network
 * path or a silent firewall does. Bytes that arrive after the cut are swallowed. Thread per
 * direction; test code only (no test library offers a cut that keeps sockets open).
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private volatile boolean cut;

  TcpProxy(int targetPort) {
    try {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    daemon(this::accept, "tcp-proxy-accept");
  }

  int port() {
    return server.getLocalPort();
  }

  /** From now on nothing is forwarded; every socket stays open. */
  void cut() {
    cut = true;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        sockets.add(client);
        if (cut) {
          continue; // accepted, never answered
        }
        Socket upstream = new Socket();
        upstream.connect(target, 2000);
        sockets.add(upstream);
        daemon(() -> pump(client, upstream), "tcp-proxy-up");
        daemon(() -> pump(upstream, client), "tcp-proxy-down");
      } catch (IOException e) {
        // closed, or the target refused: the client sees its socket go silent or closed
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (cut) {
          closed.await(); // swallow and stay silent until the proxy is closed
          return;
        }
        out.write(buffer, 0, n);
        out.flush();
      }
      if (!cut) {
        to.shutdownOutput();
      }
    } catch (IOException e) {
      // one side closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops listening and closes every socket. */
  @Override
  public void close() {
    closed.countDown();
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  private static void daemon(Runnable task, String name) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }
}
