/** What a caller gets from a run: its handle, its result object (the same one the CLI prints) and options. */
package dev.loopflow.core.run;
