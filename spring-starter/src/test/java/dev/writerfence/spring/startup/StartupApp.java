package dev.writerfence.spring.startup;

import dev.writerfence.annotation.WriterFenced;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * An application as a new user writes it: the starter added, one fenced writer, nothing else. It
 * uses only API that Spring Boot 3.5 and 4.0 share, so each Spring Boot line's module runs it.
 */
@SpringBootApplication(scanBasePackages = "none")
@Import(StartupApp.Uploads.class)
public class StartupApp {

  /** A fenced writer, so that the fence is part of the application. */
  public static class Uploads {
    /**
     * @param bucket the bucket
     * @return the bucket
     */
    @WriterFenced(value = "bucket:{0}", holder = "upload")
    public String put(String bucket) {
      return bucket;
    }
  }
}
