package dev.writerfence.samples.spring.selfinvoked;

import dev.writerfence.samples.spring.StorageConfiguration;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * A Spring Boot application for the agent's audit test (C23), run in its own JVM with the real
 * agent: the starter fences {@link ReportWriter}, the sample's {@link StorageConfiguration} gives
 * the S3 client. Writes {@code proxied} through the proxy and {@code self-invoked} through the
 * bean's own {@code this}, printing {@code wrote KEY held=BOOLEAN} for each, then {@code done};
 * also whether the bean is an AOP proxy and which class loader loaded it.
 *
 * <p>Arguments are Spring properties: {@code --spring.datasource.url}, {@code
 * --sample.s3.endpoint}, {@code --sample.bucket} (created by the test).
 */
@SpringBootApplication
@Import(StorageConfiguration.class)
public class SelfInvokingApp {
  public static void main(String[] args) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(SelfInvokingApp.class)
            .web(WebApplicationType.NONE)
            .run(args)) {
      ReportWriter writer = context.getBean(ReportWriter.class);
      String bucket = context.getEnvironment().getRequiredProperty("sample.bucket");
      System.out.println("aop-proxy " + AopUtils.isAopProxy(writer));
      System.out.println("app-loader " + ReportWriter.class.getClassLoader().getClass().getName());
      System.out.println("wrote proxied held=" + writer.write(bucket, "proxied"));
      System.out.println("wrote self-invoked held=" + writer.writeAll(bucket, "self-invoked"));
    }
    System.out.println("done");
    System.out.flush();
  }
}
