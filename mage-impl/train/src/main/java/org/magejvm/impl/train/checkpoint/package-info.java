/**
 * Checkpoints and resume: {@link org.magejvm.impl.train.checkpoint.CheckpointManager} writes a run's checkpoints
 * (weights, AdamW state, counters, the run's record) crash-safely on a schedule and keeps the best,
 * {@link org.magejvm.impl.train.checkpoint.TrainingCheckpoint} verifies and restores one, and
 * {@link org.magejvm.impl.train.checkpoint.ModelSaver} writes a trained model as a Hugging Face checkpoint.
 */
package org.magejvm.impl.train.checkpoint;
