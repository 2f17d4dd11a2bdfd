package dev.writerfence.samples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot service that writes objects to an S3-compatible bucket, one writer at a time per
 * bucket: {@link BucketWriter#put} carries {@code @WriterFenced("bucket:{0}")}. The starter does
 * the rest (fence, advice, metrics, {@code /actuator/writerfence}, release on shutdown).
 */
@SpringBootApplication
public class BucketSampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(BucketSampleApplication.class, args);
  }
}
