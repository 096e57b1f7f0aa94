/**
 * The implementation modules' packages: the rollout engine, credit assignment and evaluation in {@code mage-core}
 * ({@code rollout}, {@code credit}, {@code eval}), the built-in games in {@code mage-games} ({@code env}), the chat
 * template interpreter in {@code mage-jinja} ({@code jinja}), the DJL language policy in {@code mage-llm} ({@code
 * llm}) and training in {@code mage-train} ({@code train}). docs/architecture.md shows how they depend on each other.
 */
package org.magejvm.impl;
