package dev.loopflow.core.internal.load;

import dev.loopflow.core.error.Location;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** The ids one list of nodes declares: the top level, or a loop's body (whose ids may shadow outer ones). */
final class Scope {
  final Scope parent;
  final String owner;
  final String construct;
  final String path;
  final Map<String, Location> ids;
  /** The kind of each node of this list whose kind could be worked out. */
  final Map<String, String> kinds = new HashMap<>();

  Scope(Scope parent, String owner, String construct, String path, Map<String, Location> ids) {
    this.parent = parent;
    this.owner = owner;
    this.construct = construct;
    this.path = path;
    this.ids = ids;
  }

  /** Whether a template in this scope may read {@code id}: it is declared here or in an enclosing scope. */
  boolean sees(String id) {
    for (Scope s = this; s != null; s = s.parent) {
      if (s.ids.containsKey(id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Ids a template in this scope may read: its own, and every enclosing scope's. Copies every id, so it is for
   * error messages only; a membership test is {@link #sees(String)} (called per reference, a copy made loading
   * quadratic in the node count).
   */
  Set<String> visible() {
    Set<String> out = new LinkedHashSet<>(ids.keySet());
    for (Scope s = parent; s != null; s = s.parent) {
      out.addAll(s.ids.keySet());
    }
    return out;
  }

  /** The kind of the node a template here means by {@code id}: the innermost list's that declares it. */
  String kindOf(String id) {
    for (Scope s = this; s != null; s = s.parent) {
      if (s.ids.containsKey(id)) {
        return s.kinds.get(id);
      }
    }
    return null;
  }

  /** Whether {@code id} here means a top-level node (a body's own node of that id would shadow it). */
  boolean resolvesToTopLevel(String id) {
    for (Scope s = this; s != null; s = s.parent) {
      if (s.ids.containsKey(id)) {
        return s.parent == null;
      }
    }
    return false;
  }

  /** Prefix of a problem about an id of this list: empty at the top level, else names the loop body. */
  String prefix() {
    return owner == null ? "" : construct + " '" + owner + "' body: ";
  }
}
