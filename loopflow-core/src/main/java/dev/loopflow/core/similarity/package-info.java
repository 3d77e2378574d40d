/**
 * Text similarity for the {@code stable_output} exit condition of loops: a loop ends once two successive pass
 * outputs are at least as similar as its threshold. {@link dev.loopflow.core.similarity.Similarity} turns outputs
 * into comparable text and applies the rule; {@link dev.loopflow.core.similarity.Levenshtein} is the fast exact
 * edit distance underneath.
 */
package dev.loopflow.core.similarity;
