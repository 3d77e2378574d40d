#!/usr/bin/env node
// LangGraph.js runner for the side-by-side harness. Command line, output and workloads: ../PROTOCOL.md.
//
//   node bench/js/runner.mjs <W1..W6> [--variant NAME] [--n N] [--warmup W] [--reps R]
//                                     [--url BASE_URL] [--runs K] [--dir DIR]
//
// stdout carries the JSON lines and nothing else; every log goes to stderr.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ENGINE = "langgraph-js";
const EXIT_FAILED = 1;
const EXIT_USAGE = 2; // also W5, which has no JS equivalent
const HERE = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------------------
// stdout belongs to the JSON lines. Anything the libraries print, through console or process.stdout, goes to
// stderr.
const writeStdout = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => process.stderr.write(...args);
for (const level of ["log", "info", "warn", "debug", "trace", "dir", "table"]) {
  console[level] = (...args) => console.error(...args);
}
function emit(obj) {
  writeStdout(JSON.stringify(obj) + "\n");
}
function log(msg) {
  process.stderr.write(`[${ENGINE}] ${msg}\n`);
}
function fail(msg, code = EXIT_FAILED) {
  process.stderr.write(`[${ENGINE}] FAIL: ${msg}\n`);
  process.exit(code);
}

// No LangSmith tracing or other environment-driven behaviour of LangChain/LangGraph/OpenAI: drop every such
// variable before the libraries are loaded (they are imported dynamically below, after this runs).
{
  const dropped = Object.keys(process.env).filter((k) => /^(LANGCHAIN|LANGSMITH|LANGGRAPH|OPENAI)_/.test(k));
  for (const k of dropped) delete process.env[k];
  process.env.LANGSMITH_TRACING = "false";
  process.env.LANGCHAIN_TRACING_V2 = "false";
  process.env.LANGCHAIN_TRACING = "false";
  if (dropped.length > 0) log(`ignored environment variables: ${dropped.join(", ")}`);
}

// ---------------------------------------------------------------------------------------------------------
// Command line.
function parseArgs(argv) {
  if (argv.length === 0 || argv[0].startsWith("-")) {
    fail("usage: runner.mjs <W1..W6> [--variant NAME] [--n N] [--warmup W] [--reps R] [--url URL] [--runs K] [--dir DIR]", EXIT_USAGE);
  }
  const opts = { workload: argv[0].toUpperCase(), variant: null, n: null, warmup: 3, reps: 5, url: null, runs: 500, dir: null };
  const ints = new Set(["n", "warmup", "reps", "runs"]);
  for (let i = 1; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    if (!arg.startsWith("--")) fail(`unexpected argument: ${arg}`, EXIT_USAGE);
    arg = arg.slice(2);
    const eq = arg.indexOf("=");
    if (eq >= 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    } else {
      if (i + 1 >= argv.length) fail(`--${arg} needs a value`, EXIT_USAGE);
      value = argv[++i];
    }
    if (!(arg in opts) || arg === "workload") fail(`unknown option: --${arg}`, EXIT_USAGE);
    if (ints.has(arg)) {
      if (!/^\d+$/.test(value)) fail(`--${arg} must be a non-negative integer, got ${value}`, EXIT_USAGE);
      opts[arg] = Number(value);
    } else {
      opts[arg] = value;
    }
  }
  if (opts.reps < 1) fail("--reps must be at least 1", EXIT_USAGE);
  if (opts.n !== null && opts.n < 1) fail("--n must be at least 1", EXIT_USAGE);
  if (opts.runs < 1) fail("--runs must be at least 1", EXIT_USAGE);
  // LangGraph.js is built one way only: measuring it under another variant's name would mislabel the figures.
  if (opts.variant !== null && opts.variant !== "default") fail(`the langgraph-js runner has no variant '${opts.variant}'`, EXIT_USAGE);
  return opts;
}

