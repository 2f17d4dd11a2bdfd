package dev.writerfence.samples.spring;

import java.net.URI;
import java.time.Duration;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 client, and the S3-compatible server it talks to: {@code sample.s3.endpoint} when set,
 * otherwise S3Proxy started in this process (in-memory store, 127.0.0.1, random port).
 */
@Configuration(proxyBeanMethods = false)
public class StorageConfiguration {

  /** S3Proxy in process; stopped with the application. */
  public static final class EmbeddedS3 implements DisposableBean {
    private final S3Proxy proxy;
    private final BlobStore store;

    EmbeddedS3(String accessKey, String secretKey) throws Exception {
      Properties properties = new Properties();
      properties.setProperty("jclouds.identity", accessKey);
      properties.setProperty("jclouds.credential", secretKey);
      store = BlobStores.create("transient", properties);
      proxy =
          S3Proxy.builder()
              .blobStore(store)
              .endpoint(URI.create("http://127.0.0.1:0"))
              .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
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
    }

    /**
     * @return {@code http://127.0.0.1:<port>}
     */
    public URI endpoint() {
      return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    @Override
    public void destroy() throws Exception {
      try {
        proxy.stop();
      } finally {
        store.close();
      }
    }
  }

  @Bean
  @ConditionalOnExpression("'${sample.s3.endpoint:}'.isEmpty()")
  EmbeddedS3 embeddedS3(
      @Value("${sample.s3.access-key}") String accessKey,
      @Value("${sample.s3.secret-key}") String secretKey)
      throws Exception {
    return new EmbeddedS3(accessKey, secretKey);
  }

  @Bean(destroyMethod = "close")
  S3Client s3Client(
      ObjectProvider<EmbeddedS3> embedded,
      @Value("${sample.s3.endpoint:}") String endpoint,
      @Value("${sample.s3.access-key}") String accessKey,
      @Value("${sample.s3.secret-key}") String secretKey) {
    // Path-style access and checksums only when required: what S3-compatible servers accept.
    return S3Client.builder()
        .endpointOverride(
            endpoint.isEmpty() ? embedded.getObject().endpoint() : URI.create(endpoint))
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(
            Apache5HttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(5))
                .socketTimeout(Duration.ofSeconds(30)))
        .build();
  }
}
