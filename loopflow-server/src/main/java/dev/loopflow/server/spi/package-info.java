/**
 * What a server's embedder may plug in: where runs started over HTTP execute ({@link
 * dev.loopflow.server.spi.RunDispatch}). The server's own code and its internals both depend on this package, never
 * the other way.
 */
package dev.loopflow.server.spi;
