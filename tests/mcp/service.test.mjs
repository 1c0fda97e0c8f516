// service.test.mjs - `pathgate mcp` as a long-running service, driven through
// the official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned):
// Streamable HTTP at /mcp over loopback (StreamableHTTPClientTransport),
// one pathgate Session per MCP session, the bearer token (401), Origin and
// Host checks (403), the refusal to listen beyond loopback without a token,
// a Unix socket (raw HTTP: the SDK's fetch cannot reach one), client roots
// that narrow and never widen (stdio and HTTP), the caps with their notices,
// the call log, and the shutdown on SIGTERM and on the end of input
// (bounded, commands killed, nothing left in temp).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const nodeDir = process.env.PATHGATE_MCP_NODE_DIR;
assert.ok(nodeDir, "PATHGATE_MCP_NODE_DIR is not set (run tests/mcp/run.sh)");
const require = createRequire(path.join(nodeDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ListRootsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const python = process.env.PATHGATE_PYTHON || "/usr/bin/python3";
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pathgate-mcp-svc-")));
const repo = path.join(top, "repo");
const outside = path.join(top, "outside");
const tmp = path.join(top, "tmp"); // the server's TMPDIR: must stay empty
const TOKEN = "s3cret-token-" + process.pid;
const tokenFile = path.join(top, "token");
const INVALID = "Invalid path / not found";

function put(p, data) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
}

before(() => {
  put(path.join(repo, "a.txt"), "alpha\n");
  put(path.join(repo, "dir", "x.py"), "print('needle')\n");
  put(path.join(repo, "dir", "sub", "deep.txt"), "deep\n");
  for (let i = 0; i < 30; i++) put(path.join(repo, "many", `f${String(i).padStart(2, "0")}.txt`), `${i}\n`);
  // 8 MiB without a newline, 2 MiB of media: both over a 1 MiB cap
  put(path.join(repo, "oneline.bin"), Buffer.alloc(8 << 20, 0x61));
  put(path.join(repo, "big.png"), Buffer.alloc(2 << 20, 7));
  fs.symlinkSync("../a.txt", path.join(repo, "dir", "to_a"));
  put(path.join(outside, "secret.txt"), "SECRET\n");
  fs.mkdirSync(tmp);
  fs.writeFileSync(tokenFile, TOKEN + "\n", { mode: 0o600 });
});
after(() => fs.rmSync(top, { recursive: true, force: true }));

function env(extra = {}) {
  const e = { PATH: process.env.PATH, HOME: outside, PYTHONPATH: process.env.PYTHONPATH || "",
    PYTHONDONTWRITEBYTECODE: "1", TMPDIR: tmp, ...extra };
  if (process.env.PATHGATE_MCP_PRELOAD) {
    e.LD_PRELOAD = process.env.PATHGATE_MCP_PRELOAD;
    e.ASAN_OPTIONS = "detect_leaks=0";
  }
  return e;
}

const base = ["-m", "pathgate", "--root", `repo=${repo}`, "mcp"];

// A server over HTTP: resolves with {proc, url, stderr()} once it listens.
function startHttp(extra = [], envExtra = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(python, [...base, "--http", "127.0.0.1:0", ...extra],
      { env: env(envExtra), cwd: top, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    proc.stderr.on("data", (d) => {
      err += d;
      const m = err.match(/listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      if (m && !proc.url) {
        proc.url = m[1];
        resolve({ proc, url: m[1], stderr: () => err });
      }
    });
    proc.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

function exited(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) resolve(proc.exitCode);
    else proc.on("exit", (code) => resolve(code));
  });
}

async function httpClient(url, { token = TOKEN, roots = null } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: "pathgate-svc-test", version: "1.0.0" },
    roots ? { capabilities: { roots: { listChanged: true } } } : undefined);
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.list }));
  await client.connect(transport);
  return { client, transport };
}

async function stdioClient(extra = [], roots = null) {
  const transport = new StdioClientTransport({ command: python, args: [...base, ...extra], env: env(),
    cwd: top, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (d) => { err += d; });
  const client = new Client({ name: "pathgate-svc-test", version: "1.0.0" },
    roots ? { capabilities: { roots: { listChanged: true } } } : undefined);
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.list }));
  await client.connect(transport);
  return { client, transport, stderr: () => err };
}

