/**
 * What every part of training shares and depends on nothing else of it: {@link
 * org.magejvm.impl.train.common.TrainingException}, the error of a run that cannot go on (a checkpoint or metrics file
 * that cannot be read or written, too many failed meta-episodes), and {@link
 * org.magejvm.impl.train.common.ConfigJson}, the JSON form of configuration records in checkpoints and metrics.
 */
package org.magejvm.impl.train.common;
