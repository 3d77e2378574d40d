/**
 * A YAML reader that keeps the line and column of every key and value, and reports every duplicate key
 * rather than stopping at the first, so the loader can point at each problem in a file.
 */
package dev.loopflow.core.internal.yaml;
