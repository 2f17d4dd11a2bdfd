package dev.writerfence.cli.audit;

import dev.writerfence.cli.Cli;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What the audit command's tests share: S3Proxy on 127.0.0.1 ({@link LocalS3}) with a client on it,
 * fresh buckets, the forked application's command line, and running {@code audit} in this JVM.
 */
final class AuditRuns {
  private final LocalS3 storage;
  private final S3Client s3;

  private AuditRuns(LocalS3 storage) {
    this.storage = storage;
    this.s3 = LocalS3.client(storage.endpoint());
  }

  /**
   * @return S3Proxy started, with a client on it
   * @throws Exception when the server does not start
   */
  static AuditRuns start() throws Exception {
    return new AuditRuns(LocalS3.start());
  }

  /**
   * @param purpose a word for the bucket's name
   * @return the name of a new, empty bucket
   */
  String bucket(String purpose) {
    String bucket = FenceNames.random(purpose).toLowerCase(Locale.ROOT);
    s3.createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  /**
   * @return whether the object exists
   */
  boolean exists(String bucket, String key) {
    try {
      s3.headObject(h -> h.bucket(bucket).key(key));
      return true;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /**
   * @param jvmOptions the application's own JVM options
   * @param mainClass its main class, on the test class path
   * @param args its arguments after the S3 endpoint, which comes first
   * @return the command line of a forked JVM running it
   */
  List<String> javaCommand(List<String> jvmOptions, String mainClass, String... args) {
    List<String> command = new ArrayList<>();
    command.add(ForkedJvm.javaBinary());
    command.addAll(ForkedJvm.DEFAULT_JVM_OPTIONS);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", ForkedJvm.testClassPath(), mainClass));
    command.add(storage.endpoint().toString());
    command.addAll(List.of(args));
    return command;
  }

  /**
   * @param options the options of {@code audit}
   * @param command the command it runs, after {@code --}
   * @return what the run printed, and its exit status
   */
  static Cli.Run audit(List<String> options, List<String> command) {
    List<String> args = new ArrayList<>(List.of("audit"));
    args.addAll(options);
    args.add("--");
    args.addAll(command);
    return Cli.run(args.toArray(String[]::new));
  }

  /** The words of a command line for sh, each quoted. */
  static String shell(List<String> words) {
    return String.join(" ", words.stream().map(w -> "'" + w.replace("'", "'\\''") + "'").toList());
  }

  /**
   * Closes the client and stops the server.
   *
   * @throws Exception when the server does not stop
   */
  void stop() throws Exception {
    try {
      s3.close();
    } finally {
      storage.stop();
    }
  }
}
