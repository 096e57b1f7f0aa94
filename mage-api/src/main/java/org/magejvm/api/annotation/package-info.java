/**
 * {@link org.magejvm.api.annotation.Api}, the mark on the types a host or plugin is meant to use. A package of its
 * own so that every other package can use it without a cycle.
 */
package org.magejvm.api.annotation;
