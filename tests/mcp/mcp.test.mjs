// mcp.test.mjs - `pathgate mcp` driven through the official MCP TypeScript
// SDK client (@modelcontextprotocol/sdk, pinned in package.json): every
// tool, every path spelling, head/tail, multi-edit and dry run, move,
// mkdir, tree, the cwd stack per connection, execute only when enabled,
// malformed input, 64 concurrent calls, and an attack matrix against every
// tool that takes a path: nothing outside the roots is read, changed or
// named.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const nodeDir = process.env.PATHGATE_MCP_NODE_DIR;
assert.ok(nodeDir, "PATHGATE_MCP_NODE_DIR is not set (run tests/mcp/run.sh)");
const require = createRequire(path.join(nodeDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const python = process.env.PATHGATE_PYTHON || "/usr/bin/python3";
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pathgate-mcp-")));
const repo = path.join(top, "repo");
const outside = path.join(top, "outside");
const evil = path.join(top, "repo-evil"); // shares the root's prefix
const ro = path.join(top, "ro");
const mod = path.join(top, "mods", "My Mod");
const SECRET = "SECRET needle\n";
const INVALID = "Invalid path / not found";

function put(p, data) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
}

function buildTree() {
  put(path.join(outside, "secret.txt"), SECRET);
  put(path.join(evil, "secret.txt"), SECRET);
  put(path.join(ro, "f.txt"), "read only\n");
  put(path.join(mod, "common", "t.txt"), "mod text\n");
  put(path.join(repo, "a.txt"), "alpha\nbeta\ngamma\n");
  put(path.join(repo, "big.txt"), Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join(""));
  put(path.join(repo, "dir", "sub", "deep.txt"), "deep needle\n");
  put(path.join(repo, "dir", "x.py"), "print('needle')\n");
  put(path.join(repo, "img.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
  for (let i = 0; i < 64; i++) put(path.join(repo, "many", `f${i}.txt`), `content ${i}\n`);
  fs.symlinkSync("a.txt", path.join(repo, "link_in"));
  fs.symlinkSync("../outside/secret.txt", path.join(repo, "link_out"));
  fs.symlinkSync("../outside", path.join(repo, "link_out_dir"));
  fs.symlinkSync("../outside/newfile", path.join(repo, "dangling_out"));
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(repo, "abs_out"));
}

function serverArgs(extra = []) {
  return ["-m", "pathgate", "--root", `repo=${repo}`, "--root", `ro=${ro}`,
    "--mod", `My Mod=${mod}`, "mcp", "--read-only", "ro", ...extra];
}

function serverEnv() {
  const env = { PATH: process.env.PATH, HOME: outside, PYTHONPATH: process.env.PYTHONPATH || "",
    PYTHONDONTWRITEBYTECODE: "1" };
  if (process.env.PATHGATE_MCP_PRELOAD) {
    env.LD_PRELOAD = process.env.PATHGATE_MCP_PRELOAD;
    env.ASAN_OPTIONS = "detect_leaks=0";
  }
  return env;
}

async function connect(extra = []) {
  const transport = new StdioClientTransport({
    command: python, args: serverArgs(extra), env: serverEnv(), cwd: top, stderr: "pipe",
  });
  transport.stderr?.on("data", () => {});
  const client = new Client({ name: "pathgate-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

let c1, c2;
before(async () => {
  buildTree();
  c1 = await connect();
  c2 = await connect();
});
after(async () => {
  await c1?.close();
  await c2?.close();
  fs.rmSync(top, { recursive: true, force: true });
});

// Every answer is checked for host paths: no text the agent sees names one.
function noHost(result) {
  const s = JSON.stringify(result);
  assert.ok(!s.includes(top), `host path in answer: ${s}`);
  assert.ok(!s.includes("SECRET"), `outside content in answer: ${s}`);
}

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  noHost(r);
  return r;
}

async function ok(client, name, args) {
  const r = await call(client, name, args);
  assert.ok(!r.isError, `${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  return r;
}

async function text(client, name, args) {
  return (await ok(client, name, args)).content[0].text;
}

async function fails(client, name, args, message) {
  const r = await call(client, name, args);
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} should fail: ${JSON.stringify(r)}`);
  if (message !== undefined) assert.equal(r.content[0].text, message);
  return r;
}

const ALL = ["read_text_file", "read_file", "read_media_file", "read_multiple_files", "write_file",
  "edit_file", "create_directory", "list_directory", "list_directory_with_sizes", "directory_tree",
  "move_file", "search_files", "get_file_info", "list_allowed_directories", "resolve", "grep",
  "cwd_get", "cwd_push", "cwd_pop", "apply_patch", "str_replace_based_edit_tool", "str_replace_editor"];

test("initialize, ping and the tool list", async () => {
  assert.equal(c1.getServerVersion().name, "pathgate");
  assert.deepEqual(await c1.ping(), {});
  const { tools } = await c1.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...ALL].sort());
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object");
    assert.equal(typeof t.annotations.readOnlyHint, "boolean", t.name);
    if (t.inputSchema.properties?.path) assert.match(t.description, /root:<key>/, t.name);
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.write_file.annotations.destructiveHint, true);
  assert.equal(byName.read_text_file.annotations.readOnlyHint, true);
  assert.deepEqual(byName.move_file.inputSchema.required, ["source", "destination"]);
});

test("every path spelling reads the same file", async () => {
  const spellings = ["root:repo/a.txt", "a.txt", "./a.txt", "ROOT_REPO:/a.txt", "/root:repo/a.txt",
    `file://${repo}/a.txt`, `file://localhost${repo}/a.txt`, `${repo}/a.txt`,
    `file://${repo}/a%2Etxt`, "root:repo/dir/../a.txt", "link_in"];
  for (const p of spellings) {
    assert.equal(await text(c1, "read_text_file", { path: p }), "alpha\nbeta\ngamma\n", p);
  }
  assert.equal(await text(c1, "read_text_file", { path: "mod:My Mod/common/t.txt" }), "mod text\n");
  assert.equal(await text(c1, "read_text_file", { path: "mod:My Mod:/common/t.txt" }), "mod text\n");
  const info = await ok(c1, "get_file_info", { path: `file://${repo}/a.txt` });
  assert.equal(info.structuredContent.path, "root:repo/a.txt");
});

test("reading: head, tail, media, several files", async () => {
  assert.equal(await text(c1, "read_text_file", { path: "big.txt", head: 2 }), "line 1\nline 2\n");
  assert.equal(await text(c1, "read_text_file", { path: "big.txt", tail: 2 }), "line 99\nline 100\n");
  assert.equal(await text(c1, "read_file", { path: "big.txt", head: 1 }), "line 1\n");
  await fails(c1, "read_text_file", { path: "big.txt", head: 1, tail: 1 },
    "Cannot specify both head and tail parameters simultaneously");
  await fails(c1, "read_text_file", { path: "dir" }, "'root:repo/dir' is a directory");
  await fails(c1, "read_text_file", { path: "nope.txt" }, "File 'root:repo/nope.txt' not found");
  const media = await ok(c1, "read_media_file", { path: "img.png" });
  assert.equal(media.content[0].type, "image");
  assert.equal(media.content[0].mimeType, "image/png");
  assert.deepEqual(Buffer.from(media.content[0].data, "base64"), fs.readFileSync(path.join(repo, "img.png")));
  const bin = await ok(c1, "read_media_file", { path: "dir/x.py" });
  assert.equal(bin.content[0].type, "resource");
  assert.equal(bin.content[0].resource.uri, "root:repo/dir/x.py");
  const many = await ok(c1, "read_multiple_files", { paths: ["a.txt", "nope.txt", "link_out"] });
  const t = many.content[0].text;
  assert.ok(t.startsWith("root:repo/a.txt:\nalpha\nbeta\ngamma\n\n"), t);
  assert.ok(t.includes("paths[1]: Error - File 'root:repo/nope.txt' not found"), t);
  assert.ok(t.includes(`paths[2]: Error - ${INVALID}`), t);
});

test("writing: write, multi-edit with dry run, mkdir, move", async () => {
  assert.equal(await text(c1, "write_file", { path: "new/w.txt", content: "one\ntwo\nthree\n" }),
    "Successfully wrote to root:repo/new/w.txt");
  const edits = [{ oldText: "one", newText: "1" }, { oldText: "1\ntwo", newText: "12" }];
  const dry = await ok(c1, "edit_file", { path: "new/w.txt", edits, dryRun: true });
  assert.equal(dry.content[0].text,
    "```diff\n--- root:repo/new/w.txt\n+++ root:repo/new/w.txt\n@@ -1,3 +1,2 @@\n-one\n-two\n+12\n three\n```\n\n");
  assert.equal(fs.readFileSync(path.join(repo, "new/w.txt"), "utf8"), "one\ntwo\nthree\n");
  await ok(c1, "edit_file", { path: "new/w.txt", edits });
  assert.equal(fs.readFileSync(path.join(repo, "new/w.txt"), "utf8"), "12\nthree\n");
  await fails(c1, "edit_file", { path: "new/w.txt", edits: [{ oldText: "three", newText: "3" },
    { oldText: "zzz", newText: "" }] }, "Could not find exact match for edit:\nzzz");
  assert.equal(fs.readFileSync(path.join(repo, "new/w.txt"), "utf8"), "12\nthree\n");
  assert.equal(await text(c1, "create_directory", { path: "p/q/r" }), "Successfully created directory root:repo/p/q/r");
  assert.ok(fs.statSync(path.join(repo, "p/q/r")).isDirectory());
  await ok(c1, "create_directory", { path: "p/q/r" }); // exists: fine
  assert.equal(await text(c1, "move_file", { source: "new/w.txt", destination: "p/moved.txt" }),
    "Successfully moved root:repo/new/w.txt to root:repo/p/moved.txt");
  await fails(c1, "move_file", { source: "a.txt", destination: "p/moved.txt" }, "'root:repo/p/moved.txt' already exists");
  assert.equal(fs.readFileSync(path.join(repo, "p/moved.txt"), "utf8"), "12\nthree\n");
  assert.equal(await text(c1, "move_file", { source: "p/moved.txt", destination: "mod:My Mod/moved.txt" }),
    "Successfully moved root:repo/p/moved.txt to mod:My Mod/moved.txt");
  await fails(c1, "write_file", { path: "root:ro/x.txt", content: "x" }, "Permission denied: 'root:ro/x.txt'");
  assert.ok(!fs.existsSync(path.join(ro, "x.txt")));
});

test("listing: directories, sizes, tree, search, info, roots", async () => {
  const ls = await text(c1, "list_directory", { path: "root:repo/dir" });
  assert.equal(ls, "[DIR] sub\n[FILE] x.py");
  const sized = await ok(c1, "list_directory_with_sizes", { path: "root:repo", sortBy: "size" });
  assert.match(sized.content[0].text, /^\[FILE\] big\.txt +\d+ B\n/);
  assert.match(sized.content[0].text, /\nTotal: \d+ files, \d+ directories\nCombined size: /);
  const tree = JSON.parse(await text(c1, "directory_tree", { path: "dir" }));
  assert.deepEqual(tree, [
    { name: "sub", type: "directory", children: [{ name: "deep.txt", type: "file" }] },
    { name: "x.py", type: "file" },
  ]);
  const pruned = JSON.parse(await text(c1, "directory_tree", { path: "dir", excludePatterns: ["sub"] }));
  assert.deepEqual(pruned, [{ name: "x.py", type: "file" }]);
  assert.equal(await text(c1, "search_files", { path: "root:repo", pattern: "*.py" }), "root:repo/dir/x.py");
  assert.equal(await text(c1, "search_files", { path: "root:repo", pattern: "*.txt", excludePatterns: ["many", "p", "new", "big.txt"] }),
    "root:repo/a.txt\nroot:repo/dir/sub/deep.txt");
  assert.equal(await text(c1, "search_files", { path: "root:repo", pattern: "*.nothing" }), "No matches found");
  const info = await text(c1, "get_file_info", { path: "a.txt" });
  assert.match(info, /^size: 17\ncreated: .*\nmodified: .*\naccessed: .*\nisDirectory: false\nisFile: true\npermissions: \d{3}$/);
  assert.equal(await text(c1, "list_allowed_directories", {}), "Allowed directories:\nroot:repo\nroot:ro\nmod:My Mod");
});

test("pathgate's own: resolve, grep", async () => {
  const r = await ok(c1, "resolve", { path: `file://${repo}/dir/x.py` });
  assert.equal(r.structuredContent.address, "root:repo/dir/x.py");
  assert.equal(r.structuredContent.exists, true);
  // the answer holds no token: nothing outlives the call
  assert.equal(r.structuredContent.token, undefined);
  assert.ok(!JSON.stringify(r).match(/[0-9a-f]{8}-[0-9a-f]{4}-/));
  await fails(c1, "resolve", { path: "missing.txt" }, INVALID);
  const m = await ok(c1, "resolve", { path: "missing.txt", require_exists: false });
  assert.equal(m.structuredContent.exists, false);
  // printed as the command line prints them: address:line:text
  assert.equal(await text(c1, "grep", { pattern: "needle", path: "root:repo/dir" }),
    "root:repo/dir/sub/deep.txt:1:deep needle\nroot:repo/dir/x.py:1:print('needle')");
  assert.equal(await text(c1, "grep", { pattern: "needle", glob: "*.py" }), "root:repo/dir/x.py:1:print('needle')");
  assert.equal(await text(c1, "grep", { pattern: "NEEDLE'\\)$", path: "root:repo/dir", regex: true, ignore_case: true }),
    "root:repo/dir/x.py:1:print('needle')");
  assert.equal(await text(c1, "grep", { pattern: "NEEDLE", path: "root:repo/dir" }), "No matches found");
  await fails(c1, "grep", { pattern: "(", regex: true });
  // the outward link is not followed: nothing outside is found
  assert.equal(await text(c1, "grep", { pattern: "SECRET" }), "No matches found");
});

test("the cwd stack is per connection (seed 004 semantics)", async () => {
  assert.equal((await ok(c1, "cwd_get", {})).structuredContent.cwd, "root:repo");
  const pushed = await ok(c1, "cwd_push", { path: "dir" });
  assert.equal(pushed.structuredContent.cwd, "root:repo/dir");
  assert.equal(pushed.structuredContent.depth, 1);
  assert.equal(await text(c1, "cwd_push", { path: "root:repo/dir" }), "already in root:repo/dir");
  assert.equal(await text(c1, "read_text_file", { path: "x.py" }), "print('needle')\n");
  // the other connection is still at home
  const other = await ok(c2, "cwd_get", {});
  assert.equal(other.structuredContent.cwd, "root:repo");
  assert.equal(other.structuredContent.depth, 0);
  await fails(c2, "read_text_file", { path: "x.py" }, "File 'root:repo/x.py' not found");
  await fails(c1, "cwd_push", { path: "x.py" });
  assert.match(await text(c1, "cwd_pop", {}), /root:repo/);
  assert.equal((await ok(c1, "cwd_get", {})).structuredContent.depth, 0);
  // an empty pop is a message, not an error
  assert.equal(await text(c1, "cwd_pop", {}), "Stack is empty, already at initial directory: root:repo");
  // at most 100 deep
  for (let i = 0; i < 100; i++) await ok(c2, "cwd_push", { path: i % 2 ? "root:repo/dir" : "root:repo/dir/sub" });
  await fails(c2, "cwd_push", { path: "root:repo" }, "directory stack overflow (max 100)");
  for (let i = 0; i < 100; i++) await ok(c2, "cwd_pop", {});
  assert.equal((await ok(c2, "cwd_get", {})).structuredContent.depth, 0);
});

test("64 concurrent calls answer correctly", async () => {
  const calls = Array.from({ length: 64 }, (_, i) =>
    i % 4 === 3
      ? c1.callTool({ name: "get_file_info", arguments: { path: `root:repo/many/f${i}.txt` } })
      : c1.callTool({ name: "read_text_file", arguments: { path: `root:repo/many/f${i}.txt` } }));
  const answers = await Promise.all(calls);
  answers.forEach((r, i) => {
    assert.ok(!r.isError);
    if (i % 4 === 3) assert.equal(r.structuredContent.path, `root:repo/many/f${i}.txt`);
    else assert.equal(r.content[0].text, `content ${i}\n`);
  });
});

test("protocol misuse gets JSON-RPC errors and the server keeps serving", async () => {
  const code = async (p) => {
    try {
      await p;
    } catch (e) {
      return e.code;
    }
    return "no error";
  };
  assert.equal(await code(c1.callTool({ name: "no_such_tool", arguments: {} })), -32602);
  assert.equal(await code(c1.callTool({ name: "read_text_file", arguments: {} })), -32602);
  assert.equal(await code(c1.callTool({ name: "read_text_file", arguments: { path: 42 } })), -32602);
  assert.equal(await code(c1.callTool({ name: "edit_file", arguments: { path: "a.txt", edits: [{ oldText: 1 }] } })), -32602);
  assert.equal(await code(c1.request({ method: "no/such", params: {} }, require("zod").object({}).passthrough())), -32601);
  assert.deepEqual(await c1.ping(), {});
  // raw lines a client library would never send
  const p = spawn(python, serverArgs(), { env: serverEnv(), stdio: ["pipe", "pipe", "ignore"] });
  let out = "";
  p.stdout.on("data", (d) => { out += d; });
  p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n');
  p.stdin.write("this is not json\n");
  p.stdin.write('[{"jsonrpc":"2.0","id":2,"method":"ping"}]\n');
  p.stdin.write('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a\\u0000b"}}}\n');
  p.stdin.write('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"\\udc80"}}}\n');
  p.stdin.write('{"jsonrpc":"2.0","id":5,"method":"ping"}\n');
  p.stdin.end();
  await new Promise((res) => p.on("close", res));
  // answers may come in any order (tools/call runs on a pool)
  const parsed = out.trim().split("\n").map((l) => JSON.parse(l));
  const byId = new Map(parsed.filter((l) => l.id !== null).map((l) => [l.id, l]));
  const nulls = parsed.filter((l) => l.id === null).map((l) => l.error.code);
  assert.deepEqual([...byId.keys()].sort(), [1, 3, 4, 5]);
  assert.deepEqual(nulls.sort(), [-32600, -32700]);
  assert.equal(byId.get(3).result.isError, true);
  assert.equal(byId.get(3).result.content[0].text, INVALID);
  assert.equal(byId.get(4).result.isError, true);
  assert.deepEqual(byId.get(5).result, {});
});

test("execute is offered only with --allow-execute, contained", async () => {
  const { tools } = await c1.listTools();
  assert.ok(!tools.some((t) => t.name === "execute"));
  const cx = await connect(["--allow-execute"]);
  try {
    const listed = (await cx.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes("execute"));
    const r = await call(cx, "execute", { command: "cat ../outside/secret.txt; echo done" });
    if (!r.isError) {
      // ran under Landlock: the file outside cannot be read
      assert.ok(r.structuredContent.output.includes("done"));
      assert.ok(!r.structuredContent.output.includes("SECRET"));
    }
  } finally {
    await cx.close();
  }
});

// ------------------------------------------------------------ attack matrix

const fileAttacks = [
  "../outside/secret.txt", "root:repo/../outside/secret.txt", "link_out", "abs_out",
  "link_out_dir/secret.txt", "dangling_out", `${evil}/secret.txt`, "root:repo-evil/secret.txt",
  `file://${outside}/secret.txt`, `file://localhost${outside}/secret.txt`,
  `file://evilhost${repo}/a.txt`, `${outside}/secret.txt`, `file://${repo}/%2e%2e/outside/secret.txt`,
  `file://${repo}/%2E%2E/outside/secret.txt`, "root:repo/%2e%2e/outside/secret.txt",
  "~/secret.txt", "~", `${repo}/../outside/secret.txt`, `/${outside}/secret.txt`,
  "..\\outside\\secret.txt", "root:repo\\..\\..\\outside\\secret.txt", "C:\\Windows\\win.ini",
  "\\\\server\\share\\secret.txt", `file:${outside}/secret.txt`, `FILE://${outside}/secret.txt`,
  `file://${repo}/a.txt?x=1`, "root:REPO/a.txt", "mod:Nope/secret.txt", `root:repo/a.txt\u0000x`,
];
const dirAttacks = [
  "..", "root:repo/..", "link_out_dir", `${outside}`, `${evil}`, `file://${outside}`,
  `file://${repo}/..`, `file://${repo}/%2e%2e`, "~", `${repo}/..`, "root:repo-evil",
];
// Spellings that name something literal inside the root (a directory
// called "%2e%2e" or "~", relative to the cwd): an operation there is
// contained, so it may succeed; it still must not reach or name outside.
const literalInside = new Set(["root:repo/%2e%2e/outside/secret.txt", "~/secret.txt", "~"]);

test("attack matrix: nothing outside is read, changed or named", async () => {
  const before = snapshot();
  let n = 0;
  const attack = async (p, name, args) => {
    n++;
    return literalInside.has(p) ? call(c1, name, args) : fails(c1, name, args);
  };
  for (const p of fileAttacks) {
    for (const name of ["read_text_file", "read_file", "read_media_file", "get_file_info", "resolve"]) {
      await attack(p, name, { path: p });
    }
    await attack(p, "read_text_file", { path: p, head: 1 });
    await attack(p, "read_text_file", { path: p, tail: 1 });
    const many = await ok(c1, "read_multiple_files", { paths: [p] });
    if (!literalInside.has(p)) assert.match(many.content[0].text, /^paths\[0\]: Error - /);
    await attack(p, "edit_file", { path: p, edits: [{ oldText: "SECRET", newText: "PWNED" }] });
    await attack(p, "edit_file", { path: p, edits: [{ oldText: "SECRET", newText: "PWNED" }], dryRun: true });
    await attack(p, "move_file", { source: p, destination: "root:repo/stolen.txt" });
    await attack(p, "grep", { pattern: "needle", path: p });
    await attack(p, "write_file", { path: p, content: "PWNED" });
    await attack(p, "create_directory", { path: p });
    await attack(p, "move_file", { source: "root:repo/a.txt", destination: p });
    await attack(p, "cwd_push", { path: p });
    await call(c1, "cwd_pop", {});
    const patch = (body) => ({ input: `*** Begin Patch\n${body}\n*** End Patch` });
    // (the texts below are the patch's own: an answer may quote them)
    await attack(p, "apply_patch", patch(`*** Update File: ${p}\n@@\n-x\n+PWNED`));
    await attack(p, "apply_patch", patch(`*** Delete File: ${p}`));
    await attack(p, "apply_patch", patch(`*** Add File: ${p}\n+PWNED`));
    await attack(p, "apply_patch", patch(`*** Update File: nofinal.txt\n*** Move to: ${p}\n@@\n+x`));
    for (const tool of ["str_replace_based_edit_tool", "str_replace_editor"]) {
      await attack(p, tool, { command: "view", path: p });
      await attack(p, tool, { command: "str_replace", path: p, old_str: "x", new_str: "PWNED" });
      await attack(p, tool, { command: "insert", path: p, insert_line: 0, new_str: "PWNED" });
      await attack(p, tool, { command: "create", path: p, file_text: "PWNED" });
    }
  }
  for (const p of dirAttacks) {
    await attack(p, "str_replace_based_edit_tool", { command: "view", path: p });
    await attack(p, "apply_patch", { input: `*** Begin Patch\n*** Add File: ${p}/w.txt\n+PWNED\n*** End Patch` });
    for (const name of ["list_directory", "list_directory_with_sizes", "directory_tree", "cwd_push"]) {
      await attack(p, name, { path: p });
    }
    await call(c1, "cwd_pop", {});
    await attack(p, "search_files", { path: p, pattern: "*" });
    await attack(p, "grep", { pattern: "SECRET", path: p });
    await attack(p, "create_directory", { path: `${p}/made` });
    await attack(p, "write_file", { path: `${p}/w.txt`, content: "PWNED" });
    await attack(p, "move_file", { source: "root:repo/big.txt", destination: `${p}/big.txt` });
    await attack(p, "move_file", { source: p, destination: "root:repo/got" });
  }
  assert.ok(n > 300, `${n} attacks`);
  assert.deepEqual(snapshot(), before);
  // what the literal-inside spellings moved in came from inside
  for (const f of ["stolen.txt", "got"]) {
    const p = path.join(repo, f);
    if (fs.existsSync(p) && fs.statSync(p).isFile()) assert.notEqual(fs.readFileSync(p, "utf8"), SECRET);
  }
  assert.equal((await ok(c1, "cwd_get", {})).structuredContent.depth, 0);
});

// Everything outside the roots: names, kinds and contents.
function snapshot() {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (p === repo || p === ro || p.startsWith(path.join(top, "mods"))) continue;
      if (e.isDirectory()) {
        out[p] = "dir";
        walk(p);
      } else out[p] = fs.readFileSync(p, "utf8");
    }
  };
  walk(top);
  return out;
}
