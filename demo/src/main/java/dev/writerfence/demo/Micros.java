package dev.writerfence.demo;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** Database times as microseconds since the epoch, the unit of the demo's record. */
final class Micros {
  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  private Micros() {}

  static long of(Instant t) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, t);
  }

  static String format(long micros) {
    return FORMAT.format(Instant.EPOCH.plus(micros, ChronoUnit.MICROS));
  }
}
