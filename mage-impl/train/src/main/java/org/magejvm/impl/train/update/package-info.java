/**
 * The policy update: {@link org.magejvm.impl.train.update.PolicyUpdater} (old and reference log-probabilities,
 * minibatches and micro-batches, the PPO loss, the update checks), the {@link org.magejvm.impl.train.update.AdamW}
 * step and its settings, and where old log-probabilities come from.
 */
package org.magejvm.impl.train.update;
