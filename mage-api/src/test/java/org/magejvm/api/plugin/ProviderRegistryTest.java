package org.magejvm.api.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.example.apitest.BrokenGreeter;
import com.example.apitest.ClashingGreeter;
import com.example.apitest.ExplodingGreeter;
import com.example.apitest.Greeter;
import com.example.apitest.Greeters;
import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.ServiceConfigurationError;
import org.junit.jupiter.api.Test;

class ProviderRegistryTest {

  /** A provider inside {@code org.magejvm}, which may use the reserved prefix. */
  public static final class BuiltIn implements Greeter {
    @Override
    public String id() {
      return "mage-builtin";
    }

    @Override
    public String version() {
      return "0.1";
    }
  }

  private static final String TEST_CLASSES = ProviderInfo.locationOf(Greeters.Hello.class);

  @Test
  void registerFindRequireAll() {
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class);
    assertThat(r.all()).isEmpty();
    assertThat(r.describe()).isEmpty();
    Greeters.Hello hello = new Greeters.Hello();
    Greeters.Bye bye = new Greeters.Bye();
    assertThat(r.register(hello)).isSameAs(r);
    r.register(bye);
    assertThat(r.find("hello")).containsSame(hello);
    assertThat(r.find("nobody")).isEmpty();
    assertThat(r.require("bye")).isSameAs(bye);
    assertThat(r.all()).containsExactly(hello, bye);
    assertThatThrownBy(() -> r.all().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void requireListsTheKnownIds() {
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class);
    assertThatThrownBy(() -> r.require("hello")).isInstanceOf(PluginException.class)
        .hasMessage("no Greeter with id 'hello'; known ids: []");
    r.register(new Greeters.Hello()).register(new Greeters.Bye());
    assertThatThrownBy(() -> r.require("ciao")).isInstanceOf(PluginException.class)
        .hasMessage("no Greeter with id 'ciao'; known ids: [hello, bye]");
  }

