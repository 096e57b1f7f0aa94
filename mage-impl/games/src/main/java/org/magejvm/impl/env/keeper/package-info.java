/**
 * Goalkeeper, the built-in showcase of adaptation within a meta-episode: a striker with a fixed habit shoots every
 * penalty of a meta-episode at the same spot, and the agent, in goal, sees after each attempt where the shot went. A
 * keeper that reads its earlier attempts saves every penalty from the second on; one that cannot is left with
 * guessing. {@link org.magejvm.impl.env.keeper.GoalkeeperCeilings} computes both exactly.
 */
package org.magejvm.impl.env.keeper;
