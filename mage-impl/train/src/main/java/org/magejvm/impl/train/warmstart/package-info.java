/**
 * The warm start from scripted players: supervised training of a small model on the turns of an environment's
 * non-adaptive scripted players ({@link org.magejvm.impl.train.warmstart.MixedScriptedPolicy}, or a player that
 * writes reflections in the game's format and acts on them), so that it learns the action format, and with it how to
 * read the earlier attempts, before reinforcement learning teaches it to adapt. {@link
 * org.magejvm.impl.train.warmstart.ScriptedWarmStart} makes one and caches it under the {@link
 * org.magejvm.impl.train.warmstart.WarmStartSettings} it was made with; {@link
 * org.magejvm.impl.train.warmstart.TinyBaseModel} writes the untrained tiny Qwen3 model it starts from.
 */
package org.magejvm.impl.train.warmstart;
