package com.example.test;

/** A third-party provider that tries to use the {@code mage-} prefix reserved for built-in games. */
public final class ReservedIdProvider extends DelegatingRpsProvider {

  /** For {@link java.util.ServiceLoader}. */
  public ReservedIdProvider() {}

  @Override
  public String id() {
    return "mage-rps";
  }
}
