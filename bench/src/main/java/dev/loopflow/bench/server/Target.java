package dev.loopflow.bench.server;

/** A running server under test: its API and the meter on its process. */
record Target(Api api, ProcStats stats) {}
