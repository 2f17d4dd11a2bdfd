package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.spring.boot.SupportedSpringBoot;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter refuses a Spring Boot it is not built and tested for, naming both versions. */
class SupportedSpringBootTest {

  @Test
  void theSupportedLinesPass() {
    assertThatCode(() -> SupportedSpringBoot.check("4.0.7", false)).doesNotThrowAnyException();
    assertThatCode(() -> SupportedSpringBoot.check("3.5.16", true)).doesNotThrowAnyException();
    assertThatCode(() -> SupportedSpringBoot.check(null, false)).doesNotThrowAnyException();
  }

  @Test
  void anOtherLineIsRefusedNamingItAndTheSupportedOnes() {
    assertThatThrownBy(() -> SupportedSpringBoot.check("3.4.2", true))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Spring Boot 3.4.2 is not supported")
        .hasMessageContaining("3.5.x and 4.0.x");
    assertThatThrownBy(() -> SupportedSpringBoot.check("4.1.2", false))
        .hasMessageContaining("Spring Boot 4.1.2 is not supported");
  }

  @Test
  void springBoot3WithoutTheBoot3ArtifactIsToldWhichToAdd() {
    assertThatThrownBy(() -> SupportedSpringBoot.check("3.5.7", false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Spring Boot 3.5.7")
        .hasMessageContaining(SupportedSpringBoot.BOOT3_ARTIFACT);
  }

  @Test
  void theStarterStartsOnTheSpringBootOfThisModule() {
    assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WriterFenceAutoConfiguration.class))
        .withPropertyValues("writer-fence.datasource.url=jdbc:postgresql://127.0.0.1:1/none")
        .run(context -> assertThat(context).hasNotFailed());
  }
}
