package dev.writerfence.internal.weaving;

import dev.writerfence.WriterFenceBusyException;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a fenced method returns when its call is skipped because the fence stayed busy ({@code
 * onBusy = SKIP}): {@code null} for a reference type (nothing for {@code void}), an empty {@code
 * Optional} (also {@code OptionalInt}, {@code OptionalLong}, {@code OptionalDouble}), a completed
 * future of {@code null} for {@code CompletionStage} and {@code CompletableFuture}; a lazy result
 * ({@link LazyResults}) completes empty instead. Decided once per method from its declared return
 * type; a primitive other than {@code void} has no value to return and is refused. Each skip is
 * logged at DEBUG (a scheduled job on several instances skips on all but one of them every run); a
 * fence listener still hears of the busy answer.
 */
public final class SkipOnBusy {
  // Logged under FencedMethods, as it was before this class had a file of its own, so that
  // existing logging configuration keeps applying.
  private static final Logger LOG = LoggerFactory.getLogger(FencedMethods.class);

  private enum Value {
    NULL,
    OPTIONAL,
    OPTIONAL_INT,
    OPTIONAL_LONG,
    OPTIONAL_DOUBLE,
    FUTURE
  }

  private final String where;
  private final Value value;

  private SkipOnBusy(String where, Value value) {
    this.where = where;
    this.value = value;
  }

  /**
   * @param where the fenced method, for messages and the log; never {@code null}
   * @param returnTypeName the binary name of its declared return type, as {@link Class#getName()}
   *     gives it ({@code void}, {@code java.util.Optional}); never {@code null}
   * @return what a skipped call of that method returns
   * @throws IllegalArgumentException naming the method and the type when it returns a primitive
   *     other than {@code void}
   */
  public static SkipOnBusy of(String where, String returnTypeName) {
    Value v =
        switch (returnTypeName) {
          case "java.util.Optional" -> Value.OPTIONAL;
          case "java.util.OptionalInt" -> Value.OPTIONAL_INT;
          case "java.util.OptionalLong" -> Value.OPTIONAL_LONG;
          case "java.util.OptionalDouble" -> Value.OPTIONAL_DOUBLE;
          case "java.util.concurrent.CompletionStage", "java.util.concurrent.CompletableFuture" ->
              Value.FUTURE;
          case "boolean", "byte", "char", "short", "int", "long", "float", "double" ->
              throw new IllegalArgumentException(
                  "writer-fence: onBusy = SKIP is not allowed on "
                      + where
                      + ", which returns "
                      + returnTypeName
                      + ": a skipped call has no "
                      + returnTypeName
                      + " to return; return void, a reference type, an Optional or a"
                      + " CompletionStage, or keep onBusy = THROW");
          default -> Value.NULL; // void and every other reference type
        };
    return new SkipOnBusy(where, v);
  }

  /**
   * A call that stays busy is skipped: logs it at DEBUG and gives the value the caller sees.
   *
   * @param busy the busy answer of the call's enter; never {@code null}
   * @return {@code null}, an empty optional, or a new completed future of {@code null}
   */
  public Object skip(WriterFenceBusyException busy) {
    skipped(busy.getMessage());
    return switch (value) {
      case NULL -> null;
      case OPTIONAL -> Optional.empty();
      case OPTIONAL_INT -> OptionalInt.empty();
      case OPTIONAL_LONG -> OptionalLong.empty();
      case OPTIONAL_DOUBLE -> OptionalDouble.empty();
      case FUTURE -> CompletableFuture.completedFuture(null);
    };
  }

  /** Logs a skipped call at DEBUG, with the busy answer's message. */
  void skipped(String busyMessage) {
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "writer-fence: {} skipped (onBusy = SKIP), the method did not run: {}",
          where,
          busyMessage);
    }
  }

  @Override
  public String toString() {
    return "skip " + where + " when busy, returning " + value;
  }
}
