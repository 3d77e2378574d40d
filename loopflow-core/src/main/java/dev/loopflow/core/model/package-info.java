/**
 * The immutable, validated form of a workflow: records produced by the loader (or the Java builder) and
 * consumed by the scheduler. Nothing here changes after loading.
 */
package dev.loopflow.core.model;
