package dev.writerfence.benchmarks.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Debian's redis-server on 127.0.0.1 for the Redisson row, when it is installed: no persistence (a
 * lock in Redis is not durable either way), a free port, stopped with the run.
 */
public final class RedisServer implements AutoCloseable {
  private static final Path[] BINARIES = {
    Path.of("/usr/bin/redis-server"), Path.of("/usr/sbin/redis-server")
  };

  private final Process process;
  private final int port;

  private RedisServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * @return the started server, or empty when redis-server is not installed or does not start
   *     within 10 s
   */
  public static Optional<RedisServer> startIfInstalled() {
    Path binary = null;
    for (Path p : BINARIES) {
      if (Files.isExecutable(p)) {
        binary = p;
      }
    }
    if (binary == null) {
      return Optional.empty();
    }
    try {
      int port = freePort();
      Process process =
          new ProcessBuilder(
                  binary.toString(),
                  "--bind",
                  "127.0.0.1",
                  "--port",
                  Integer.toString(port),
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--daemonize",
                  "no")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      RedisServer server = new RedisServer(process, port);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline && process.isAlive()) {
        if (server.ping()) {
          return Optional.of(server);
        }
        Thread.sleep(100);
      }
      server.close();
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * @return the address for Redisson, {@code redis://127.0.0.1:PORT}
   */
  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /**
   * Counts the commands clients send while {@code work} runs, from the server's {@code MONITOR}
   * feed: commands a Lua script runs inside the server (shown there as {@code [0 lua]}) are not
   * round trips and are not counted.
   *
   * @param work what to observe
   * @return commands received from clients over the network
   */
  public long clientCommandsDuring(Runnable work) {
    try (Socket monitor = new Socket(InetAddress.getLoopbackAddress(), port)) {
      monitor.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
      monitor.getOutputStream().flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(monitor.getInputStream(), StandardCharsets.US_ASCII));
      if (!in.readLine().startsWith("+OK")) {
        throw new IllegalStateException("MONITOR refused");
      }
      AtomicLong count = new AtomicLong();
      String marker = "MARK-" + System.nanoTime();
      Thread reader =
          new Thread(
              () -> {
                try {
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.contains(marker)) {
                      return;
                    }
                    if (!line.contains(" lua]")) {
                      count.incrementAndGet();
                    }
                  }
                } catch (IOException e) {
                  // the monitor socket closed: the count ends there
                }
              },
              "redis-monitor");
      reader.start();
      work.run();
      command("ECHO " + marker); // the feed's end marker, seen after every command before it
      reader.join(TimeUnit.SECONDS.toMillis(10));
      return count.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private boolean ping() {
    try {
      return command("PING").startsWith("+PONG");
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  /** One inline command, its whole reply (bulk replies of INFO fit one read loop). */
  private String command(String inline) {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.getOutputStream().write((inline + "\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      s.setSoTimeout(2000);
      byte[] buf = new byte[65536];
      StringBuilder reply = new StringBuilder();
      int n = s.getInputStream().read(buf);
      reply.append(new String(buf, 0, Math.max(n, 0), StandardCharsets.US_ASCII));
      if (reply.charAt(0) == '$') {
        int length = Integer.parseInt(reply.substring(1, reply.indexOf("\r\n")));
        int want = reply.indexOf("\r\n") + 2 + length;
        while (reply.length() < want && (n = s.getInputStream().read(buf)) > 0) {
          reply.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
        }
      }
      return reply.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
