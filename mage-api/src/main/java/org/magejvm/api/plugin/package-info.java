/**
 * Plugin discovery shared by environments and optimizers: providers describe themselves ({@link
 * org.magejvm.api.plugin.Provider}) and a {@link org.magejvm.api.plugin.ProviderRegistry} finds them through
 * {@link java.util.ServiceLoader} or takes them programmatically, rejecting duplicate ids.
 */
package org.magejvm.api.plugin;