// ---------------------------------------------------------------------------------------------------------
// Versions of the installed packages, read from their package.json (walking up from this file like Node does).
function installedVersion(name) {
  for (let dir = HERE; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "node_modules", name, "package.json");
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8")).version;
    if (path.dirname(dir) === dir) return null;
  }
}
function versions() {
  const v = {};
  for (const name of ["@langchain/langgraph", "@langchain/core", "@langchain/openai", "@langchain/langgraph-checkpoint-sqlite"]) {
    v[name] = installedVersion(name);
  }
  v.node = process.version;
  return v;
}

function nowNs() {
  return process.hrtime.bigint();
}
function msBetween(t0, t1) {
  return Number(t1 - t0) / 1e6;
}
function round(x, digits = 3) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function dirBytes(dir) {
  let total = 0;
  const files = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      total += dirBytes(p).total;
    } else {
      const size = fs.statSync(p).size;
      files[entry.name] = size;
      total += size;
    }
  }
  return { total, files };
}

// ---------------------------------------------------------------------------------------------------------
// Workloads. Each returns { n, run(rep, warm) -> {iterations, wall_ms, bytes?}, extra? }; building and compiling
// happen in the factory, once per process, before the warm-up.

async function w1(opts, lg) {
  const { StateGraph, Annotation, START, END } = lg;
  const N = opts.n ?? 1000;
  const State = Annotation.Root({ count: Annotation() });
  const graph = new StateGraph(State)
    .addNode("increment", (s) => ({ count: s.count + 1 }))
    .addEdge(START, "increment")
    .addConditionalEdges("increment", (s) => (s.count < N ? "increment" : END), ["increment", END])
    .compile();
  const config = { recursionLimit: N + 10 };
  return {
    n: N,
    async run() {
      const t0 = nowNs();
      const out = await graph.invoke({ count: 0 }, config);
      const t1 = nowNs();
      if (out.count !== N) throw new Error(`W1: final count ${out.count}, expected ${N}`);
      return { iterations: out.count, wall_ms: msBetween(t0, t1) };
    },
  };
}

async function w2(opts, lg) {
  const { StateGraph, Annotation, START, END } = lg;
  const N = opts.n ?? 1000;
  const State = Annotation.Root({
    drafts: Annotation({ reducer: (left, right) => left.concat(right), default: () => [] }),
    approved: Annotation({ reducer: (_left, right) => right, default: () => false }),
  });
  const graph = new StateGraph(State)
    .addNode("coder", (s) => ({ drafts: ["draft " + (s.drafts.length + 1)] }))
    .addNode("reviewer", (s) => ({ approved: s.drafts.length >= N }))
    .addEdge(START, "coder")
    .addEdge("coder", "reviewer")
    .addConditionalEdges("reviewer", (s) => (s.approved ? END : "coder"), ["coder", END])
    .compile();
  const config = { recursionLimit: 2 * N + 10 };
  return {
    n: N,
    async run() {
      const t0 = nowNs();
      const out = await graph.invoke({ approved: false }, config);
      const t1 = nowNs();
      const d = out.drafts;
      if (!Array.isArray(d) || d.length !== N) throw new Error(`W2: final drafts length ${d?.length}, expected ${N}`);
      if (out.approved !== true) throw new Error(`W2: final approved ${out.approved}`);
      for (let i = 0; i < N; i++) {
        if (d[i] !== "draft " + (i + 1)) throw new Error(`W2: drafts[${i}] = ${JSON.stringify(d[i])}`);
      }
      return { iterations: d.length, wall_ms: msBetween(t0, t1) };
    },
  };
}

