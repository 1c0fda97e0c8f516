// bench_mcp.mjs - per-call latency of `pathgate mcp` (over stdio and over
// Streamable HTTP) and of the reference MCP filesystem server
// (@modelcontextprotocol/server-filesystem, stdio only: it has no HTTP),
// all driven by the same official SDK client, on the same tree, in
// rotating rounds within one run. Prints the median of each call, the
// latency per call over a mix in which each call comes equally often (the
// mean of the medians), and the ratios to the reference over stdio; asserts
// nothing about time. Run it through bench/bench_mcp.sh.
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import { setMaxListeners } from "node:events";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const nodeDir = process.env.PATHGATE_MCP_NODE_DIR;
const require = createRequire(path.join(nodeDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

// The SDK's HTTP transport adds an abort listener per request to one
// signal and never removes it: no warning for each past 1500.
setMaxListeners(0);

const ROUNDS = Number(process.env.ROUNDS || 5);
const CALLS = Number(process.env.CALLS || 200);
const python = process.env.PATHGATE_PYTHON || "/usr/bin/python3";

// the tree: 10 directories x 20 files, one of them a .py in each
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pathgate-bench-mcp-")));
const root = path.join(top, "tree");
for (let d = 0; d < 10; d++) {
  for (let f = 0; f < 20; f++) {
    const p = path.join(root, `dir${d}`, `file${f}.${f === 0 ? "py" : "txt"}`);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, `line of dir ${d} file ${f}\n`.repeat(40));
  }
}
fs.mkdirSync(path.join(root, "out"));
fs.writeFileSync(path.join(root, "out", "e.txt"), "alpha\nbeta\ngamma\n");

async function connect(transport) {
  if (transport.stderr) transport.stderr.on("data", () => {});
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const pgEnv = { PATH: process.env.PATH, PYTHONPATH: process.env.PYTHONPATH || "", HOME: top };
const pgArgs = ["-m", "pathgate", "--root", `bench=${root}`, "mcp"];
// the HTTP server: loopback, an ephemeral port, its log discarded
const httpProc = spawn(python, [...pgArgs, "--http", "127.0.0.1:0"], { env: pgEnv, stdio: ["ignore", "ignore", "pipe"] });
const httpUrl = await new Promise((resolve, reject) => {
  let err = "";
  httpProc.stderr.on("data", (d) => {
    err += d;
    const m = err.match(/listening on (http:\/\/[^ ]+\/mcp)/);
    if (m) resolve(m[1]);
  });
  httpProc.on("exit", () => reject(new Error(err)));
});
httpProc.stderr.on("data", () => {});

// What the SDK's HTTP client costs by itself: a Node server in this process
// that answers every message at once, with nothing to do.
const floor = http.createServer((req, res) => {
  let body = "";
  req.on("data", (d) => { body += d; });
  req.on("end", () => {
    if (req.method !== "POST") { res.writeHead(405); res.end(); return; }
    const m = JSON.parse(body);
    if (!("id" in m)) { res.writeHead(202); res.end(); return; }
    const result = m.method === "initialize"
      ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "floor", version: "0" } } : {};
    const out = JSON.stringify({ jsonrpc: "2.0", id: m.id, result });
    res.writeHead(200, { "Content-Type": "application/json", "Mcp-Session-Id": "floor", "Content-Length": Buffer.byteLength(out) });
    res.end(out);
  });
});
await new Promise((r) => floor.listen(0, "127.0.0.1", r));

const refMain = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const pgNames = { file: "root:bench/dir3/file7.txt", other: "root:bench/dir4/file2.txt", dir: "root:bench/dir3",
  top: "root:bench", out: "root:bench/out/w.txt", edit: "root:bench/out/e.txt" };
