package org.magejvm.spi;

import java.util.List;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.plugin.ProviderInfo;
import org.magejvm.api.plugin.ProviderRegistry;

/**
 * The environments available to an application: those found through {@link java.util.ServiceLoader} plus those
 * registered programmatically. Duplicate ids are rejected naming both classes and jars.
 */
@Api(status = Api.Status.STABLE)
public final class EnvironmentRegistry {

  private final ProviderRegistry<EnvironmentProvider> registry;

  private EnvironmentRegistry(ProviderRegistry<EnvironmentProvider> registry) {
    this.registry = registry;
  }

  /** @return a registry holding every environment provider on the class path */
  public static EnvironmentRegistry discover() {
    return new EnvironmentRegistry(ProviderRegistry.discover(EnvironmentProvider.class));
  }

  /**
   * @param loader the class loader to search
   * @return a registry holding every environment provider visible to the loader
   */
  public static EnvironmentRegistry discover(ClassLoader loader) {
    return new EnvironmentRegistry(ProviderRegistry.discover(EnvironmentProvider.class, loader));
  }

  /** @return an empty registry, for applications that register everything themselves */
  public static EnvironmentRegistry empty() {
    return new EnvironmentRegistry(new ProviderRegistry<>(EnvironmentProvider.class));
  }

  /**
   * Adds a provider.
   *
   * @param provider the provider
   * @return this registry
   * @throws org.magejvm.api.plugin.PluginException if its id is malformed, reserved or taken
   */
  public EnvironmentRegistry register(EnvironmentProvider provider) {
    registry.register(provider);
    return this;
  }

  /**
   * @param id an environment id
   * @return its provider
   * @throws org.magejvm.api.plugin.PluginException naming the known ids when there is none
   */
  public EnvironmentProvider require(String id) {
    return registry.require(id);
  }

  /** @return every provider, in registration order */
  public List<EnvironmentProvider> all() {
    return registry.all();
  }

  /** @return id, version, class and jar of every provider */
  public List<ProviderInfo> describe() {
    return registry.describe();
  }
}
