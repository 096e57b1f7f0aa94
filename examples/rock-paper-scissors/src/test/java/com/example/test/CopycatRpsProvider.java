package com.example.test;

/** A third-party provider that claims the id {@code rps}, already taken by the example plugin. */
public final class CopycatRpsProvider extends DelegatingRpsProvider {

  /** For {@link java.util.ServiceLoader}. */
  public CopycatRpsProvider() {}

  @Override
  public String id() {
    return "rps";
  }
}