function noHost(r) {
  const s = JSON.stringify(r);
  assert.ok(!s.includes(top), `host path in answer: ${s.slice(0, 300)}`);
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  noHost(r);
  return r;
}

async function text(client, name, args) {
  const r = await call(client, name, args);
  assert.ok(!r.isError, `${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  return r.content[0].text;
}

async function fails(client, name, args, message) {
  const r = await call(client, name, args);
  assert.equal(r.isError, true, `${name} should fail: ${JSON.stringify(r).slice(0, 300)}`);
  if (message !== undefined) assert.equal(r.content[0].text, message);
  return r.content[0].text;
}

// A raw HTTP request (any headers, TCP or Unix socket).
function raw({ url, socketPath, method = "POST", headers = {}, body = "" }) {
  return new Promise((resolve, reject) => {
    const u = url ? new URL(url) : null;
    const req = http.request({ method, path: "/mcp", host: u?.hostname, port: u?.port, socketPath,
      headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers } },
    (res) => {
      let data = "";
      res.on("data", (d) => { data += d; });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });

// ------------------------------------------------------------------ HTTP

test("HTTP: the SDK client, one Session per MCP session, concurrent calls", async () => {
  const srv = await startHttp(["--token-file", tokenFile]);
  try {
    const a = await httpClient(srv.url);
    const b = await httpClient(srv.url);
    assert.notEqual(a.transport.sessionId, b.transport.sessionId);
    assert.match(a.transport.sessionId, /^[\x21-\x7e]{32,}$/);
    assert.equal(a.client.getServerVersion().name, "pathgate");
    const { tools } = await a.client.listTools();
    assert.ok(tools.some((t) => t.name === "read_text_file"));
    assert.equal(await text(a.client, "read_text_file", { path: "a.txt" }), "alpha\n");
    // each session has its own directory stack
    assert.equal(await text(a.client, "cwd_push", { path: "dir" }), "root:repo/dir");
    assert.equal(await text(a.client, "read_text_file", { path: "x.py" }), "print('needle')\n");
    await fails(b.client, "read_text_file", { path: "x.py" }, "File 'root:repo/x.py' not found");
    // 32 calls at once on one session
    const rs = await Promise.all(Array.from({ length: 32 }, (_, i) =>
      text(a.client, "read_text_file", { path: `root:repo/many/f${String(i % 30).padStart(2, "0")}.txt` })));
    rs.forEach((r, i) => assert.equal(r, `${i % 30}\n`));
    assert.equal(await text(a.client, "grep", { pattern: "needle", path: "root:repo" }),
      "root:repo/dir/x.py:1:print('needle')");
    // the session ends with DELETE; its id is unknown afterwards
    const sid = a.transport.sessionId;
    await a.transport.terminateSession();
    const gone = await raw({ url: srv.url, headers: { Authorization: `Bearer ${TOKEN}`, "Mcp-Session-Id": sid,
      Accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) });
    assert.equal(gone.status, 404);
    await a.client.close();
    assert.equal(await text(b.client, "cwd_get", {}), "cwd: root:repo\nhome: root:repo\ndepth: 0");
    await b.client.close();
  } finally {
    srv.proc.kill("SIGTERM");
    assert.equal(await exited(srv.proc), 0);
  }
  const log = srv.stderr();
  assert.match(log, /session http-1 closed \(tokens live: 0\)/);
  assert.match(log, /stopped \(SIGTERM\).*tokens live: 0/);
});

test("HTTP: token, Origin, Host, session and version checks", async () => {
  const srv = await startHttp(["--token-file", tokenFile, "--allow-origin", "http://localhost:5173"]);
  try {
    const accept = { Accept: "application/json, text/event-stream" };
    const auth = { ...accept, Authorization: `Bearer ${TOKEN}` };
    // no token, a wrong token, a token of another length: 401
    for (const h of [accept, { ...accept, Authorization: "Bearer nope" },
      { ...accept, Authorization: `Bearer ${TOKEN}x` }, { ...accept, Authorization: TOKEN }]) {
      const r = await raw({ url: srv.url, headers: h, body: INIT });
      assert.equal(r.status, 401);
      assert.match(r.headers["www-authenticate"], /^Bearer/);
    }
    // the SDK client without the token fails to connect
    await assert.rejects(httpClient(srv.url, { token: null }));
    // an Origin not allowed: 403 (DNS rebinding); the allowed one passes
    let r = await raw({ url: srv.url, headers: { ...auth, Origin: "http://evil.example" }, body: INIT });
    assert.equal(r.status, 403);
    r = await raw({ url: srv.url, headers: { ...auth, Origin: "http://localhost:5173" }, body: INIT });
    assert.equal(r.status, 200);
    // a Host that is not loopback, on a loopback listener: 403
    r = await raw({ url: srv.url, headers: { ...auth, Host: "evil.example:80" }, body: INIT });
    assert.equal(r.status, 403);
    // sessions: a request without one 400, an unknown one 404
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" });
    assert.equal((await raw({ url: srv.url, headers: auth, body: ping })).status, 400);
    assert.equal((await raw({ url: srv.url, headers: { ...auth, "Mcp-Session-Id": "nope" }, body: ping })).status, 404);
    r = await raw({ url: srv.url, headers: auth, body: INIT });
    const sid = r.headers["mcp-session-id"];
    assert.ok(sid);
    const s = { ...auth, "Mcp-Session-Id": sid };
    // an unsupported protocol version header: 400; a notification: 202
    assert.equal((await raw({ url: srv.url, headers: { ...s, "MCP-Protocol-Version": "1999-01-01" }, body: ping })).status, 400);
    r = await raw({ url: srv.url, headers: s, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    assert.equal(r.status, 202);
    r = await raw({ url: srv.url, headers: { ...s, "MCP-Protocol-Version": "2025-06-18" }, body: ping });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { jsonrpc: "2.0", id: 9, result: {} });
    // not JSON: 400 with a JSON-RPC error; GET: 405; another path: 404
    r = await raw({ url: srv.url, headers: s, body: "{nope" });
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).error.code, -32700);
    assert.equal((await raw({ url: srv.url, method: "GET", headers: s })).status, 405);
    r = await new Promise((res) => http.get(srv.url.replace("/mcp", "/other"),
      { headers: auth }, (x) => { x.resume(); res(x.statusCode); }));
    assert.equal(r, 404);
  } finally {
    srv.proc.kill("SIGTERM");
    await exited(srv.proc);
  }
});

test("HTTP: beyond loopback only with a token; the token from the environment", async () => {
  const p = spawnSync(python, [...base, "--http", "0.0.0.0:0"], { env: env(), encoding: "utf8", timeout: 30000 });
  assert.equal(p.status, 2);
  assert.match(p.stderr, /not loopback needs a token/);
  const srv = await startHttp([], { PATHGATE_MCP_TOKEN: TOKEN });
  try {
    assert.equal((await raw({ url: srv.url, headers: { Accept: "application/json" }, body: INIT })).status, 401);
    const c = await httpClient(srv.url);
    assert.equal(await text(c.client, "read_text_file", { path: "a.txt" }), "alpha\n");
    await c.client.close();
  } finally {
    srv.proc.kill("SIGTERM");
    await exited(srv.proc);
  }
});

test("HTTP over a Unix socket (mode 0600), removed at shutdown", async () => {
  const sock = path.join(top, "mcp.sock");
  const proc = spawn(python, [...base, "--unix", sock], { env: env(), cwd: top, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  proc.stderr.on("data", (d) => { err += d; });
  for (let i = 0; i < 200 && !err.includes("listening"); i++) await new Promise((r) => setTimeout(r, 50));
  try {
    assert.equal(fs.statSync(sock).mode & 0o777, 0o600);
    const r = await raw({ socketPath: sock, headers: { Accept: "application/json" }, body: INIT });
    assert.equal(r.status, 200);
    const sid = r.headers["mcp-session-id"];
    const call = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call",
      params: { name: "read_text_file", arguments: { path: "a.txt" } } });
    const c = await raw({ socketPath: sock, headers: { "Mcp-Session-Id": sid }, body: call });
    assert.equal(JSON.parse(c.body).result.content[0].text, "alpha\n");
  } finally {
    proc.kill("SIGTERM");
    assert.equal(await exited(proc), 0);
  }
  assert.ok(!fs.existsSync(sock));
});

// ----------------------------------------------------------------- roots

async function checkRoots(client, roots) {
  // narrowed to root:repo/dir: the cwd moved there, the rest is refused
  assert.equal(await text(client, "list_allowed_directories", {}), "Allowed directories:\nroot:repo/dir");
  assert.equal(await text(client, "read_text_file", { path: "x.py" }), "print('needle')\n");
  assert.equal(await text(client, "read_text_file", { path: "root:repo/dir/sub/deep.txt" }), "deep\n");
  await fails(client, "read_text_file", { path: "root:repo/a.txt" }, INVALID);
  await fails(client, "read_text_file", { path: "../a.txt" }, INVALID);
  // a symlink inside that leads elsewhere in the base: refused too
  await fails(client, "read_text_file", { path: "to_a" }, INVALID);
  await fails(client, "list_directory", { path: "root:repo" }, INVALID);
  await fails(client, "write_file", { path: "root:repo/new.txt", content: "x" }, INVALID);
  assert.ok(!fs.existsSync(path.join(repo, "new.txt")));
  // the client changes its roots: asked again
  roots.list = [{ uri: `file://${repo}`, name: "all" }];
  await client.sendRootsListChanged();
  assert.equal(await text(client, "read_text_file", { path: "root:repo/a.txt" }), "alpha\n");
  // roots outside every base never widen anything
  roots.list = [{ uri: `file://${outside}`, name: "out" }, { uri: "https://example.com/", name: "web" }];
  await client.sendRootsListChanged();
  assert.equal(await text(client, "list_allowed_directories", {}), "Allowed directories:\nroot:repo");
  await fails(client, "read_text_file", { path: path.join(outside, "secret.txt") }, INVALID);
}

test("client roots narrow and never widen (stdio and HTTP)", async () => {
  const rootsA = { list: [{ uri: `file://${repo}/dir`, name: "dir" }, { uri: `file://${outside}`, name: "out" }] };
  const s = await stdioClient([], rootsA);
  await checkRoots(s.client, rootsA);
  await s.client.close();
  assert.match(s.stderr(), /client root .*outside.* ignored/);
  const srv = await startHttp(["--token-file", tokenFile]);
  try {
    const rootsB = { list: [{ uri: `file://${repo}/dir`, name: "dir" }] };
    const h = await httpClient(srv.url, { roots: rootsB });
    await checkRoots(h.client, rootsB);
    await h.client.close();
  } finally {
    srv.proc.kill("SIGTERM");
    await exited(srv.proc);
  }
});

// ------------------------------------------------------------ caps, logs

test("every read and listing is bounded, with notices; execute's timeout is capped", async () => {
  const s = await stdioClient(["--max-read", "1M", "--max-items", "10", "--allow-execute", "--max-timeout", "30",
    "--log-format", "json"]);
  const c = s.client;
  const tooLarge = (p) => `File '${p}' is larger than the 1048576-byte size cap`;
  await fails(c, "read_text_file", { path: "oneline.bin", head: 1 }, tooLarge("root:repo/oneline.bin"));
  await fails(c, "read_text_file", { path: "oneline.bin", tail: 1 }, tooLarge("root:repo/oneline.bin"));
  await fails(c, "read_text_file", { path: "oneline.bin" }, tooLarge("root:repo/oneline.bin"));
  await fails(c, "read_media_file", { path: "big.png" }, tooLarge("root:repo/big.png"));
  const many = await call(c, "list_directory", { path: "many" });
  assert.equal(many.structuredContent.entries.length, 10);
  assert.equal(many.structuredContent.truncated, true);
  assert.match(many.content[0].text, /\[truncated: only the first 10 entries are listed; the server lists at most 10 per answer\]$/);
  const found = await call(c, "search_files", { path: "root:repo", pattern: "*.txt" });
  assert.equal(found.structuredContent.matches.length, 10);
  assert.match(found.content[0].text, /truncated: only the first 10 matches/);
  const tree = await call(c, "directory_tree", { path: "root:repo" });
  assert.match(tree.content[0].text, /truncated: only the first 10 entries/);
  const multi = await call(c, "read_multiple_files", { paths: Array.from({ length: 12 }, () => "a.txt") });
  assert.equal(multi.structuredContent.files.length, 10);
  assert.match(multi.content[0].text, /truncated: only the first 10 files/);
  const g = await call(c, "grep", { pattern: "a", path: "root:repo" });
  assert.match(g.content[0].text, /\[2 file\(s\) larger than the 1048576-byte read cap were not searched\]/);
  const big = await c.callTool({ name: "execute", arguments: { command: "true", timeout: 31 } }).catch((e) => e);
  assert.match(String(big.message ?? JSON.stringify(big)), /'timeout' must be <= 30/);
  const { tools } = await c.listTools();
  assert.equal(tools.find((t) => t.name === "execute").inputSchema.properties.timeout.maximum, 30);
  await c.close();
  // one JSON line per call, addresses only
  const lines = s.stderr().split("\n").filter((l) => l.includes('"event":"call"')).map((l) => JSON.parse(l));
  assert.equal(lines.length, 10);
  const first = lines[0];
  assert.equal(first.tool, "read_text_file");
  assert.equal(first.address, "root:repo/oneline.bin");
  assert.equal(first.outcome, "error");
  assert.equal(first.kind, "too_large");
  assert.equal(typeof first.duration_ms, "number");
  assert.equal(lines.at(-1).outcome, "invalid");
  assert.ok(!s.stderr().split("\n").filter((l) => l.includes('"event":"call"')).join("\n").includes(top));
});

// --------------------------------------------------------------- shutdown

function commandRunning(marker) {
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) return true;
    } catch { /* gone */ }
  }
  return false;
}

