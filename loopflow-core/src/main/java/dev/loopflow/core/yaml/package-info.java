/**
 * A YAML reader that keeps the line and column of every key and value, and reports every duplicate key
 * rather than stopping at the first, so the loader can point at each problem in a file.
 *
 * <p>A leaf: it depends on nothing of loopflow's but the error types, so the loader and the redactor (which finds
 * the credentials written in a workflow's text) read YAML the same way without either reaching into the other.
 */
package dev.loopflow.core.yaml;
