/**
 * Everything that runs: the rollout engine, credit assignment, evaluation, the built-in environments and the DJL
 * language policy. Sub-packages hold each part.
 */
package org.magejvm.impl;
