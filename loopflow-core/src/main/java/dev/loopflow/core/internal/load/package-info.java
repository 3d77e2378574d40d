/**
 * Turns YAML into a validated {@link dev.loopflow.core.model.Workflow}: resolves identities, shorthands and
 * dependencies, compiles templates and conditions, and collects every problem with its location before
 * anything runs.
 */
package dev.loopflow.core.internal.load;
