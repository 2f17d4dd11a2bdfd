package dev.writerfence.cli.audit;

import java.net.URI;
import java.time.Duration;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * S3Proxy in the test JVM (in-memory store, 127.0.0.1, a free port), for the application that the
 * {@code audit} command's tests run; test scope only, so the ops CLI never ships it.
 */
public final class LocalS3 {
  private static final String ACCESS_KEY = "writer-fence-audit";
  private static final String SECRET_KEY = "writer-fence-audit-secret";

  private final BlobStore store;
  private final S3Proxy proxy;
  private final URI endpoint;

  private LocalS3(BlobStore store, S3Proxy proxy) {
    this.store = store;
    this.proxy = proxy;
    this.endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  /**
   * @return a started server; stop it
   * @throws Exception when it does not start within 30 s
   */
  static LocalS3 start() throws Exception {
    Properties account = new Properties();
    account.setProperty("jclouds.identity", ACCESS_KEY);
    account.setProperty("jclouds.credential", SECRET_KEY);
    BlobStore store = BlobStores.create("transient", account);
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        proxy.stop();
        throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    return new LocalS3(store, proxy);
  }

  /**
   * @return {@code http://127.0.0.1:<port>}
   */
  URI endpoint() {
    return endpoint;
  }

  /**
   * A client with path-style access and checksums only when required, both ways (what S3Proxy
   * accepts), on the apache5 HTTP client.
   *
   * @param endpoint the server, {@link #endpoint()} of this or another JVM
   * @return the client; close it
   */
  public static S3Client client(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(Apache5HttpClient.builder())
        .build();
  }

  /**
   * @param endpoint the server's endpoint
   * @return a presigner for it (what Spring Cloud AWS's S3Template wants beside the client)
   */
  public static S3Presigner presigner(URI endpoint) {
    return S3Presigner.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  /**
   * @throws Exception when the server does not stop cleanly
   */
  void stop() throws Exception {
    try {
      proxy.stop();
    } finally {
      store.close();
    }
  }
}
