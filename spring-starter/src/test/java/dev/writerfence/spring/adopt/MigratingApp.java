package dev.writerfence.spring.adopt;

import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application as a new user writes it: its own Flyway migration in {@code db/migration}, the
 * starter added, one fenced writer. It uses only API that Spring Boot 3.5 and 4.0 share, so each
 * Spring Boot line's module runs it.
 */
@SpringBootApplication(scanBasePackages = "none")
@Import(MigratingApp.Items.class)
public class MigratingApp {

  /** Writes the application's table under the fence {@code items}. */
  public static class Items {
    private final JdbcTemplate jdbc;

    Items(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    /**
     * @param name the item
     * @return the fencing token the row was stamped with
     */
    @WriterFenced(value = "items", holder = "items")
    public long add(String name) {
      long token = WriterFence.current("items").orElseThrow().fencingToken();
      jdbc.update("INSERT INTO app_item (name, fencing_token) VALUES (?, ?)", name, token);
      return token;
    }
  }
}
