/**
 * GiGPO and GRPO: critic-free advantage estimation from episode groups and anchor-state step groups, registered as
 * {@link org.magejvm.api.PolicyOptimizerProvider}s with the ids {@code gigpo} and {@code grpo}.
 */
package org.magejvm.gigpo;
