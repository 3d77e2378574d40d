/** The {@code loopflow} command line: run, validate and graph workflows. */
package dev.loopflow.cli;
