/** The dependency graph the scheduler walks, derived once from a validated workflow. */
package dev.loopflow.core.internal.plan;
