package dev.writerfence.demo;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** AWS SDK v2 S3 clients for an S3-compatible server such as S3Proxy. */
public final class S3Clients {
  private S3Clients() {}

  /**
   * A client with path-style access and checksums only when required, both ways (S3-compatible
   * servers do not all know the SDK's default checksums), on the URL-connection HTTP client.
   *
   * @param endpoint for example {@code http://127.0.0.1:41234}
   * @param accessKey the access key
   * @param secretKey the secret key
   * @return the client; close it
   */
  public static S3Client create(URI endpoint, String accessKey, String secretKey) {
    return S3Client.builder()
        .endpointOverride(endpoint)
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
