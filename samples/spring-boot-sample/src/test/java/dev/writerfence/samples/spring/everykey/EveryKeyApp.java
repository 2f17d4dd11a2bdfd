package dev.writerfence.samples.spring.everykey;

import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.spring.boot.WriterFenceProperties;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application run by {@code SettingsCatalogIT} with the real agent and every key of
 * the settings catalog as {@code -Dwriter-fence.*}: the agent's premain, the process fence's parser
 * (what {@code ProcessFence.get()} reads for the AspectJ aspect when no fence was set) and Spring's
 * binding each see them all. Prints what each read, then {@code done}.
 */
@SpringBootApplication
public class EveryKeyApp {
  public static void main(String[] args) {
    WriterFenceSettings.fromProperties(System.getProperties()).check();
    System.out.println("process fence accepted every key");
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(EveryKeyApp.class).web(WebApplicationType.NONE).run(args)) {
      WriterFenceProperties properties = context.getBean(WriterFenceProperties.class);
      System.out.println("spring bound ttl=" + properties.getTtl());
      System.out.println("fence ttl=" + context.getBean(WriterFence.class).defaultTtl());
    }
    System.out.println("done");
    System.out.flush();
  }
}
