package com.acme.app;

import com.acme.sync.Uploader;
import com.acme.volume.Materializer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A legacy writer application: {@code java -jar writer-fence-legacy-sample.jar BUCKET [COMMAND]}.
 * With a command it runs it and exits; without one it reads commands from standard input, one per
 * line, and answers each with one line. Every entry into and exit from a write is appended to
 * {@code BUCKET/events.log}.
 *
 * <pre>
 * upload KEY                 uploaded KEY token=T
 * upload-many PREFIX N       uploaded-many PREFIX N
 * upload-all K1,K2,...       uploaded-all tokens=T1,T2,...
 * hold KEY                   holding KEY token=T holder=H holderToken=U fence=F (stays inside)
 * finish                     finished KEY
 * upload-later KEY           started KEY (writes when completed)
 * complete-later             completed KEY (the upload's stage has completed)
 * materialize NAME           materialized NAME
 * quit
 * </pre>
 *
 * A command that fails answers {@code failed EXCEPTION: MESSAGE}.
 */
public final class LegacyApp {
  private final Uploader uploader;
  private final Materializer materializer;
  private final CountDownLatch finish = new CountDownLatch(1);
  private Thread holder;
  private String heldKey;
  private final CompletableFuture<Void> gate = new CompletableFuture<>();
  private CompletableFuture<String> later;

  private LegacyApp(Path bucket) {
    EventLog events = new EventLog(bucket.resolve("events.log"));
    this.uploader = new Uploader(bucket, events);
    this.materializer = new Materializer(bucket, events);
  }

  /**
   * @param args the bucket directory, then optionally one command and its arguments
   * @throws IOException when standard input cannot be read or the bucket cannot be created
   */
  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.err.println("usage: LegacyApp BUCKET_DIR [COMMAND ARGS...]");
      System.exit(2);
    }
    Path bucket = Files.createDirectories(Path.of(args[0]));
    LegacyApp app = new LegacyApp(bucket);
    if (args.length > 1) {
      String answer = app.run(Arrays.copyOfRange(args, 1, args.length));
      System.out.println(answer);
      System.exit(answer.startsWith("failed") ? 1 : 0);
    }
    System.out.println("ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.equals("quit")) {
      System.out.println(app.run(line.trim().split("\\s+")));
    }
  }

  private String run(String[] command) {
    try {
      return switch (command[0]) {
        case "upload" -> "uploaded " + command[1] + " token=" + uploader.upload(command[1]);
        case "upload-many" -> uploadMany(command[1], Integer.parseInt(command[2]));
        case "upload-all" -> uploadAll(command[1]);
        case "hold" -> hold(command[1]);
        case "finish" -> finish();
        case "upload-later" -> {
          later = uploader.uploadLater(command[1], gate);
          yield "started " + command[1];
        }
        case "complete-later" -> {
          gate.complete(null);
          yield "completed " + later.join();
        }
        case "materialize" -> {
          materializer.materialize(command[1]);
          yield "materialized " + command[1];
        }
        default -> "failed IllegalArgumentException: unknown command " + command[0];
      };
    } catch (Exception e) {
      return "failed " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  private String uploadMany(String prefix, int count) {
    for (int i = 0; i < count; i++) {
      uploader.upload(prefix + "-" + i);
    }
    return "uploaded-many " + prefix + " " + count;
  }

  private String uploadAll(String keys) {
    List<Long> tokens = uploader.uploadAll(List.of(keys.split(",")));
    return "uploaded-all tokens=" + String.join(",", tokens.stream().map(String::valueOf).toList());
  }

  /** Starts a writer that stays inside its write until {@code finish}. */
  private String hold(String key) throws InterruptedException {
    AtomicReference<String> answer = new AtomicReference<>();
    CountDownLatch answered = new CountDownLatch(1);
    heldKey = key;
    holder =
        new Thread(
            () -> {
              try {
                uploader.uploadAndWait(
                    key,
                    () -> {
                      FenceProbe.Held h = FenceProbe.innermost();
                      answer.set(
                          "holding "
                              + key
                              + " token="
                              + h.fencingToken()
                              + " holder="
                              + h.holderLabel()
                              + " holderToken="
                              + h.holderToken()
                              + " fence="
                              + h.fenceName());
                      answered.countDown();
                    },
                    finish);
              } catch (Exception e) {
                answer.set("failed " + e.getClass().getSimpleName() + ": " + e.getMessage());
                answered.countDown();
              }
            },
            "holder");
    holder.start();
    answered.await();
    return answer.get();
  }

  private String finish() throws InterruptedException {
    finish.countDown();
    holder.join();
    return "finished " + heldKey;
  }
}
