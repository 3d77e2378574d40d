/**
 * Run events as sealed records. Every event carries the run id, a per-run sequence number and a timestamp;
 * node events carry the node's {@link dev.loopflow.core.error.NodePosition} (loop path, iteration, id) so that
 * passes of a loop never collide. Subscribers (progress view, journal, JSONL file) get them in order.
 */
package dev.loopflow.core.event;
