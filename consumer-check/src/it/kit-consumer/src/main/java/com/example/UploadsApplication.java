package com.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A Spring Boot application with the writer-fence starter, as the README's quick start has it. */
@SpringBootApplication
public class UploadsApplication {
  /** The production storage; its tests put a fake in its place. */
  @Bean
  Storage storage() {
    return (bucket, key, bytes, fencingToken) -> {
      throw new UnsupportedOperationException("no object store in this example");
    };
  }

  public static void main(String[] args) {
    SpringApplication.run(UploadsApplication.class, args);
  }
}
