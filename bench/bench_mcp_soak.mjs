// bench_mcp_soak.mjs - the soak of `pathgate mcp` as a service: CALLS mixed
// calls (every tool, resolve and cwd_push/cwd_pop included) through CONNS
// concurrent connections, over stdio (one server process per connection,
// as stdio serves one client) and over Streamable HTTP (one server, one MCP
// session per connection), with raw JSON-RPC clients (the SDK client's own
// cost would dominate a million calls; tests/mcp drives the same server
// through the SDK). Every answer is checked. Reports failed calls, the
// servers' resident memory after warm-up, at its peak and at the end, and
// the token count when the connections close (from the servers' logs), and
// that the call log has one line per call. Asserts nothing about time.
// Run it through bench/bench_mcp_soak.sh.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const CALLS = Number(process.env.CALLS || 1_000_000);
const CONNS = Number(process.env.CONNS || 8);
const TRANSPORTS = (process.env.TRANSPORTS || "stdio,http").split(",");
const WARMUP = Number(process.env.WARMUP || 0.05); // share of the calls before the baseline
const python = process.env.PATHGATE_PYTHON || "/usr/bin/python3";

// ------------------------------------------------------------------ tree
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pathgate-soak-")));
const root = path.join(top, "tree");
function put(p, data) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
}
const docs = [];
for (let i = 0; i < 20; i++) {
  put(path.join(root, "docs", `doc${i}.md`), `# doc ${i}\n` + `text of doc ${i}\n`.repeat(40 + i * 10));
  docs.push(`doc${i}.md`);
}
for (let a = 0; a < 3; a++) {
  for (let b = 0; b < 3; b++) {
    for (let f = 0; f < 5; f++) {
      put(path.join(root, "src", `m${a}`, `p${b}`, `f${f}.py`), `def f${f}():\n    return "needle ${a}${b}${f}"\n`);
      put(path.join(root, "src", `m${a}`, `p${b}`, `f${f}.txt`), `plain ${a}${b}${f}\n`);
    }
  }
}
put(path.join(root, "media", "img.png"), Buffer.alloc(4096, 0x42));
put(path.join(root, "logs", "big.log"), Array.from({ length: 20000 }, (_, i) => `log line ${i}\n`).join(""));
fs.mkdirSync(path.join(root, "work"));
const tmpdir = path.join(top, "tmp");
fs.mkdirSync(tmpdir);

// --------------------------------------------------------------- the mix
// A small deterministic PRNG per connection (xorshift32).
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

