/**
 * How the server works inside: the route table and its one error mapping ({@code HttpApi}, {@code ErrorTable}),
 * bearer-token checks, strict request bodies, workflow files under the workflows directory, the runs this process
 * executes with their in-memory event feeds, and the server-sent event streams. Not exported.
 */
package dev.loopflow.server.internal;
