package com.acme.legacy;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A Spring Boot executable jar's main class (in {@code BOOT-INF/classes}), with writer-fence core,
 * the bootstrap module and the PostgreSQL driver in {@code BOOT-INF/lib}. It takes a fence through
 * its own copy of core, then runs the agent-fenced method, and prints what the held-fence stack
 * says each time; {@code done} last.
 */
public final class BootApp {
  private BootApp() {}

  /**
   * @param args the JDBC URL of the database, a fence name for the application's own hold, and a
   *     directory under the agent's {@code audit.paths}: {@code core-inside.txt} is written in the
   *     application's own hold, {@code inside.txt} in the agent-fenced method, {@code outside.txt}
   *     in neither
   * @throws Exception when the fence cannot be taken or a file cannot be written
   */
  public static void main(String[] args) throws Exception {
    System.out.println("app-loader " + BootApp.class.getClassLoader().getClass().getName());
    System.out.println(
        "stack-loader " + (HeldFenceStack.class.getClassLoader() == null ? "bootstrap" : "other"));
    Path dir = Path.of(args[2]);
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(args[0]);
    ds.setUser("postgres");
    try (WriterFence fence = WriterFence.builder(ds).build()) {
      // Core from BOOT-INF/lib pushes the hold; the stack the agent's advice reads must see it.
      fence.call(
          FenceRequest.builder(args[1]).build(),
          () -> {
            System.out.println("core-held " + HeldFenceStack.holds(args[1]));
            return Files.writeString(dir.resolve("core-inside.txt"), "under the app's own fence");
          });
    }
    fencedWork(dir);
    System.out.println("after-held " + HeldFenceStack.holds(null));
    Files.writeString(dir.resolve("outside.txt"), "written with no fence held");
    System.out.println("done");
  }

  /** Named in the agent's {@code fence.methods}. */
  static void fencedWork(Path dir) throws IOException {
    System.out.println("inside-held " + HeldFenceStack.holds(null));
    Files.writeString(dir.resolve("inside.txt"), "written under the agent's fence");
  }
}
