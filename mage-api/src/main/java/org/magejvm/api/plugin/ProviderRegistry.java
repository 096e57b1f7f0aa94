package org.magejvm.api.plugin;

import com.google.common.collect.ImmutableList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.magejvm.api.annotation.Api;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A validated set of providers of one type, keyed by id.
 *
 * <p>{@link #discover(Class, ClassLoader)} loads every provider declared in {@code META-INF/services}; {@link
 * #register(Provider)} adds one programmatically (a host application need not use ServiceLoader). Two providers with
 * the same id are rejected with an error naming both classes and their jars. Thread-safe.
 *
 * @param <P> the provider type
 */
@Api(status = Api.Status.STABLE)
public final class ProviderRegistry<P extends Provider> {

  /** The prefix reserved for providers built into this library. */
  public static final String RESERVED_PREFIX = "mage-";

  private static final String BUILT_IN_PACKAGE = "org.magejvm.";
  private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]*");
  private static final Logger LOG = LoggerFactory.getLogger(ProviderRegistry.class);

  private final Class<P> type;
  private final Map<String, P> providers = new LinkedHashMap<>();

  /**
   * An empty registry.
   *
   * @param type the provider type, used in messages
   */
  public ProviderRegistry(Class<P> type) {
    this.type = type;
  }

  /**
   * Loads every provider of a type declared through {@link ServiceLoader}.
   *
   * @param type the provider interface
   * @param loader the class loader to search
   * @param <P> the provider type
   * @return the registry
   * @throws PluginException if a provider fails to load, has a malformed id, or shares its id with another
   */
  public static <P extends Provider> ProviderRegistry<P> discover(Class<P> type, ClassLoader loader) {
    ProviderRegistry<P> registry = new ProviderRegistry<>(type);
    Iterator<P> it = ServiceLoader.load(type, loader).iterator();
    while (true) {
      P next;
      try {
        if (!it.hasNext()) {
          break;
        }
        next = it.next();
      } catch (ServiceConfigurationError e) {
        throw new PluginException("could not load a " + type.getSimpleName() + " listed in META-INF/services/"
            + type.getName() + ": " + e.getMessage(), e);
      }
      registry.register(next);
    }
    return registry;
  }

  /**
   * Loads every provider visible to this library's class loader.
   *
   * @param type the provider interface
   * @param <P> the provider type
   * @return the registry
   */
  public static <P extends Provider> ProviderRegistry<P> discover(Class<P> type) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return discover(type, loader != null ? loader : type.getClassLoader());
  }

  /**
   * Adds a provider.
   *
   * @param provider the provider
   * @return this registry
   * @throws PluginException if the id is malformed, reserved, or already taken
   */
  public synchronized ProviderRegistry<P> register(P provider) {
    ProviderInfo info = ProviderInfo.of(provider);
    String id = provider.id();
    if (id == null || !ID.matcher(id).matches()) {
      throw new PluginException(type.getSimpleName() + " " + info.className() + " (" + info.location()
          + ") has a malformed id '" + id + "': use lower-case letters, digits, '.', '_' and '-'");
    }
    if (id.startsWith(RESERVED_PREFIX) && !info.className().startsWith(BUILT_IN_PACKAGE)) {
      throw new PluginException(type.getSimpleName() + " " + info.className() + " (" + info.location()
          + ") uses the id '" + id + "', but ids starting with '" + RESERVED_PREFIX
          + "' are reserved for built-in providers");
    }
    P previous = providers.get(id);
    if (previous != null) {
      ProviderInfo prev = ProviderInfo.of(previous);
      throw new PluginException("two " + type.getSimpleName() + "s share the id '" + id + "': "
          + prev.className() + " (" + prev.location() + ") and " + info.className() + " (" + info.location()
          + "); remove one of the jars or give one provider another id");
    }
    providers.put(id, provider);
    LOG.info("registered {} '{}' version {} from {}", type.getSimpleName(), id, info.version(), info.location());
    return this;
  }

  /**
   * @param id a provider id
   * @return the provider with that id, if any
   */
  public synchronized Optional<P> find(String id) {
    return Optional.ofNullable(providers.get(id));
  }

  /**
   * @param id a provider id
   * @return the provider with that id
   * @throws PluginException naming the known ids when there is none
   */
  public synchronized P require(String id) {
    P p = providers.get(id);
    if (p == null) {
      throw new PluginException("no " + type.getSimpleName() + " with id '" + id + "'; known ids: "
          + providers.keySet());
    }
    return p;
  }

  /** @return the providers in registration order */
  public synchronized List<P> all() {
    return ImmutableList.copyOf(providers.values());
  }

  /** @return id, version, class and location of every provider, in registration order */
  public synchronized List<ProviderInfo> describe() {
    ImmutableList.Builder<ProviderInfo> b = ImmutableList.builder();
    for (P p : providers.values()) {
      b.add(ProviderInfo.of(p));
    }
    return b.build();
  }
}
