/**
 * The ready-made training listeners a run directory is written with: {@code metrics.jsonl}
 * ({@link org.magejvm.impl.train.listen.MetricsFileListener}), log lines, charts and a progress bar, and the reading
 * of a metrics file back ({@link org.magejvm.impl.train.listen.MetricsHistory}).
 */
package org.magejvm.impl.train.listen;
