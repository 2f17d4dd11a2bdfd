package dev.writerfence.agent.audit;

import java.net.URI;
import java.util.Properties;
import org.example.audit.MixedWriterApp;
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
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/** S3Proxy in the test JVM: in-memory store on 127.0.0.1, with the test app's account. */
final class S3Server implements AutoCloseable {
  private final S3Proxy proxy;
  private final BlobStore store;
  private final S3Client client;
  private final URI endpoint;

  S3Server() throws Exception {
    Properties properties = new Properties();
    properties.setProperty("jclouds.identity", MixedWriterApp.KEY_ID);
    properties.setProperty("jclouds.credential", MixedWriterApp.SECRET);
    store = BlobStores.create("transient", properties);
    proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(
                AuthenticationType.AWS_V2_OR_V4, MixedWriterApp.KEY_ID, MixedWriterApp.SECRET)
            .build();
    proxy.start();
    while (!"STARTED".equals(proxy.getState())) {
      if ("FAILED".equals(proxy.getState())) {
        throw new IllegalStateException("S3Proxy failed to start");
      }
      Thread.onSpinWait();
    }
    endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    client =
        S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(MixedWriterApp.KEY_ID, MixedWriterApp.SECRET)))
            .forcePathStyle(true)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .httpClientBuilder(Apache5HttpClient.builder())
            .build();
  }

  URI endpoint() {
    return endpoint;
  }

  void createBucket(String bucket) {
    client.createBucket(b -> b.bucket(bucket));
  }

  boolean exists(String bucket, String key) {
    try {
      client.headObject(h -> h.bucket(bucket).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /**
   * @return the object's user metadata (the {@code x-amz-meta-} headers, without the prefix)
   */
  java.util.Map<String, String> metadata(String bucket, String key) {
    return client.headObject(h -> h.bucket(bucket).key(key)).metadata();
  }

  /**
   * @return the object's ETag; a multipart upload's ends in {@code -<parts>}
   */
  String eTag(String bucket, String key) {
    return client.headObject(h -> h.bucket(bucket).key(key)).eTag();
  }

  @Override
  public void close() throws java.io.IOException {
    client.close();
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new java.io.IOException("S3Proxy did not stop cleanly", e);
    } finally {
      store.close();
    }
  }
}