async function w3(opts, lg) {
  const { StateGraph, Annotation, START, END } = lg;
  const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
  const N = opts.n ?? 100;
  fs.mkdirSync(opts.dir, { recursive: true });
  const State = Annotation.Root({ count: Annotation() });
  const builder = new StateGraph(State)
    .addNode("increment", (s) => ({ count: s.count + 1 }))
    .addEdge(START, "increment")
    .addConditionalEdges("increment", (s) => (s.count < N ? "increment" : END), ["increment", END]);
  let seq = 0;
  return {
    n: N,
    async run(rep, warm) {
      // A new file (in its own subdirectory of --dir) and a new thread per repetition. The saver is bound at
      // compile time, so the built graph is compiled once per repetition, outside the timed part.
      const sub = path.join(opts.dir, `${warm ? "warmup" : "rep"}-${rep}`);
      fs.mkdirSync(sub);
      const saver = SqliteSaver.fromConnString(path.join(sub, "checkpoints.sqlite"));
      const graph = builder.compile({ checkpointer: saver });
      const config = { recursionLimit: N + 10, configurable: { thread_id: `w3-${process.pid}-${seq++}` } };
      const t0 = nowNs();
      const out = await graph.invoke({ count: 0 }, config);
      const t1 = nowNs();
      if (out.count !== N) throw new Error(`W3: final count ${out.count}, expected ${N}`);
      // The durable state must hold the final count too.
      const snapshot = await graph.getState({ configurable: { thread_id: config.configurable.thread_id } });
      if (snapshot.values.count !== N) throw new Error(`W3: checkpointed count ${snapshot.values.count}, expected ${N}`);
      // bytes: the database file with its -wal and -shm as the run left them, the connection still open (as
      // loopflow's own W3 counts its SQLite journal). Closing then folds the WAL into the database file and removes
      // -wal/-shm; that smaller size goes to stderr only.
      const open = dirBytes(sub);
      saver.db.close();
      const closed = dirBytes(sub);
      log(`W3 ${warm ? "warm-up" : "rep"} ${rep}: files left by the run ${JSON.stringify(open.files)} = ${open.total} bytes; after close ${JSON.stringify(closed.files)} = ${closed.total} bytes`);
      return { iterations: out.count, wall_ms: msBetween(t0, t1), bytes: open.total };
    },
  };
}

async function w4(opts, lg) {
  const { StateGraph, Annotation, START, END } = lg;
  const { ChatOpenAI } = await import("@langchain/openai");
  const loops = opts.n ?? 5; // reviewer calls per run
  const runs = opts.runs;
  const llm = new ChatOpenAI({ model: "bench", apiKey: "x", configuration: { baseURL: opts.url }, maxRetries: 0 });
  const text = (msg) => (typeof msg.content === "string" ? msg.content : JSON.stringify(msg.content));
  const State = Annotation.Root({
    draft: Annotation(),
    review: Annotation(),
    reviews: Annotation(),
    calls: Annotation(),
  });
  const graph = new StateGraph(State)
    .addNode("coder", async (s) => {
      const reply = await llm.invoke(`Write draft ${s.reviews + 1}.`);
      return { draft: text(reply), calls: s.calls + 1 };
    })
    .addNode("reviewer", async (s) => {
      const reply = await llm.invoke(`Review this draft: ${s.draft}`);
      return { review: text(reply), reviews: s.reviews + 1, calls: s.calls + 1 };
    })
    .addEdge(START, "coder")
    .addEdge("coder", "reviewer")
    .addConditionalEdges("reviewer", (s) => (s.reviews < loops ? "coder" : END), ["coder", END])
    .compile();
  const config = { recursionLimit: 2 * loops + 10 };
  return {
    n: loops,
    extra: { runs },
    async run() {
      const t0 = nowNs();
      const outs = await Promise.all(
        Array.from({ length: runs }, () => graph.invoke({ draft: "", review: "", reviews: 0, calls: 0 }, config)),
      );
      const t1 = nowNs();
      let calls = 0;
      for (const out of outs) {
        if (out.reviews !== loops || out.calls !== 2 * loops) {
          throw new Error(`W4: run ended with reviews=${out.reviews} calls=${out.calls}, expected ${loops} and ${2 * loops}`);
        }
        if (typeof out.review !== "string" || typeof out.draft !== "string") throw new Error("W4: reply text missing");
        calls += out.calls;
      }
      if (calls !== runs * 2 * loops) throw new Error(`W4: ${calls} LLM calls, expected ${runs * 2 * loops}`);
      return { iterations: calls, wall_ms: msBetween(t0, t1) };
    },
  };
}

