package org.example.audit;

import static java.util.concurrent.TimeUnit.SECONDS;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.testing.WriterProcess;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.postgresql.ds.PGSimpleDataSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.DelegatingS3Client;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

/**
 * A storage application for the audit tests, run in its own JVM with the real agent: writes to S3
 * inside and outside a fence, through the sync client, the async client, the transfer manager
 * (multipart) and two wrapper clients, plus reads. Each write has its own method, so each has its
 * own call site. Prints {@code wrote KEY} or {@code refused KEY CALL_SITE} per write.
 *
 * <p>Arguments: endpoint, JDBC URL, fence name, bucket (created by the test), scenario ({@code
 * mixed} or {@code lost}), and for {@code mixed} a file for the JMX report.
 */
public final class MixedWriterApp {
  /** The keys the unfenced writes of {@code mixed} use, one per client path. */
  public static final List<String> UNFENCED_KEYS =
      List.of(
          "unfenced/sync",
          "unfenced/async",
          "unfenced/transfer",
          "unfenced/delegating",
          "unfenced/cross-region",
          "unfenced/self-invoked");

  /** The keys the fenced writes of {@code mixed} use. */
  public static final List<String> FENCED_KEYS =
      List.of(
          "fenced/sync",
          "fenced/async",
          "fenced/transfer",
          "fenced/delegating",
          "fenced/cross-region",
          "fenced/proxied");

  /** The access key of the app's S3 account. */
  public static final String KEY_ID = "audit-app";

  /** The secret key of the app's S3 account. */
  public static final String SECRET = "audit-app-secret";

  private final S3Client sync;
  private final S3Client delegating;
  private final S3Client crossRegion;
  private final S3AsyncClient async;
  private final S3TransferManager transfers;
  private final String bucket;
  private final Path file;