test("SIGTERM: calls in flight end, running commands are killed, nothing left in temp", async () => {
  const srv = await startHttp(["--token-file", tokenFile, "--allow-execute", "--shutdown-timeout", "5"]);
  const c = await httpClient(srv.url);
  const marker = `${61 + (process.pid % 1000) / 10000}`;
  const running = c.client.callTool({ name: "execute", arguments: { command: `sleep ${marker}`, timeout: 120 } })
    .then((r) => r, (e) => e);
  for (let i = 0; i < 200 && !commandRunning(`sleep\0${marker}`); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(commandRunning(`sleep\0${marker}`), "the command did not start");
  const t0 = Date.now();
  srv.proc.kill("SIGTERM");
  assert.equal(await exited(srv.proc), 0);
  const took = Date.now() - t0;
  assert.ok(took < 5000, `shutdown took ${took} ms`);
  assert.ok(!commandRunning(`sleep\0${marker}`), "the command survived");
  await running;
  assert.deepEqual(fs.readdirSync(tmp), []);
  assert.match(srv.stderr(), /1 command\(s\) killed, every call finished, tokens live: 0/);
});

test("end of input: answered, commands killed, bounded", async () => {
  const proc = spawn(python, [...base, "--allow-execute", "--shutdown-timeout", "5"],
    { env: env(), cwd: top, stdio: ["pipe", "pipe", "pipe"] });
  let out = "", err = "";
  proc.stdout.on("data", (d) => { out += d; });
  proc.stderr.on("data", (d) => { err += d; });
  const send = (m) => proc.stdin.write(JSON.stringify(m) + "\n");
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {},
    clientInfo: { name: "raw", version: "0" } } });
  const marker = `${62 + (process.pid % 1000) / 10000}`;
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "execute",
    arguments: { command: `sleep ${marker}`, timeout: 120 } } });
  send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_text_file", arguments: { path: "a.txt" } } });
  for (let i = 0; i < 200 && !commandRunning(`sleep\0${marker}`); i++) await new Promise((r) => setTimeout(r, 50));
  const t0 = Date.now();
  proc.stdin.end();
  assert.equal(await exited(proc), 0);
  assert.ok(Date.now() - t0 < 5000);
  assert.ok(!commandRunning(`sleep\0${marker}`));
  const answers = Object.fromEntries(out.trim().split("\n").map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  assert.equal(answers[3].result.content[0].text, "alpha\n");
  assert.match(answers[2].result.content[0].text, /\[exit code 137\]$/);
  assert.deepEqual(fs.readdirSync(tmp), []);
  assert.match(err, /stopped \(end of input\)/);
});
