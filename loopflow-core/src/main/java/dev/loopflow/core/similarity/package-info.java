/**
 * Text similarity for the {@code stable_output} exit condition of loops: a loop ends once two successive pass
 * outputs are more similar than its threshold (equal is not enough). {@link dev.loopflow.core.similarity.Similarity}
 * turns outputs into comparable text and applies the rule ({@code exceeds}; {@code atLeast} is the inclusive form); {@link dev.loopflow.core.similarity.Levenshtein} is the fast exact
 * edit distance underneath.
 */
package dev.loopflow.core.similarity;
