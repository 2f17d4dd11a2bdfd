package com.acme.sites;

import java.util.function.Supplier;

/** Application code (outside writer-fence's packages) asking for its call site from two lines. */
public final class TwoCallSites {
  private TwoCallSites() {}

  /**
   * @param find the call-site lookup
   * @return what it found from the first line, twice, then from the second line
   */
  public static <T> Object[] find(Supplier<T> find) {
    Object[] found = new Object[3];
    for (int i = 0; i < 2; i++) {
      found[i] = find.get(); // one site, asked twice
    }
    found[2] = find.get(); // another line
    return found;
  }

  /**
   * @param call a call that goes through a wrapper library to the lookup
   * @return what it found, called from this line
   */
  public static <T> T viaWrapper(Supplier<T> call) {
    return call.get();
  }
}
