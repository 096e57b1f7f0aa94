/** Small deterministic test environments and policies for the rollout engine, credit and evaluation tests. */
package org.magejvm.testkit;