const R = "root:bench";
// [weight, make(state) -> {name, args, check(result)}]
const MIX = [
  [14, (s) => {
    const d = s.pick(docs);
    const form = s.rand();
    const args = form < 0.6 ? { path: `${R}/docs/${d}` } : form < 0.8 ? { path: `${R}/logs/big.log`, head: 5 }
      : { path: `${R}/logs/big.log`, tail: 5 };
    return { name: "read_text_file", args, check: (r) => txt(r).length > 0 };
  }],
  [2, (s) => ({ name: "read_file", args: { path: `${R}/docs/${s.pick(docs)}` }, check: (r) => txt(r).startsWith("# doc") })],
  [2, () => ({ name: "read_media_file", args: { path: `${R}/media/img.png` }, check: (r) => r.content[0].mimeType === "image/png" })],
  [3, (s) => ({ name: "read_multiple_files", args: { paths: [0, 1, 2].map(() => `${R}/docs/${s.pick(docs)}`) },
    check: (r) => r.structuredContent.files.length === 3 })],
  [5, (s) => ({ name: "write_file", args: { path: `${s.work}/w${s.n % 8}.txt`, content: `written ${s.n}\n`.repeat(8) },
    check: (r) => txt(r).startsWith("Successfully wrote to") })],
  [5, (s) => {
    const from = `counter: ${s.counter}`;
    s.counter++;
    return { name: "edit_file", args: { path: `${s.work}/edit.txt`, edits: [{ oldText: from, newText: `counter: ${s.counter}` }] },
      check: (r) => r.structuredContent.diff.includes(`+counter: ${s.counter}`) };
  }],
  [2, (s) => ({ name: "create_directory", args: { path: `${s.work}/dir${s.n % 4}` }, check: (r) => txt(r).startsWith("Successfully created") })],
  [3, (s) => {
    const [a, b] = s.moved ? ["mv_b.txt", "mv_a.txt"] : ["mv_a.txt", "mv_b.txt"];
    s.moved = !s.moved;
    return { name: "move_file", args: { source: `${s.work}/${a}`, destination: `${s.work}/${b}` },
      check: (r) => r.structuredContent.destination.endsWith(b) };
  }],
  [8, () => ({ name: "list_directory", args: { path: `${R}/docs` }, check: (r) => r.structuredContent.entries.length === 20 })],
  [3, () => ({ name: "list_directory_with_sizes", args: { path: `${R}/src/m1/p1` }, check: (r) => r.structuredContent.entries.length === 10 })],
  [2, () => ({ name: "directory_tree", args: { path: `${R}/src/m2` }, check: (r) => JSON.parse(txt(r)).length === 3 })],
  [3, () => ({ name: "search_files", args: { path: `${R}/src`, pattern: "*.py" }, check: (r) => r.structuredContent.matches.length === 45 })],
  [5, (s) => ({ name: "get_file_info", args: { path: `${R}/docs/${s.pick(docs)}` }, check: (r) => r.structuredContent.isFile === true })],
  [2, () => ({ name: "list_allowed_directories", args: {}, check: (r) => txt(r) === "Allowed directories:\nroot:bench" })],
  [10, (s) => {
    const form = s.rand();
    const args = form < 0.4 ? { path: `${R}/docs/${s.pick(docs)}` } : form < 0.7 ? { path: `file://${root}/src/m0/p0/f0.py` }
      : { path: `${R}/missing/${s.n}.txt`, require_exists: false };
    return { name: "resolve", args, check: (r) => r.structuredContent.address.startsWith(R) && !("token" in r.structuredContent) };
  }],
  [4, (s) => {
    const regex = s.rand() < 0.5;
    return { name: "grep", args: regex ? { pattern: "needle 1\\d2", path: `${R}/src`, regex: true, glob: "*.py" }
      : { pattern: "needle", path: `${R}/src/m0`, max_count: 5 },
    check: (r) => r.structuredContent.matches.length === (regex ? 3 : 5) };
  }],
  [2, () => ({ name: "cwd_get", args: {}, check: (r) => typeof r.structuredContent.depth === "number" })],
  [6, (s) => {
    if (s.depth < 3) {
      s.depth++;
      return { name: "cwd_push", args: { path: `${R}/src/m${s.depth - 1}` }, check: (r) => r.structuredContent.depth === s.depth };
    }
    s.depth--;
    return { name: "cwd_pop", args: {}, check: (r) => r.structuredContent.depth === s.depth };
  }],
  [5, (s) => {
    if (s.depth > 0) s.depth--;
    const want = s.depth;
    return { name: "cwd_pop", args: {}, check: (r) => r.structuredContent.depth === want };
  }],
  [2, () => ({ method: "ping", check: () => true })],
  [0.05, () => ({ name: "execute", args: { command: "echo soak" }, check: (r) => txt(r) === "soak\n[exit code 0]" })],
];
const TOTAL_WEIGHT = MIX.reduce((a, [w]) => a + w, 0);
function txt(r) { return r.content[0].text; }

function newState(i, transport) {
  const s = { rand: rng(0x9e3779b9 ^ (i + 1) * 2654435761), n: 0, counter: 0, moved: false, depth: 0, work: `${R}/work/${transport}-c${i}` };
  s.pick = (xs) => xs[Math.floor(s.rand() * xs.length)];
  return s;
}

function nextCall(s) {
  s.n++;
  let x = s.rand() * TOTAL_WEIGHT;
  for (const [w, make] of MIX) {
    if ((x -= w) < 0) return make(s);
  }
  return MIX[0][1](s);
}

// ------------------------------------------------------------ transports
const env = { PATH: process.env.PATH, PYTHONPATH: process.env.PYTHONPATH || "", HOME: top, TMPDIR: tmpdir,
  PYTHONDONTWRITEBYTECODE: "1" };
for (const k of ["MALLOC_ARENA_MAX", "LD_PRELOAD"]) if (process.env[k]) env[k] = process.env[k];
const serverArgs = ["-m", "pathgate", "--root", `bench=${root}`, "mcp", "--allow-execute"];

function rssKiB(pid) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
    return m ? Number(m[1]) : NaN;
  } catch { return NaN; }
}

function logFile(name) {
  const p = path.join(top, `${name}.log`);
  return { path: p, fd: fs.openSync(p, "w") };
}

// stdio: a server per connection, one JSON line per message
function stdioConn(i) {
  const log = logFile(`stdio-${i}`);
  const proc = spawn(python, serverArgs, { env, cwd: top, stdio: ["pipe", "pipe", log.fd] });
  let buf = "";
  const waiting = new Map();
  proc.stdout.setEncoding("utf8");
  proc.stdout.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line);
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      w?.(msg);
    }
  });
  let id = 0;
  return {
    pids: [proc.pid],
    log,
    send(method, params) {
      return new Promise((res) => {
        const rid = ++id;
        waiting.set(rid, res);
        proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: rid, method, params }) + "\n");
      });
    },
    notify(method) { proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n"); },
    async close() {
      const done = new Promise((r) => proc.on("exit", (code) => r(code)));
      proc.stdin.end();
      return done;
    },
  };
}

