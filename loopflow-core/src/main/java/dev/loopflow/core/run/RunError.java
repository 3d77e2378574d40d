package dev.loopflow.core.run;

/** Why a run failed or was cancelled: stable code, message, and the node it happened in (may be null). */
public record RunError(String code, String message, String node) {}
