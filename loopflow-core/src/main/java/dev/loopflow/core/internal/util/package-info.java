/** Small shared helpers: name suggestions, durations. */
package dev.loopflow.core.internal.util;
