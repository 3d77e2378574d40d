// Positions of node executions. An execution's path names the node and, for every loop it sits in, the pass:
// `outer[2].inner[1].inc`. Stripping the passes gives the node's place in the workflow (`outer.inner.inc`), the
// same for every pass. Node ids hold only letters, digits, '_' and '-', so '.' and '[' never occur inside an id;
// engine-made segments such as a loop edge's `reviewer->coder`, a gate's `gate`, `$until` or `x~restart` are
// kept as they are.

export interface PathSegment {
  name: string;
  /** the pass of the loop this segment names, when the path continues inside it */
  iteration?: number;
}

const SEGMENT = /^(.*?)\[(\d+)\]$/;

export function parsePath(path: string): PathSegment[] {
  if (!path) return [];
  return path.split('.').map((part) => {
    const m = SEGMENT.exec(part);
    if (m && m[1] !== undefined && m[2] !== undefined) return { name: m[1], iteration: Number(m[2]) };
    return { name: part };
  });
}

export function formatPath(segments: PathSegment[]): string {
  return segments.map((s) => (s.iteration === undefined ? s.name : `${s.name}[${s.iteration}]`)).join('.');
}

/** `fix_until_pass[2].implement` → `fix_until_pass.implement` */
export function staticPath(path: string): string {
  return parsePath(path).map((s) => s.name).join('.');
}

/** The last segment's name: the node id for ordinary nodes. */
export function lastName(path: string): string {
  const segs = parsePath(path);
  return segs.length ? segs[segs.length - 1]!.name : '';
}

/** One pass of one loop instance that a path runs in. */
export interface PassRef {
  /** the loop instance's own path, e.g. `outer[2].inner` */
  loopPath: string;
  /** the loop's place in the workflow, e.g. `outer.inner` */
  loopStatic: string;
  iteration: number;
}

/** The passes, outermost first, that a path sits in: `outer[2].inner[1].inc` → outer@2, outer[2].inner@1. */
export function passChain(path: string): PassRef[] {
  const segs = parsePath(path);
  const chain: PassRef[] = [];
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if (s.iteration === undefined) continue;
    const own = segs.slice(0, i + 1).map((x, j) => (j === i ? { name: x.name } : x));
    chain.push({ loopPath: formatPath(own), loopStatic: own.map((x) => x.name).join('.'), iteration: s.iteration });
  }
  return chain;
}

/** The innermost pass a path sits in, or undefined at the top level. */
export function innermostPass(path: string): PassRef | undefined {
  const c = passChain(path);
  return c.length ? c[c.length - 1] : undefined;
}

/** The path of a loop instance's pass: (`outer[2].inner`, 3) → `outer[2].inner[3]`. */
export function passPath(loopPath: string, iteration: number): string {
  return `${loopPath}[${iteration}]`;
}

/** True when `path` runs inside the pass `prefix` (e.g. `outer[2]`), directly or in a nested loop. */
export function isInside(path: string, prefix: string): boolean {
  return path.startsWith(prefix + '.');
}
