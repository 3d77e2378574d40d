package dev.loopflow.core.internal.exec;

/**
 * Asked after each unit of a level completes: null to go on, or how the level ends now. Loops and the restart loop
 * answer it; the level's coordinator asks it without knowing which.
 */
@FunctionalInterface
interface LevelGate {
  LevelResult afterCompleted(String unitId, Frame frame);
}
