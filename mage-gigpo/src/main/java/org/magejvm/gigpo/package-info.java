/**
 * GiGPO and GRPO: critic-free advantage estimation from episode groups and anchor-state step groups, and the
 * dual-clip PPO policy loss ({@link org.magejvm.gigpo.PpoLoss}), registered as
 * {@link org.magejvm.api.PolicyOptimizerProvider}s with the ids {@code gigpo} and {@code grpo}.
 *
 * <p>The main code depends on {@code mage-api} and DJL's engine-free {@code api} only; an engine (PyTorch) is needed
 * at run time to compute the loss.
 */
package org.magejvm.gigpo;