// HTTP: one server, a session (and a kept-alive connection) per client
async function httpServer() {
  const log = logFile("http");
  const proc = spawn(python, [...serverArgs, "--http", "127.0.0.1:0", "--max-sessions", String(CONNS + 2)],
    { env, cwd: top, stdio: ["ignore", "ignore", log.fd] });
  let url = null;
  for (let t = 0; t < 600 && !url; t++) {
    await new Promise((r) => setTimeout(r, 50));
    const m = fs.readFileSync(log.path, "utf8").match(/listening on (http:\/\/[^ ]+\/mcp)/);
    if (m) url = new URL(m[1]);
  }
  if (!url) throw new Error("the HTTP server did not start: " + fs.readFileSync(log.path, "utf8"));
  return { proc, url, log };
}

function httpConn(srv) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let sid = null;
  let id = 0;
  function post(body) {
    return new Promise((res, rej) => {
      const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
        "Content-Length": Buffer.byteLength(body) };
      if (sid) headers["Mcp-Session-Id"] = sid;
      const req = http.request({ host: srv.url.hostname, port: srv.url.port, path: "/mcp", method: "POST", agent, headers }, (r) => {
        const chunks = [];
        r.on("data", (c) => chunks.push(c));
        r.on("end", () => res({ status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks).toString("utf8") }));
      });
      req.on("error", rej);
      req.end(body);
    });
  }
  return {
    pids: [srv.proc.pid],
    async send(method, params) {
      const r = await post(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
      if (r.headers["mcp-session-id"]) sid = r.headers["mcp-session-id"];
      if (r.status !== 200) return { error: { code: r.status, message: r.body } };
      return JSON.parse(r.body);
    },
    notify(method) { return post(JSON.stringify({ jsonrpc: "2.0", method })); },
    close() {
      return new Promise((res, rej) => {
        const req = http.request({ host: srv.url.hostname, port: srv.url.port, path: "/mcp", method: "DELETE", agent,
          headers: { "Mcp-Session-Id": sid } }, (r) => { r.resume(); r.on("end", () => { agent.destroy(); res(r.statusCode); }); });
        req.on("error", rej);
        req.end();
      });
    },
  };
}

