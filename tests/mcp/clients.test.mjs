// clients.test.mjs - the client configurations of docs/mcp.md ("Connect a
// client") against a real `pathgate mcp --http` server with a token:
// - Claude Desktop's: mcp-remote (pinned) as the stdio bridge, with
//   `--header Authorization:${PATHGATE_AUTH}`, driven through the official
//   SDK's stdio client: it lists the tools and reads a file; with a wrong
//   token it does not connect;
// - Claude Code's: `claude mcp add --transport http ... --header` (pinned)
//   writes the entry, `claude mcp list` connects with it (its health check),
//   and the SDK's HTTP client connects with the headers it wrote;
// - Codex's: the TOML block of docs/mcp.md, as `codex mcp get` (pinned
//   @openai/codex; no model is involved) reads it: a Streamable HTTP server
//   at that url with its bearer token from the variable named.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const nodeDir = process.env.PATHGATE_MCP_NODE_DIR;
const clientsDir = process.env.PATHGATE_MCP_CLIENTS_DIR;
assert.ok(nodeDir && clientsDir, "run through tests/mcp/run.sh clients.test.mjs");
const require = createRequire(path.join(nodeDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const python = process.env.PATHGATE_PYTHON || "/usr/bin/python3";
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pathgate-mcp-clients-")));
const repo = path.join(top, "repo");
const home = path.join(top, "home");
const TOKEN = "client-token-" + process.pid;
const bin = (name) => path.join(clientsDir, "node_modules", ".bin", name);

before(() => {
  fs.mkdirSync(repo, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(repo, "a.txt"), "alpha\n");
});
after(() => fs.rmSync(top, { recursive: true, force: true }));

function env(extra = {}) {
  const e = { PATH: process.env.PATH, HOME: home, PYTHONPATH: process.env.PYTHONPATH || "",
    PYTHONDONTWRITEBYTECODE: "1", ...extra };
  if (process.env.PATHGATE_MCP_PRELOAD) {
    e.LD_PRELOAD = process.env.PATHGATE_MCP_PRELOAD;
    e.ASAN_OPTIONS = "detect_leaks=0";
  }
  return e;
}

// The clients' environment: not ours, so never under the sanitizer build's
// preload (Claude Code's own binary dies of it, SIGSEGV at start).
function clientEnv(extra = {}) {
  const e = env(extra);
  delete e.LD_PRELOAD;
  delete e.ASAN_OPTIONS;
  return e;
}

function startHttp() {
  return new Promise((resolve, reject) => {
    const proc = spawn(python, ["-m", "pathgate", "--root", `repo=${repo}`, "mcp", "--http", "127.0.0.1:0"],
      { env: env({ PATHGATE_MCP_TOKEN: TOKEN }), cwd: top, stdio: ["ignore", "ignore", "pipe"] });
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

async function stop(srv) {
  srv.proc.kill("SIGTERM");
  if (srv.proc.exitCode === null) await new Promise((r) => srv.proc.on("exit", r));
}

async function viaMcpRemote(url, auth) {
  // Claude Desktop's entry: "command": "npx", "args": ["-y", "mcp-remote@...", URL,
  // "--header", "Authorization:${PATHGATE_AUTH}"], "env": {"PATHGATE_AUTH": "Bearer ..."}
  const transport = new StdioClientTransport({ command: process.execPath,
    args: [bin("mcp-remote"), url, "--header", "Authorization:${PATHGATE_AUTH}"],
    env: { ...clientEnv(), PATHGATE_AUTH: auth }, cwd: home, stderr: "pipe" });
  let log = "";
  transport.stderr?.on("data", (d) => { log += d; });
  const client = new Client({ name: "pathgate-clients-test", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    e.message += `\nmcp-remote's log:\n${log}`;
    throw e;
  }
  return { client, log: () => log };
}

test("Claude Desktop's entry: mcp-remote with a bearer header lists the tools and reads", async () => {
  const srv = await startHttp();
  try {
    const { client } = await viaMcpRemote(srv.url, `Bearer ${TOKEN}`);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "read_text_file"));
    const r = await client.callTool({ name: "read_text_file", arguments: { path: "a.txt" } });
    assert.equal(r.content[0].text, "alpha\n");
    await client.close();
  } finally {
    await stop(srv);
  }
  assert.match(srv.stderr(), /tool=read_text_file address=root:repo\/a\.txt outcome=ok/);
});

test("mcp-remote with a wrong token does not get in", async () => {
  const srv = await startHttp();
  try {
    await assert.rejects(async () => {
      const { client } = await Promise.race([viaMcpRemote(srv.url, "Bearer wrong"),
        new Promise((_, rej) => setTimeout(() => rej(new Error("timed out")), 30000))]);
      await client.listTools();
    });
  } finally {
    await stop(srv);
  }
  assert.doesNotMatch(srv.stderr(), /session http-\d+ opened/);
});

test("Claude Code's entry: claude mcp add --transport http --header, then it connects", async () => {
  const srv = await startHttp();
  try {
    const add = spawnSync(bin("claude"), ["mcp", "add", "--transport", "http", "pathgate", srv.url,
      "--header", `Authorization: Bearer ${TOKEN}`], { env: clientEnv(), cwd: home, encoding: "utf8", timeout: 120000 });
    assert.equal(add.status, 0, add.stderr + add.stdout);
    const config = JSON.parse(fs.readFileSync(path.join(home, ".claude.json"), "utf8"));
    const entry = config.projects[home].mcpServers.pathgate;
    assert.deepEqual(entry, { type: "http", url: srv.url, headers: { Authorization: `Bearer ${TOKEN}` } });
    // its own health check connects with the entry
    const list = spawnSync(bin("claude"), ["mcp", "list"],
      { env: clientEnv(), cwd: home, encoding: "utf8", timeout: 120000 });
    assert.match(list.stdout, /pathgate: .* - ✔ Connected/, list.stdout + list.stderr);
    // and a client given the entry's headers works
    const transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } });
    const client = new Client({ name: "pathgate-clients-test", version: "1.0.0" });
    await client.connect(transport);
    const r = await client.callTool({ name: "read_text_file", arguments: { path: "a.txt" } });
    assert.equal(r.content[0].text, "alpha\n");
    await client.close();
  } finally {
    await stop(srv);
  }
});

test("Codex's entry: the TOML of docs/mcp.md is a Streamable HTTP server with a bearer token variable", () => {
  const doc = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "mcp.md"), "utf8");
  const m = doc.match(/```toml\n(\[mcp_servers\.pathgate\][\s\S]*?)```/);
  assert.ok(m, "no Codex block in docs/mcp.md");
  const codexHome = path.join(home, "codex");
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, "config.toml"), m[1]);
  const get = spawnSync(bin("codex"), ["mcp", "get", "pathgate"],
    { env: clientEnv({ CODEX_HOME: codexHome }), cwd: home, encoding: "utf8", timeout: 120000 });
  assert.equal(get.status, 0, get.stderr + get.stdout);
  assert.match(get.stdout, /transport: streamable_http/);
  assert.match(get.stdout, /url: http:\/\/127\.0\.0\.1:8808\/mcp/);
  assert.match(get.stdout, /bearer_token_env_var: PATHGATE_TOKEN/);
});