const servers = {
  reference: {
    client: await connect(new StdioClientTransport({ command: process.execPath, args: [refMain, root],
      env: { PATH: process.env.PATH, HOME: top }, stderr: "pipe" })),
    file: path.join(root, "dir3", "file7.txt"), other: path.join(root, "dir4", "file2.txt"),
    dir: path.join(root, "dir3"), top: root, out: path.join(root, "out", "w.txt"), edit: path.join(root, "out", "e.txt"),
  },
  "pathgate stdio": {
    client: await connect(new StdioClientTransport({ command: python, args: pgArgs, env: pgEnv, stderr: "pipe" })),
    ...pgNames,
  },
  "pathgate http": {
    client: await connect(new StreamableHTTPClientTransport(new URL(httpUrl))),
    ...pgNames,
  },
};

const call = (s, name, args) => s.client.callTool({ name, arguments: args });
const ops = {
  ping: (s) => s.client.ping(),
  // a tools/call that touches no file: the SDK client's own cost of a call
  list_allowed_directories: (s) => call(s, "list_allowed_directories", {}),
  read_text_file: (s) => call(s, "read_text_file", { path: s.file }),
  read_multiple_files: (s) => call(s, "read_multiple_files", { paths: [s.file, s.other] }),
  list_directory: (s) => call(s, "list_directory", { path: s.dir }),
  list_directory_with_sizes: (s) => call(s, "list_directory_with_sizes", { path: s.dir }),
  directory_tree: (s) => call(s, "directory_tree", { path: s.dir }),
  get_file_info: (s) => call(s, "get_file_info", { path: s.file }),
  search_files: (s) => call(s, "search_files", { path: s.top, pattern: "**/*.py" }),
  write_file: (s) => call(s, "write_file", { path: s.out, content: "written\n" }),
  edit_file: (s) => call(s, "edit_file", { path: s.edit, edits: [{ oldText: "beta", newText: "delta" }], dryRun: true }),
};

// sanity: both answer the same thing (modulo how they name files)
for (const [name, s] of Object.entries(servers)) {
  const r = await ops.read_text_file(s);
  if (r.isError || !r.content[0].text.startsWith("line of dir 3 file 7")) throw new Error(`${name}: ${JSON.stringify(r)}`);
  const m = await ops.search_files(s);
  if (m.content[0].text.split("\n").length !== 10) throw new Error(`${name} search: ${m.content[0].text}`);
  await ops.write_file(s);
}

const samples = {};
const floorClient = await connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${floor.address().port}/mcp`)));
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await floorClient.ping();
    (samples.floor ??= []).push(performance.now() - t0);
  }
  const order = Object.entries(servers);
  for (let k = 0; k < round % order.length; k++) order.push(order.shift());
  for (const [sname, s] of order) {
    for (const [oname, op] of Object.entries(ops)) {
      for (let i = 0; i < 10; i++) await op(s); // warm
      const key = `${sname}/${oname}`;
      samples[key] ??= [];
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        const r = await op(s);
        samples[key].push(performance.now() - t0);
        if (r?.isError) throw new Error(`${key}: ${JSON.stringify(r)}`);
      }
    }
  }
}

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)] * 1000; // microseconds
};
const cpu = spawnSync("nproc").stdout?.toString().trim();
console.log(`pathgate mcp (stdio, HTTP) vs @modelcontextprotocol/server-filesystem (stdio): median us per call, ` +
  `${ROUNDS} rotating rounds x ${CALLS} calls of each, the same SDK client, ${cpu} CPUs, ` +
  `load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log("");