// ------------------------------------------------------------------ run
async function soak(transport) {
  let srv = null;
  const conns = [];
  if (transport === "http") {
    srv = await httpServer();
    for (let i = 0; i < CONNS; i++) conns.push(httpConn(srv));
  } else {
    for (let i = 0; i < CONNS; i++) conns.push(stdioConn(i));
  }
  const pids = [...new Set(conns.flatMap((c) => c.pids))];
  const states = conns.map((_, i) => newState(i, transport));
  for (const c of conns) {
    const r = await c.send("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "soak", version: "0" } });
    if (!r.result) throw new Error(JSON.stringify(r));
    await c.notify("notifications/initialized");
  }
  // each connection's own directory and files
  for (let i = 0; i < CONNS; i++) {
    const w = states[i].work;
    for (const [name, args] of [["create_directory", { path: w }], ["write_file", { path: `${w}/edit.txt`, content: "counter: 0\n" }],
      ["write_file", { path: `${w}/mv_a.txt`, content: "moving\n" }]]) {
      const r = await conns[i].send("tools/call", { name, arguments: args });
      if (!r.result || r.result.isError) throw new Error(JSON.stringify(r));
    }
  }
  const setupCalls = 3 * CONNS;
  const perConn = Math.ceil(CALLS / CONNS);
  const warmCalls = Math.floor(CALLS * WARMUP);
  let done = 0, failed = 0, toolCalls = 0;
  const failures = [];
  const byTool = {};
  const lat = new Float64Array(CALLS);
  let baseline = null, peakAfter = 0;
  const sample = () => pids.reduce((a, p) => a + rssKiB(p), 0);
  const perPid = () => pids.map(rssKiB);
  let baselinePer = null, peakPer = pids.map(() => 0);
  const sampler = setInterval(() => {
    if (baseline === null) return;
    const now = perPid();
    peakAfter = Math.max(peakAfter, now.reduce((a, b) => a + b, 0));
    peakPer = peakPer.map((p, k) => Math.max(p, now[k]));
  }, 250);
  const t0 = performance.now();
  let nextReport = 0.1;
  await Promise.all(conns.map(async (c, i) => {
    const s = states[i];
    for (let k = 0; k < perConn && done < CALLS; k++) {
      const call = nextCall(s);
      const t = performance.now();
      const r = call.method ? await c.send(call.method, {}) : await c.send("tools/call", { name: call.name, arguments: call.args });
      const slot = done++;
      if (slot < CALLS) lat[slot] = performance.now() - t;
      if (!call.method) toolCalls++;
      const key = call.method || call.name;
      byTool[key] = (byTool[key] || 0) + 1;
      let ok = r.result && !r.result.isError;
      if (ok) {
        try { ok = call.check(r.result); } catch { ok = false; }
      }
      if (!ok) {
        failed++;
        if (failures.length < 5) failures.push({ call: key, args: call.args, answer: JSON.stringify(r).slice(0, 300) });
      }
      if (done === warmCalls) {
        baseline = sample();
        baselinePer = perPid();
      }
      if (done / CALLS >= nextReport) {
        process.stderr.write(`  ${transport}: ${Math.round(100 * done / CALLS)}% (${done} calls, ` +
          `${Math.round(done / ((performance.now() - t0) / 1000))}/s, RSS ${(sample() / 1024).toFixed(1)} MiB)\n`);
        nextReport += 0.1;
      }
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const end = sample();
  const endPer = perPid();
  // the connections close: sessions end (HTTP DELETE) or the input ends (stdio)
  const closed = await Promise.all(conns.map((c) => c.close()));
  let logs;
  if (srv) {
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise((r) => srv.proc.on("exit", (code) => r(code)));
    srv.proc.kill("SIGTERM");
    closed.push(await exited);
    logs = [fs.readFileSync(srv.log.path, "utf8")];
  } else {
    logs = conns.map((c) => fs.readFileSync(c.log.path, "utf8"));
  }
  const tokensAtClose = [];
  let callLines = 0;
  for (const text of logs) {
    for (const line of text.split("\n")) {
      if (line.startsWith("pathgate mcp: call ")) callLines++;
      const m = line.match(/(?:closed|stopped \([^)]*\)).*tokens live: (\d+)/);
      if (m) tokensAtClose.push(Number(m[1]));
    }
  }
  const sorted = Array.from(lat.subarray(0, Math.min(done, CALLS))).sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 1000;
  return {
    transport, calls: done, failed, failures, seconds, rate: done / seconds, p50: q(0.5), p99: q(0.99),
    servers: pids.length, baseline, end, peakAfter, baselinePer, endPer, peakPer,
    growthPer: endPer.map((e, k) => e - baselinePer[k]), peakGrowthPer: peakPer.map((p, k) => p - baselinePer[k]),
    tokensAtClose, callLines, toolCalls: toolCalls + setupCalls, exitCodes: closed, byTool,
    tmpLeft: fs.readdirSync(tmpdir),
  };
}

const results = [];
for (const t of TRANSPORTS) {
  process.stderr.write(`soak over ${t}: ${CALLS} calls through ${CONNS} connections\n`);
  results.push(await soak(t));
}

const mib = (k) => (k / 1024).toFixed(1);
const cpu = os.cpus().length;
console.log(`pathgate mcp soak: ${CALLS} mixed calls through ${CONNS} concurrent connections per transport, ` +
  `${cpu} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log("");
console.log("| transport | calls | failed | calls/s | p50 (us) | p99 (us) | server RSS after warm-up (MiB) | at end | peak | growth at end / peak, worst server (MiB) | tokens live when closed | call-log lines / tool calls | left in TMPDIR |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|");
for (const r of results) {
  const per = r.servers > 1 ? ` (${r.servers} servers)` : "";
  console.log(`| ${r.transport}${per} | ${r.calls} | ${r.failed} | ${r.rate.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ` +
    `${mib(r.baseline)} | ${mib(r.end)} | ${mib(r.peakAfter)} | ` +
    `${mib(Math.max(...r.growthPer))} / ${mib(Math.max(...r.peakGrowthPer))} | ` +
    `${[...new Set(r.tokensAtClose)].join(", ")} (${r.tokensAtClose.length} lines) | ${r.callLines} / ${r.toolCalls} | ${r.tmpLeft.length} |`);
}
console.log("");
console.log("Calls by tool (first transport): " + Object.entries(results[0].byTool).sort((a, b) => b[1] - a[1])
  .map(([k, v]) => `${k} ${v}`).join(", "));
for (const r of results) {
  if (r.failures.length) console.log(`${r.transport} failures (first ${r.failures.length}):`, JSON.stringify(r.failures, null, 1));
  if (r.exitCodes.some((c) => c !== 0 && c !== 200)) console.log(`${r.transport}: exit/close codes ${r.exitCodes.join(",")}`);
}
fs.rmSync(top, { recursive: true, force: true });
