package org.magejvm.api.plugin;

import org.magejvm.api.annotation.Api;

/**
 * What a registry knows about a provider: its id and version, the class, and where the class was loaded from.
 *
 * @param id the provider id
 * @param version the provider version
 * @param description the provider's one-line description
 * @param className the provider's class
 * @param location the jar or directory the class came from, or {@code "(unknown)"}
 */
@Api(status = Api.Status.STABLE)
public record ProviderInfo(String id, String version, String description, String className, String location) {

  /**
   * Describes a provider.
   *
   * @param provider the provider
   * @return its description
   */
  public static ProviderInfo of(Provider provider) {
    return new ProviderInfo(provider.id(), provider.version(), provider.description(),
        provider.getClass().getName(), locationOf(provider.getClass()));
  }

  /**
   * @param type a class
   * @return the jar or directory the class was loaded from, or {@code "(unknown)"}
   */
  public static String locationOf(Class<?> type) {
    try {
      var domain = type.getProtectionDomain();
      var source = domain == null ? null : domain.getCodeSource();
      var url = source == null ? null : source.getLocation();
      return url == null ? "(unknown)" : url.toString();
    } catch (SecurityException e) {
      return "(unknown)";
    }
  }
}
