// bench_mcp.mjs - per-call latency of `pathgate mcp` and the reference
// MCP filesystem server (@modelcontextprotocol/server-filesystem), both
// driven by the same official SDK client over stdio, on the same tree, in
// alternating rounds within one run. Prints a table of medians; asserts
// nothing about time. Run it through bench/bench_mcp.sh.
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const nodeDir = process.env.PATHGATE_MCP_NODE_DIR;
const require = createRequire(path.join(nodeDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

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

async function connect(command, args, env) {
  const transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
  transport.stderr?.on("data", () => {});
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const refMain = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const servers = {
  pathgate: {
    client: await connect(python, ["-m", "pathgate", "--root", `bench=${root}`, "mcp"],
      { PATH: process.env.PATH, PYTHONPATH: process.env.PYTHONPATH || "", HOME: top }),
    file: "root:bench/dir3/file7.txt", dir: "root:bench/dir3", top: "root:bench",
  },
  reference: {
    client: await connect(process.execPath, [refMain, root], { PATH: process.env.PATH, HOME: top }),
    file: path.join(root, "dir3", "file7.txt"), dir: path.join(root, "dir3"), top: root,
  },
};

const ops = {
  ping: (s) => s.client.ping(),
  // a tools/call that touches no file: the SDK client's own cost of a call
  list_allowed_directories: (s) => s.client.callTool({ name: "list_allowed_directories", arguments: {} }),
  read_text_file: (s) => s.client.callTool({ name: "read_text_file", arguments: { path: s.file } }),
  list_directory: (s) => s.client.callTool({ name: "list_directory", arguments: { path: s.dir } }),
  get_file_info: (s) => s.client.callTool({ name: "get_file_info", arguments: { path: s.file } }),
  search_files: (s) => s.client.callTool({ name: "search_files", arguments: { path: s.top, pattern: "**/*.py" } }),
};

// sanity: both answer the same thing (modulo how they name files)
for (const [name, s] of Object.entries(servers)) {
  const r = await ops.read_text_file(s);
  if (r.isError || !r.content[0].text.startsWith("line of dir 3 file 7")) throw new Error(`${name}: ${JSON.stringify(r)}`);
  const m = await ops.search_files(s);
  if (m.content[0].text.split("\n").length !== 10) throw new Error(`${name} search: ${m.content[0].text}`);
}

const samples = {};
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.entries(servers);
  if (round % 2) order.reverse();
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
console.log(`pathgate mcp vs @modelcontextprotocol/server-filesystem: median us per call, ` +
  `${ROUNDS} alternating rounds x ${CALLS} calls, same SDK client, ${cpu} CPUs`);
console.log("");
console.log("| call | reference (us) | pathgate (us) | reference / pathgate | pathgate / pathgate ping |");
console.log("|---|---:|---:|---:|---:|");
const pping = median(samples["pathgate/ping"]);
for (const oname of Object.keys(ops)) {
  const r = median(samples[`reference/${oname}`]);
  const p = median(samples[`pathgate/${oname}`]);
  console.log(`| ${oname} | ${r.toFixed(0)} | ${p.toFixed(0)} | ${(r / p).toFixed(2)}x | ${(p / pping).toFixed(2)}x |`);
}
for (const s of Object.values(servers)) await s.client.close();

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
  pathgate: rawServer(python, ["-m", "pathgate", "--root", `bench=${root}`, "mcp"],
    { PATH: process.env.PATH, PYTHONPATH: process.env.PYTHONPATH || "", HOME: top }),
  reference: rawServer(process.execPath, [refMain, root], { PATH: process.env.PATH, HOME: top }),
};
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
      for (let i = 0; i < 10; i++) await op(raw[sname], servers[sname]);
      const key = `${sname}/${oname}`;
      rawSamples[key] ??= [];
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        const line = await op(raw[sname], servers[sname]);
        rawSamples[key].push(performance.now() - t0);
        if (line.includes('"isError":true') || line.includes('"error"')) throw new Error(`${key}: ${line}`);
      }
    }
  }
}
console.log("");
console.log("Without the SDK client (raw JSON-RPC lines, same pipes): what the servers cost");
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
