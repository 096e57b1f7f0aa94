package com.example.apitest;

/**
 * Test providers that live outside {@code org.magejvm}, as a third-party plugin would. The services files under
 * {@code src/test/resources/META-INF/services} name some of them.
 */
public final class Greeters {

  private Greeters() {}

  /** Declared for {@link Greeter}. */
  public static final class Hello implements Greeter {
    @Override
    public String id() {
      return "hello";
    }

    @Override
    public String version() {
      return "1.0";
    }

    @Override
    public String description() {
      return "says hello";
    }
  }

  /** Declared for {@link Greeter}; keeps the default description. */
  public static final class Bye implements Greeter {
    @Override
    public String id() {
      return "bye";
    }

    @Override
    public String version() {
      return "2.1";
    }
  }

  /** Declared for {@link ExplodingGreeter}; cannot be constructed. */
  public static final class Exploding implements ExplodingGreeter {
    /** Always fails. */
    public Exploding() {
      throw new IllegalStateException("boom: missing native library");
    }

    @Override
    public String id() {
      return "exploding";
    }

    @Override
    public String version() {
      return "0";
    }
  }

  /** Declared for {@link ClashingGreeter}, id {@code twin}. */
  public static final class TwinA implements ClashingGreeter {
    @Override
    public String id() {
      return "twin";
    }

    @Override
    public String version() {
      return "1";
    }
  }

  /** Declared for {@link ClashingGreeter}, id {@code twin} as well. */
  public static final class TwinB implements ClashingGreeter {
    @Override
    public String id() {
      return "twin";
    }

    @Override
    public String version() {
      return "2";
    }
  }

  /** A greeter with any id, registered programmatically. */
  public static final class Custom implements Greeter {
    private final String id;

    /** @param id the id to report */
    public Custom(String id) {
      this.id = id;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String version() {
      return "9";
    }
  }
}
