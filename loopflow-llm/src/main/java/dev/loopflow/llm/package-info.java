/**
 * The {@code llm} node, the mock provider and the LLM-chosen router branch. Providers are reached through
 * {@link dev.loopflow.llm.provider}; every call goes through the run's budget check and usage accounting.
 */
package dev.loopflow.llm;
