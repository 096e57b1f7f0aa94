package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code agentgym-remote} as {@link java.util.ServiceLoader} creates it, with and without configuration. */
class RemoteProviderConfigTest {

  @Test
  void unconfiguredItIsListedAndSaysWhatToSet() {
    String old = System.getProperty(RemoteEnvironmentProvider.URL_PROPERTY);
    System.clearProperty(RemoteEnvironmentProvider.URL_PROPERTY);
    try {
      RemoteEnvironmentProvider p = new RemoteEnvironmentProvider();
      if (System.getenv(RemoteEnvironmentProvider.URL_VARIABLE) != null) {
        return; // configured by this machine's environment: nothing to check here
      }
      assertThat(p.configured()).isFalse();
      assertThat(p.opponents().ids()).isEmpty();
      assertThat(p.twoPlayer()).isFalse();
      assertThat(p.description()).contains("not configured");
      assertThatThrownBy(() -> p.create(Map.of())).hasMessageContaining(RemoteEnvironmentProvider.URL_PROPERTY)
          .hasMessageContaining("--env-url");
    } finally {
      if (old != null) {
        System.setProperty(RemoteEnvironmentProvider.URL_PROPERTY, old);
      }
    }
  }

  @Test
  void aMalformedConfiguredUrlDoesNotBreakDiscovery() {
    String old = System.getProperty(RemoteEnvironmentProvider.URL_PROPERTY);
    System.setProperty(RemoteEnvironmentProvider.URL_PROPERTY, "localhost:36001");
    try {
      RemoteEnvironmentProvider p = new RemoteEnvironmentProvider();
      assertThat(p.configured()).isFalse();
      assertThatThrownBy(() -> p.create(Map.of())).hasMessageContaining("localhost:36001")
          .hasMessageContaining("not usable");
    } finally {
      if (old == null) {
        System.clearProperty(RemoteEnvironmentProvider.URL_PROPERTY);
      } else {
        System.setProperty(RemoteEnvironmentProvider.URL_PROPERTY, old);
      }
    }
  }
}
