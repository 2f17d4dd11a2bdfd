package dev.writerfence;

import dev.writerfence.internal.FenceArguments;
import java.net.InetAddress;

/**
 * The one rule for the holder label a lease row shows: it names the instance that holds, so an
 * operator reading {@code lease_status} can tell which host and process has the fence.
 *
 * <ul>
 *   <li>The instance part is {@code host:pid}: the local host name ({@link
 *       InetAddress#getLocalHost()}{@code .getHostName()}, or {@code unknown-host} when it cannot
 *       be found or breaks the label rule) and this JVM's process id. It is computed once per JVM,
 *       on first use.
 *   <li>No label given (the default of a fence): the instance part alone, {@code host:pid}.
 *   <li>A label {@code L} given: {@code L@host:pid}, for example {@code upload@web-3:4711}. An
 *       empty label is the instance part alone.
 *   <li>A label that already contains {@code '@'}, or is the instance part, is kept as is: the
 *       caller chose its instance part. So decorating twice changes nothing.
 *   <li>The given label must keep the rule of {@link FenceArguments#holderLabel} (at most 200
 *       characters, no control or format characters). When {@code L@host:pid} would be longer than
 *       200 characters, {@code L} is cut (by code points) so that the result is 200 characters: the
 *       instance part is never cut.
 * </ul>
 *
 * <p>Decorate once, where a label is given (a {@link FenceRequest}, a fence's default, an
 * annotation parsed once per method), never per fenced call.
 */
public final class HolderLabel {
  /** Stands for the host when its name cannot be found or would break the label rule. */
  public static final String UNKNOWN_HOST = "unknown-host";

  /** Longest host part, in characters; a longer host name is cut. */
  static final int MAX_HOST_LENGTH = 100;

  private HolderLabel() {}

  /**
   * This instance's part of every label.
   *
   * @return {@code host:pid}, for example {@code web-3:4711}; the same string for the life of the
   *     JVM; never {@code null}, never longer than 121 characters, never containing {@code '@'}
   */
  public static String instance() {
    return Instance.PART;
  }

  /**
   * This host's part of the instance part, so that the label of another process on this host can be
   * spelled out: {@code label + "@" + host() + ":" + pid}.
   *
   * @return the host name as labels show it, or {@link #UNKNOWN_HOST}; never {@code null}, never
   *     empty, never containing {@code '@'}
   */
  public static String host() {
    return Instance.HOST;
  }

  /**
   * The label a lease row shows for a given label.
   *
   * @param given the caller's label, or {@code null} when it gave none
   * @return {@code null} for {@code null} (the caller's default then applies); {@link #instance()}
   *     for an empty label; {@code given} itself when it contains {@code '@'} or equals {@link
   *     #instance()}; otherwise {@code given@host:pid}, with {@code given} cut so that the whole is
   *     at most 200 characters
   * @throws IllegalArgumentException naming the given label when it breaks the rule of {@link
   *     FenceArguments#holderLabel}
   */
  public static String of(String given) {
    if (given == null) {
      return null;
    }
    FenceArguments.holderLabel(given);
    return decorate(given, Instance.PART);
  }

  /**
   * The part of a shown label that its caller gave, without the instance part: what a bounded set
   * of values may be made of (a metric tag), where {@code host:pid} would make one value per
   * process run.
   *
   * @param shown a label as a lease row shows it ({@link #of}), or {@code null}
   * @return the text before the first {@code '@'} ({@code upload} for {@code upload@web-3:4711});
   *     {@code null} for {@code null}, for this JVM's {@link #instance()} and for a label that
   *     starts with {@code '@'} (no given part); the label itself when it has no {@code '@'}
   */
  public static String given(String shown) {
    if (shown == null || shown.equals(Instance.PART)) {
      return null;
    }
    int at = shown.indexOf('@');
    if (at < 0) {
      return shown;
    }
    return at == 0 ? null : shown.substring(0, at);
  }

  /** The rule, for an instance part of the caller's choice (tests). */
  static String decorate(String given, String instance) {
    if (given.isEmpty()) {
      return instance;
    }
    if (given.indexOf('@') >= 0 || given.equals(instance)) {
      return given;
    }
    int room = FenceArguments.MAX_NAME_LENGTH - 1 - instance.length();
    int length = given.codePointCount(0, given.length());
    String kept = length <= room ? given : given.substring(0, given.offsetByCodePoints(0, room));
    return kept + "@" + instance;
  }

  /**
   * The host part: a host name, cut to {@value #MAX_HOST_LENGTH} characters, or {@link
   * #UNKNOWN_HOST} when there is none or it breaks the label rule or holds {@code '@'}.
   */
  static String host(String name) {
    if (name == null || name.isBlank() || name.indexOf('@') >= 0) {
      return UNKNOWN_HOST;
    }
    String host = name.strip();
    if (host.codePointCount(0, host.length()) > MAX_HOST_LENGTH) {
      host = host.substring(0, host.offsetByCodePoints(0, MAX_HOST_LENGTH));
    }
    try {
      return FenceArguments.holderLabel(host);
    } catch (IllegalArgumentException e) {
      return UNKNOWN_HOST;
    }
  }

  /** Computed on first use, once per JVM. */
  private static final class Instance {
    static final String HOST = host(localHostName());
    static final String PART = HOST + ":" + ProcessHandle.current().pid();

    private static String localHostName() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (Exception e) { // no resolvable host name: the pid still tells processes apart
        return null;
      }
    }
  }
}