async function w6(lg) {
  const { StateGraph, Annotation, START, END } = lg;
  const t0 = nowNs();
  // LangGraph.js forbids a node and a state key sharing a name, hence out_a for node a, etc.
  const State = Annotation.Root({ out_a: Annotation(), out_b: Annotation(), out_c: Annotation() });
  const graph = new StateGraph(State)
    .addNode("a", () => ({ out_a: "a" }))
    .addNode("b", () => ({ out_b: "b" }))
    .addNode("c", () => ({ out_c: "c" }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END)
    .compile();
  const out = await graph.invoke({}, { recursionLimit: 3 + 10 });
  const t1 = nowNs();
  if (out.out_a !== "a" || out.out_b !== "b" || out.out_c !== "c") throw new Error(`W6: final state ${JSON.stringify(out)}`);
  return { iterations: 3, wall_ms: msBetween(t0, t1) };
}

// ---------------------------------------------------------------------------------------------------------
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const w = opts.workload;
  if (w === "W5") fail("W5: no JS equivalent", EXIT_USAGE);
  if (!["W1", "W2", "W3", "W4", "W6"].includes(w)) fail(`unknown workload ${opts.workload}`, EXIT_USAGE);
  if (w === "W3" && !opts.dir) fail("W3 needs --dir, a directory for the checkpoint files", EXIT_USAGE);
  if (w === "W4" && !opts.url) fail("W4 needs --url, the fake OpenAI server's base URL", EXIT_USAGE);

  const lg = await import("@langchain/langgraph");
  const base = { engine: ENGINE, workload: w };

  if (w === "W6") {
    // Built and run once; the harness times the whole process.
    const r = await w6(lg);
    emit({ ...base, n: 3, rep: 0, wall_ms: round(r.wall_ms), iterations: r.iterations, us_per_iter: round((r.wall_ms * 1000) / r.iterations) });
    log(`W6: ${round(performance.now(), 1)} ms since process start`);
    emit({ ...base, n: 3, summary: true, peak_rss_kb: process.resourceUsage().maxRSS, versions: versions() });
    return;
  }

  const factory = { W1: w1, W2: w2, W3: w3, W4: w4 }[w];
  const wl = await factory(opts, lg);
  for (let i = 0; i < opts.warmup; i++) {
    const r = await wl.run(i, true);
    log(`${w} n=${wl.n} warm-up ${i}: ${round(r.wall_ms)} ms`);
  }
  for (let rep = 0; rep < opts.reps; rep++) {
    const r = await wl.run(rep, false);
    const line = { ...base, n: wl.n, ...(wl.extra ?? {}), rep, wall_ms: round(r.wall_ms), iterations: r.iterations, us_per_iter: round((r.wall_ms * 1000) / r.iterations) };
    if (r.bytes !== undefined) {
      line.bytes = r.bytes;
      line.bytes_per_iter = round(r.bytes / r.iterations, 1);
    }
    emit(line);
  }
  emit({ ...base, n: wl.n, ...(wl.extra ?? {}), summary: true, peak_rss_kb: process.resourceUsage().maxRSS, versions: versions() });
}

function describe(err) {
  let text = err?.stack ?? String(err);
  for (let c = err?.cause, depth = 0; c && depth < 5; c = c.cause, depth++) {
    text += `\ncaused by: ${c?.stack ?? String(c)}${c?.code ? ` (code ${c.code})` : ""}`;
  }
  return text;
}

main().then(
  () => process.exit(0),
  (err) => fail(describe(err), EXIT_FAILED),
);