console.log("| call | reference stdio | pathgate stdio | pathgate HTTP | reference / pathgate stdio | reference / pathgate HTTP |");
console.log("|---|---:|---:|---:|---:|---:|");
const names = ["reference", "pathgate stdio", "pathgate http"];
const medians = Object.fromEntries(names.map((n) => [n, {}]));
for (const oname of Object.keys(ops)) {
  for (const n of names) medians[n][oname] = median(samples[`${n}/${oname}`]);
  const [r, p, h] = names.map((n) => medians[n][oname]);
  console.log(`| ${oname} | ${r.toFixed(0)} | ${p.toFixed(0)} | ${h.toFixed(0)} | ${(r / p).toFixed(2)}x | ${(r / h).toFixed(2)}x |`);
}
// per call over a mix in which each call comes equally often: the mean of
// the medians (over the six calls of the earlier table, and over all)
const SIX = ["ping", "list_allowed_directories", "read_text_file", "list_directory", "get_file_info", "search_files"];
for (const [label, keys] of [["**per call, the six calls of the earlier table**", SIX],
  ["**per call, all eleven**", Object.keys(ops)]]) {
  const [r, p, h] = names.map((n) => keys.reduce((a, k) => a + medians[n][k], 0) / keys.length);
  console.log(`| ${label} | ${r.toFixed(0)} | ${p.toFixed(0)} | ${h.toFixed(0)} | ${(r / p).toFixed(2)}x | ${(r / h).toFixed(2)}x |`);
}
console.log("");
console.log(`The SDK's HTTP client by itself (ping to a Node server in the same process that answers at once): ` +
  `${median(samples.floor).toFixed(0)} us median.`);
for (const s of Object.values(servers)) await s.client.close();
await floorClient.close();
floor.close();
httpProc.kill("SIGTERM");

// The same calls as raw JSON-RPC lines over the same pipes, without the SDK
// client (no schema validation): what each server itself costs.
function rawServer(command, args, env) {
  const p = spawn(command, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  let buf = "";
  let waiting = null;
  p.stdout.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting;
      waiting = null;
      w?.(line);
    }
  });
  let id = 0;
  const send = (method, params) => new Promise((res) => {
    waiting = res;
    p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) + "\n");
  });
  return { p, send };
}
const raw = {
  pathgate: rawServer(python, pgArgs, pgEnv),
  reference: rawServer(process.execPath, [refMain, root], { PATH: process.env.PATH, HOME: top }),
};
const rawNames = { pathgate: servers["pathgate stdio"], reference: servers.reference };
for (const r of Object.values(raw)) {
  await r.send("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
  r.p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
}
const rawOps = {
  ping: (r) => r.send("ping", {}),
  list_allowed_directories: (r) => r.send("tools/call", { name: "list_allowed_directories", arguments: {} }),
  read_text_file: (r, s) => r.send("tools/call", { name: "read_text_file", arguments: { path: s.file } }),
  list_directory: (r, s) => r.send("tools/call", { name: "list_directory", arguments: { path: s.dir } }),
  get_file_info: (r, s) => r.send("tools/call", { name: "get_file_info", arguments: { path: s.file } }),
  search_files: (r, s) => r.send("tools/call", { name: "search_files", arguments: { path: s.top, pattern: "**/*.py" } }),
};
const rawSamples = {};
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.keys(raw);
  if (round % 2) order.reverse();
  for (const sname of order) {
    for (const [oname, op] of Object.entries(rawOps)) {
      for (let i = 0; i < 10; i++) await op(raw[sname], rawNames[sname]);
      const key = `${sname}/${oname}`;
      rawSamples[key] ??= [];
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        const line = await op(raw[sname], rawNames[sname]);
        rawSamples[key].push(performance.now() - t0);
        if (line.includes('"isError":true') || line.includes('"error"')) throw new Error(`${key}: ${line}`);
      }
    }
  }
}
console.log("");
console.log("Without the SDK client (raw JSON-RPC lines over stdio, same pipes): what the servers cost");
console.log("");
console.log("| call | reference (us) | pathgate (us) | reference / pathgate | pathgate / pathgate ping |");
console.log("|---|---:|---:|---:|---:|");
const rping = median(rawSamples["pathgate/ping"]);
for (const oname of Object.keys(rawOps)) {
  const r = median(rawSamples[`reference/${oname}`]);
  const p = median(rawSamples[`pathgate/${oname}`]);
  console.log(`| ${oname} | ${r.toFixed(0)} | ${p.toFixed(0)} | ${(r / p).toFixed(2)}x | ${(p / rping).toFixed(2)}x |`);
}
for (const r of Object.values(raw)) r.p.stdin.end();
fs.rmSync(top, { recursive: true, force: true });
