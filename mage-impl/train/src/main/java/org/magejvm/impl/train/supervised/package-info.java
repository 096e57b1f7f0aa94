/**
 * Supervised training (the warm start and {@code mage sft}): {@link org.magejvm.impl.train.supervised.Transcript}s
 * in the {@code messages} JSONL format, their tokenization into examples, and the
 * {@link org.magejvm.impl.train.supervised.SupervisedTrainer} that fits the policy's answers to them.
 */
package org.magejvm.impl.train.supervised;
