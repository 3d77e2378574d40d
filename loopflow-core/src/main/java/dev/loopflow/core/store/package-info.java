/**
 * The journal SPI: run records, node executions keyed by position, and events. The in-memory implementation
 * here serves library use and tests; durable SQL stores implement the same interface.
 */
package dev.loopflow.core.store;
