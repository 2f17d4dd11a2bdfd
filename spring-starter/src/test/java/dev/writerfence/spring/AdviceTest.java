package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.WriterFence;
import dev.writerfence.spring.aop.WriterFenceAdviceCheck;
import dev.writerfence.spring.aop.WriterFenceAdvisor;
import dev.writerfence.spring.app.Sink;
import dev.writerfence.spring.app.SinkImpl;
import dev.writerfence.spring.app.TypeFenced;
import dev.writerfence.spring.app.Unadvisable;
import dev.writerfence.spring.app.Uploads;
import dev.writerfence.spring.app.Writers;
import dev.writerfence.testing.FenceNames;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.Ordered;

/** Where the pointcut finds @WriterFenced, which methods it cannot reach, and the advice order. */
class AdviceTest extends FencedAppTestBase {
  @Autowired Writers writers;
  @Autowired Uploads uploads;
  @Autowired TypeFenced typeFenced;
  @Autowired Sink sink;
  @Autowired Unadvisable unadvisable;
  @Autowired WriterFenceAdviceCheck check;
  @Autowired WriterFence fence;

  @Test
  void annotationOnTheMethodIsAdvised() {
    assertThat(writers.write(FenceNames.random("method"))).isPositive();
  }

  @Test
  void annotationOnTheInterfaceMethodIsNotHonouredAndIsNamedAtStartUp() {
    assertThat(uploads.upload(FenceNames.random("interface-method"))).isEqualTo(-1);
    assertThat(check.warnings())
        .anySatisfy(w -> assertThat(w).contains("Uploads.upload(").contains("UploadsImpl.upload("));
  }

  @Test
  void annotationOnTheClassFencesItsPublicMethods() {
    assertThat(typeFenced.put(FenceNames.random("type"))).isPositive();
  }

  @Test
  void annotationOnTheInterfaceTypeIsNotHonouredAndIsNamedAtStartUp() {
    assertThat(sink.sink(FenceNames.random("interface-type"))).isEqualTo(-1);
    assertThat(((SinkImpl) sink).other(FenceNames.random("not-declared"))).isEqualTo(-1);
    assertThat(check.warnings())
        .anySatisfy(w -> assertThat(w).contains("Sink.sink(").contains("SinkImpl.sink("))
        .noneSatisfy(w -> assertThat(w).contains("other("));
  }

  @Test
  void privateFinalAndStaticMethodsAreNamedAtStartUpAndRunUnfenced() {
    List<String> warnings = check.warnings();
    assertThat(warnings)
        .anySatisfy(w -> assertThat(w).contains("Unadvisable.hidden(").contains("private"))
        .anySatisfy(w -> assertThat(w).contains("Unadvisable.sealed(").contains("final"))
        .anySatisfy(w -> assertThat(w).contains("Unadvisable.shared(").contains("static"))
        .noneSatisfy(w -> assertThat(w).contains("viaPrivate"));
    // The public method is advised; the private one it calls through `this` runs inside that hold.
    String name = FenceNames.random("unadvisable");
    assertThat(unadvisable.viaPrivate(name)).isPositive();
    assertThat(unadvisable.sealed(FenceNames.random("final"))).isEqualTo(-1);
    assertThat(Unadvisable.shared(FenceNames.random("static"))).isEqualTo(-1);
  }

  @Test
  void orderIsInsideResilience4jRetryAndOutsideTransactions() {
    assertThat(WriterFenceAdvisor.ORDER)
        .isGreaterThan(WriterFenceAdvisor.RESILIENCE4J_RETRY_ORDER)
        .isLessThan(WriterFenceAdvisor.TRANSACTION_ORDER);
    assertThat(WriterFenceAdvisor.TRANSACTION_ORDER).isEqualTo(Ordered.LOWEST_PRECEDENCE);
    // The advisors on the C20 method's proxy, outermost first: @Retry, the fence, @Transactional.
    List<String> chain =
        java.util.Arrays.stream(((Advised) writers).getAdvisors())
            .map(a -> a.getAdvice().getClass().getSimpleName() + " " + a)
            .toList();
    int retry = indexOf(chain, "RetryAspect");
    int fenceAdvice = indexOf(chain, "WriterFenceInterceptor");
    int transaction = indexOf(chain, "TransactionInterceptor");
    assertThat(retry).as("%s", chain).isNotNegative().isLessThan(fenceAdvice);
    assertThat(fenceAdvice).as("%s", chain).isLessThan(transaction);
    assertThat(check.warnings()).noneSatisfy(w -> assertThat(w).contains("order"));
    assertThat(fence).isNotNull();
  }

  private static int indexOf(List<String> chain, String part) {
    for (int i = 0; i < chain.size(); i++) {
      if (chain.get(i).contains(part)) {
        return i;
      }
    }
    return -1;
  }
}