  private MixedWriterApp(URI endpoint, String bucket) throws Exception {
    this.bucket = bucket;
    this.sync = syncBuilder(endpoint).build();
    this.crossRegion = syncBuilder(endpoint).crossRegionAccessEnabled(true).build();
    this.delegating = new DelegatingS3Client(sync) {};
    this.async =
        S3AsyncClient.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(credentials())
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(o -> o.addExecutionInterceptor(new WithoutObjectSizeHeader()))
            .multipartEnabled(true)
            .multipartConfiguration(
                c -> c.thresholdInBytes(5L << 20).minimumPartSizeInBytes(5L << 20))
            .build();
    this.transfers = S3TransferManager.builder().s3Client(async).build();
    this.file = Files.createTempFile("audit-app-", ".bin");
    file.toFile().deleteOnExit();
    Files.write(file, new byte[6 << 20]); // two parts: a multipart upload
  }

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    PGSimpleDataSource db = WriterProcess.unpooled(args[1]);
    String fenceName = args[2];
    MixedWriterApp app = new MixedWriterApp(endpoint, args[3]);
    try (WriterFence fence = WriterFence.builder(db).build()) {
      if (args[4].equals("mixed")) {
        app.mixed(fence, fenceName, Path.of(args[5]));
      } else {
        app.lost(db, fenceName);
      }
    }
    app.transfers.close();
    app.async.close();
    app.sync.close();
    System.out.println("done");
    System.out.flush();
  }

  private void mixed(WriterFence fence, String fenceName, Path jmxReport) throws Exception {
    fence.run(
        FenceRequest.of(fenceName),
        () -> {
          attempt("fenced/sync", () -> putSync(sync, "fenced/sync"));
          attempt("fenced/async", () -> putAsync("fenced/async"));
          attempt("fenced/transfer", () -> upload("fenced/transfer"));
          attempt("fenced/delegating", () -> putSync(delegating, "fenced/delegating"));
          attempt("fenced/cross-region", () -> putSync(crossRegion, "fenced/cross-region"));
        });
    attempt("unfenced/sync", this::unfencedSync);
    attempt("unfenced/async", this::unfencedAsync);
    attempt("unfenced/transfer", this::unfencedTransfer);
    attempt("unfenced/delegating", this::unfencedDelegating);
    attempt("unfenced/cross-region", this::unfencedCrossRegion);
    attempt(
        "fenced/proxied",
        fencingProxy(new SelfInvokingJob("fenced/proxied"), fence, fenceName)::writeFenced);
    attempt(
        "unfenced/self-invoked",
        fencingProxy(new SelfInvokingJob("unfenced/self-invoked"), fence, fenceName)::runAll);
    // Reads, fenced or not, are never reported.
    sync.headObject(h -> h.bucket(bucket).key("fenced/sync"));
    sync.getObjectAsBytes(g -> g.bucket(bucket).key("fenced/sync"));
    sync.listObjectsV2(l -> l.bucket(bucket));
    async.headObject(h -> h.bucket(bucket).key("fenced/async")).get(30, SECONDS);
    reportThroughJmx(jmxReport);
  }

  /** C16 in enforce mode: a holder whose lease ran out has its next write refused. */
  private void lost(PGSimpleDataSource db, String fenceName) throws Exception {
    // A TTL long enough for the first write on a busy machine; no renewal, so it then runs out.
    try (WriterFence shortLeases =
        WriterFence.builder(db).defaultTtl(Duration.ofSeconds(5)).withoutRenewal().build()) {
      shortLeases.run(
          FenceRequest.of(fenceName),
          () -> {
            attempt("lost/before", () -> putSync(sync, "lost/before"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // The lease stays current until the call ends, lost once its TTL has run out.
            while (WriterFence.current(fenceName).map(l -> l.isValid()).orElse(false)
                && System.nanoTime() < deadline) {
              Thread.onSpinWait();
            }
            System.out.println(
                "lease current "
                    + WriterFence.current(fenceName).isPresent()
                    + ", valid "
                    + WriterFence.current(fenceName).map(l -> l.isValid()).orElse(false));
            attempt("lost/after", () -> putSync(sync, "lost/after"));
          });
    } catch (RuntimeException e) {
      System.out.println("fence ended with " + e.getClass().getSimpleName());
    }
  }

  // One method and one line per unfenced write, so each has a call site of its own.

  private void unfencedSync() {
    sync.putObject(put("unfenced/sync"), RequestBody.fromString("unfenced"));
  }

  private void unfencedAsync() throws Exception {
    async.putObject(put("unfenced/async"), AsyncRequestBody.fromString("x")).get(30, SECONDS);
  }

  private void unfencedTransfer() {
    transfers
        .uploadFile(u -> u.putObjectRequest(put("unfenced/transfer")).source(file))
        .completionFuture()
        .join();
  }

  private void unfencedDelegating() {
    delegating.putObject(put("unfenced/delegating"), RequestBody.fromString("unfenced"));
  }

  private void unfencedCrossRegion() {
    crossRegion.putObject(put("unfenced/cross-region"), RequestBody.fromString("unfenced"));
  }

  /** A bean behind a proxy, as Spring AOP would build it (C23). */
  public interface Job {
    /** Calls {@link #writeFenced()} through {@code this}. */
    void runAll();

    /** The fenced write. */
    void writeFenced();
  }

  /**
   * C23 without Spring: the bean calls its own {@code @WriterFenced} method through {@code this},
   * past the proxy that fences it, so that write is unfenced and the audit names this class and
   * method. Called through the proxy, the same method is fenced.
   */
  final class SelfInvokingJob implements Job {
    private final String key;

    SelfInvokingJob(String key) {
      this.key = key;
    }

    @Override
    public void runAll() {
      this.writeFenced();
    }

    @Override
    @WriterFenced("corpus")
    public void writeFenced() {
      sync.putObject(put(key), RequestBody.fromString(key));
    }
  }

  /**
   * A proxy that runs each {@code @WriterFenced} method of the target inside the fence, the way the
   * Spring starter's advisor does; calls inside the target do not pass through it.
   */
  private static Job fencingProxy(Job target, WriterFence fence, String fenceName) {
    return (Job)
        Proxy.newProxyInstance(
            Job.class.getClassLoader(),
            new Class<?>[] {Job.class},
            (proxy, method, args) -> {
              Method impl = target.getClass().getMethod(method.getName());
              if (!impl.isAnnotationPresent(WriterFenced.class)) {
                return invoke(method, target, args);
              }
              return fence.call(FenceRequest.of(fenceName), () -> invoke(method, target, args));
            });
  }

  /** Calls the target and throws what it threw, as a Spring AOP proxy does. */
  private static Object invoke(Method method, Object target, Object[] args) throws Exception {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw (Exception) e.getCause();
    }
  }

  private void putSync(S3Client client, String key) {
    client.putObject(put(key), RequestBody.fromString(key));
  }

  private void putAsync(String key) throws Exception {
    async.putObject(put(key), AsyncRequestBody.fromString(key)).get(30, SECONDS);
  }

  private void upload(String key) {
    transfers.uploadFile(u -> u.putObjectRequest(put(key)).source(file)).completionFuture().join();
  }

  private PutObjectRequest put(String key) {
    return PutObjectRequest.builder().bucket(bucket).key(key).build();
  }

  private static void reportThroughJmx(Path file) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName name = new ObjectName("dev.writerfence:type=Audit");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!server.isRegistered(name) && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // registered by the agent's own thread; bounded, not timed
    }
    Object written =
        server.invoke(
            name,
            "writeReportTo",
            new Object[] {file.toString()},
            new String[] {"java.lang.String"});
    System.out.println("jmx-report " + written);
  }

  /**
   * S3Proxy answers 501 to the {@code x-amz-mp-object-size} header that the SDK's multipart client
   * sends on CompleteMultipartUpload; the header is optional, so the app leaves it out.
   */
  private static final class WithoutObjectSizeHeader implements ExecutionInterceptor {
    @Override
    public SdkHttpRequest modifyHttpRequest(
        Context.ModifyHttpRequest context, ExecutionAttributes executionAttributes) {
      return context.httpRequest().toBuilder().removeHeader("x-amz-mp-object-size").build();
    }
  }

  private interface Write {
    void run() throws Exception;
  }

  private static void attempt(String key, Write write) {
    try {
      write.run();
      System.out.println("wrote " + key);
    } catch (UnfencedWriteException e) {
      System.out.println("refused " + key + " " + e.callSite());
    } catch (Exception e) {
      System.out.println("failed " + key + " " + e);
    }
    System.out.flush();
  }

  private static StaticCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY_ID, SECRET));
  }

  /**
   * A sync client builder for the test's S3Proxy, with the app's account (also StoppedHolderApp and
   * HandOffApp).
   *
   * @param endpoint the S3Proxy endpoint
   * @return the builder
   */
  public static software.amazon.awssdk.services.s3.S3ClientBuilder syncBuilder(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(credentials())
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(Apache5HttpClient.builder());
  }
}
