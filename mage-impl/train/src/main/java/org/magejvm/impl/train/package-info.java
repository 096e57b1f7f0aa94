/**
 * Training: the optimizer step, the trainer loop, checkpoints, listeners and the supervised warm start. Only the
 * command-line tool and example programs depend on this package.
 */
package org.magejvm.impl.train;
