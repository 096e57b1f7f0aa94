/**
 * Scripted (non-neural) policies: they answer prompts with well-formed action text computed from the structured
 * state, so rollouts, credit assignment and evaluation can run and be tested without a model.
 */
package org.magejvm.spi.policy;