  @Test
  void describeGivesIdVersionClassAndLocation() {
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class);
    r.register(new Greeters.Hello()).register(new Greeters.Bye());
    assertThat(r.describe()).containsExactly(
        new ProviderInfo("hello", "1.0", "says hello", "com.example.apitest.Greeters$Hello", TEST_CLASSES),
        new ProviderInfo("bye", "2.1", "", "com.example.apitest.Greeters$Bye", TEST_CLASSES));
  }

  @Test
  void malformedIdsAreRejected() {
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class);
    for (String bad : new String[] {"", "Hello", "two words", "-dash", ".dot", "_under", "tab\t", "caf\u00e9",
        "a/b", "a:b"}) {
      assertThatThrownBy(() -> r.register(new Greeters.Custom(bad))).as(bad)
          .isInstanceOf(PluginException.class)
          .hasMessage("Greeter com.example.apitest.Greeters$Custom (" + TEST_CLASSES + ") has a malformed id '"
              + bad + "': use lower-case letters, digits, '.', '_' and '-'");
    }
    assertThatThrownBy(() -> r.register(new Greeters.Custom(null))).isInstanceOf(PluginException.class)
        .hasMessageContaining("malformed id 'null'");
    assertThat(r.all()).isEmpty();
    for (String good : new String[] {"a", "9lives", "tic-tac-toe", "my.env_2", "x-1.2_b"}) {
      r.register(new Greeters.Custom(good));
    }
    assertThat(r.describe()).extracting(ProviderInfo::id)
        .containsExactly("a", "9lives", "tic-tac-toe", "my.env_2", "x-1.2_b");
  }

  @Test
  void reservedPrefixIsForBuiltInClassesOnly() {
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class);
    assertThat(ProviderRegistry.RESERVED_PREFIX).isEqualTo("mage-");
    assertThatThrownBy(() -> r.register(new Greeters.Custom("mage-tictactoe"))).isInstanceOf(PluginException.class)
        .hasMessage("Greeter com.example.apitest.Greeters$Custom (" + TEST_CLASSES + ") uses the id"
            + " 'mage-tictactoe', but ids starting with 'mage-' are reserved for built-in providers");
    // a class inside org.magejvm may use it
    r.register(new BuiltIn());
    assertThat(r.require("mage-builtin")).isInstanceOf(BuiltIn.class);
    // "mage" alone or "magenta" is not the reserved prefix
    r.register(new Greeters.Custom("mage")).register(new Greeters.Custom("magenta"));
    assertThat(r.all()).hasSize(3);
  }

  @Test
  void duplicateIdsNameBothClassesAndLocations() {
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class);
    r.register(new Greeters.Hello());
    assertThatThrownBy(() -> r.register(new Greeters.Custom("hello"))).isInstanceOf(PluginException.class)
        .hasMessage("two Greeters share the id 'hello': com.example.apitest.Greeters$Hello (" + TEST_CLASSES
            + ") and com.example.apitest.Greeters$Custom (" + TEST_CLASSES
            + "); remove one of the jars or give one provider another id");
    // the first registration stays
    assertThat(r.require("hello")).isInstanceOf(Greeters.Hello.class);
  }

  @Test
  void duplicateFromAnotherJarNamesThatJar() throws Exception {
    URL jar = URI.create("file:/opt/plugins/other-greeter.jar").toURL();
    Class<?> copy = new OneClassLoader(Greeters.Hello.class, jar).loadClass(Greeters.Hello.class.getName());
    assertThat(copy).isNotSameAs(Greeters.Hello.class);
    Greeter other = (Greeter) copy.getConstructor().newInstance();
    assertThat(ProviderInfo.locationOf(copy)).isEqualTo("file:/opt/plugins/other-greeter.jar");
    ProviderRegistry<Greeter> r = new ProviderRegistry<>(Greeter.class).register(new Greeters.Hello());
    assertThatThrownBy(() -> r.register(other)).isInstanceOf(PluginException.class)
        .hasMessage("two Greeters share the id 'hello': com.example.apitest.Greeters$Hello (" + TEST_CLASSES
            + ") and com.example.apitest.Greeters$Hello (file:/opt/plugins/other-greeter.jar); remove one of the"
            + " jars or give one provider another id");
  }

  @Test
  void discoverReadsTheServicesFile() {
    ProviderRegistry<Greeter> r = ProviderRegistry.discover(Greeter.class, getClass().getClassLoader());
    assertThat(r.describe()).extracting(ProviderInfo::id, ProviderInfo::className).containsExactly(
        tuple("hello", "com.example.apitest.Greeters$Hello"),
        tuple("bye", "com.example.apitest.Greeters$Bye"));
  }

  @Test
  void discoverWithoutALoaderUsesTheContextLoaderOrTheTypesLoader() {
    assertThat(ProviderRegistry.discover(Greeter.class).all()).hasSize(2);
    Thread t = Thread.currentThread();
    ClassLoader saved = t.getContextClassLoader();
    try {
      t.setContextClassLoader(null);
      assertThat(ProviderRegistry.discover(Greeter.class).all()).hasSize(2);
    } finally {
      t.setContextClassLoader(saved);
    }
  }

  @Test
  void discoverThroughALoaderThatSeesNoServicesFileIsEmpty() throws IOException {
    try (URLClassLoader isolated = new URLClassLoader(new URL[0], null)) {
      assertThat(ProviderRegistry.discover(Greeter.class, isolated).all()).isEmpty();
    }
  }

  @Test
  void aMissingProviderClassNamesTheServicesFile() {
    assertThatThrownBy(() -> ProviderRegistry.discover(BrokenGreeter.class, getClass().getClassLoader()))
        .isInstanceOf(PluginException.class)
        .hasMessageStartingWith("could not load a BrokenGreeter listed in"
            + " META-INF/services/com.example.apitest.BrokenGreeter: ")
        .hasMessageContaining("com.example.apitest.Greeters$NoSuchGreeter")
        .hasCauseInstanceOf(ServiceConfigurationError.class);
  }

  @Test
  void aProviderThatFailsToConstructNamesTheServicesFile() {
    assertThatThrownBy(() -> ProviderRegistry.discover(ExplodingGreeter.class, getClass().getClassLoader()))
        .isInstanceOf(PluginException.class)
        .hasMessageStartingWith("could not load a ExplodingGreeter listed in"
            + " META-INF/services/com.example.apitest.ExplodingGreeter: ")
        .hasMessageContaining("com.example.apitest.Greeters$Exploding")
        .hasCauseInstanceOf(ServiceConfigurationError.class)
        .hasRootCauseMessage("boom: missing native library");
  }

  @Test
  void discoverRejectsDuplicateIds() {
    assertThatThrownBy(() -> ProviderRegistry.discover(ClashingGreeter.class, getClass().getClassLoader()))
        .isInstanceOf(PluginException.class)
        .hasMessage("two ClashingGreeters share the id 'twin': com.example.apitest.Greeters$TwinA (" + TEST_CLASSES
            + ") and com.example.apitest.Greeters$TwinB (" + TEST_CLASSES
            + "); remove one of the jars or give one provider another id");
  }

  @Test
  void providerInfoOf() {
    assertThat(ProviderInfo.of(new Greeters.Bye())).isEqualTo(
        new ProviderInfo("bye", "2.1", "", "com.example.apitest.Greeters$Bye", TEST_CLASSES));
  }

  @Test
  void locationOfNamesTheDirectoryOrJar() {
    assertThat(TEST_CLASSES).startsWith("file:").endsWith("/test-classes/");
    assertThat(ProviderInfo.locationOf(ProviderRegistry.class)).startsWith("file:").endsWith("/classes/");
    assertThat(ProviderInfo.locationOf(ImmutableList.class)).startsWith("file:").endsWith(".jar")
        .contains("guava");
    // classes of the JDK have no code source
    assertThat(ProviderInfo.locationOf(String.class)).isEqualTo("(unknown)");
    assertThat(ProviderInfo.locationOf(int.class)).isEqualTo("(unknown)");
  }

  @Test
  void pluginExceptionKeepsItsCause() {
    IllegalStateException cause = new IllegalStateException("inner");
    PluginException e = new PluginException("outer", cause);
    assertThat(e).hasMessage("outer").hasCause(cause);
    assertThat(new PluginException("alone")).hasMessage("alone").hasNoCause();
  }

  /** Loads one class again from its bytes, as if from another jar; everything else comes from the parent. */
  private static final class OneClassLoader extends ClassLoader {
    private final Class<?> original;
    private final URL location;

    OneClassLoader(Class<?> original, URL location) {
      super(original.getClassLoader());
      this.original = original;
      this.location = location;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.equals(original.getName())) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          String resource = name.substring(name.lastIndexOf('.') + 1) + ".class";
          try (InputStream in = original.getResourceAsStream(resource)) {
            byte[] bytes = in.readAllBytes();
            ProtectionDomain domain = new ProtectionDomain(new CodeSource(location, (Certificate[]) null), null);
            c = defineClass(name, bytes, 0, bytes.length, domain);
          } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return c;
      }
    }
  }
}
