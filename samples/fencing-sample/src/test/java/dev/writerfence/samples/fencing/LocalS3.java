package dev.writerfence.samples.fencing;

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

/** S3Proxy in this JVM (in-memory store, 127.0.0.1, random port) and an S3 client for it. */
final class LocalS3 {
  private static final String ACCESS_KEY = "sample";
  private static final String SECRET_KEY = "sample-secret";

  private final BlobStore store;
  private final S3Proxy proxy;
  private final S3Client client;

  LocalS3() throws Exception {
    Properties properties = new Properties();
    properties.setProperty("jclouds.identity", ACCESS_KEY);
    properties.setProperty("jclouds.credential", SECRET_KEY);
    store = BlobStores.create("transient", properties);
    proxy =
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
    // Path-style access and checksums only when required: what S3-compatible servers accept.
    client =
        S3Client.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClientBuilder(
                Apache5HttpClient.builder()
                    .connectionTimeout(Duration.ofSeconds(5))
                    .socketTimeout(Duration.ofSeconds(30)))
            .build();
  }

  S3Client client() {
    return client;
  }

  void stop() throws Exception {
    try {
      client.close();
      proxy.stop();
    } finally {
      store.close();
    }
  }
}
