// edit_tools.test.mjs - the edit tools of `pathgate mcp` through the
// official MCP SDK client, beside the reference filesystem server
// (@modelcontextprotocol/server-filesystem, pinned in package.json):
//   * edit_file: the same edits on the same files through both servers
//     leave the same files (exact match first, then lines equal ignoring
//     whitespace at both ends, newText re-indented) and fail alike;
//   * apply_patch, str_replace_based_edit_tool and str_replace_editor:
//     Codex's and Anthropic's answers with addresses, undo per connection.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const nodeDir = process.env.PATHGATE_MCP_NODE_DIR;
assert.ok(nodeDir, "PATHGATE_MCP_NODE_DIR is not set (run tests/mcp/run.sh)");
const require = createRequire(path.join(nodeDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const python = process.env.PATHGATE_PYTHON || "/usr/bin/python3";
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pathgate-mcp-edit-")));
const mine = path.join(top, "pathgate");
const theirs = path.join(top, "reference");
const refServer = path.join(nodeDir, "node_modules", "@modelcontextprotocol", "server-filesystem",
  "dist", "index.js");

const FILES = {
  "code.py": "def f(x):\n    if x:\n        return 1\n    return 2\n\n\nclass A:\n    def g(self):\n        pass\n",
  "twice.txt": "same\nother\nsame\n",
  "crlf.txt": "one\r\ntwo\r\nthree\r\n",
  "tabs.txt": "a:\n\tb\n\t\tc\n",
  "spaces.txt": "  keep  \n  indented line\n",
};

function put(dir) {
  for (const [name, data] of Object.entries(FILES)) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  }
}

function env() {
  const e = { PATH: process.env.PATH, HOME: top, PYTHONPATH: process.env.PYTHONPATH || "",
    PYTHONDONTWRITEBYTECODE: "1" };
  if (process.env.PATHGATE_MCP_PRELOAD) {
    e.LD_PRELOAD = process.env.PATHGATE_MCP_PRELOAD;
    e.ASAN_OPTIONS = "detect_leaks=0";
  }
  return e;
}

async function connect(command, args, extraEnv = {}) {
  const transport = new StdioClientTransport({ command, args, env: { ...env(), ...extraEnv }, cwd: top,
    stderr: "pipe" });
  transport.stderr?.on("data", () => {});
  const client = new Client({ name: "pathgate-edit-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

let pg, pg2, ref;
before(async () => {
  put(mine);
  put(theirs);
  pg = await connect(python, ["-m", "pathgate", "--root", `repo=${mine}`, "mcp"]);
  pg2 = await connect(python, ["-m", "pathgate", "--root", `repo=${mine}`, "mcp"]);
  ref = await connect(process.execPath, [refServer, theirs], { PYTHONPATH: "" });
});
after(async () => {
  await pg?.close();
  await pg2?.close();
  await ref?.close();
  fs.rmSync(top, { recursive: true, force: true });
});

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!JSON.stringify(r).includes(mine), `host path in ${JSON.stringify(r)}`);
  return r;
}

// The edits a model sends, exact and not: [file, edits].
const EDITS = [
  ["code.py", [{ oldText: "    if x:\n        return 1", newText: "    if not x:\n        return 0" }]],
  ["code.py", [{ oldText: "if not x:\n    return 0", newText: "if x is None:\n    return -1\n  # gone" }]],
  ["code.py", [{ oldText: "def g(self):\npass", newText: "def g(self):\n    return self" }]],
  ["code.py", [{ oldText: "class A:", newText: "class B:" }, { oldText: "  def g(self):", newText: "def h(self):" }]],
  ["twice.txt", [{ oldText: "same", newText: "SAME" }]],
  ["twice.txt", [{ oldText: "  other  ", newText: "OTHER" }]],
  ["crlf.txt", [{ oldText: "two\nthree", newText: "2\n3" }]],
  ["tabs.txt", [{ oldText: "b\n  c", newText: "B\n    C" }]],
  ["spaces.txt", [{ oldText: "keep\nindented line", newText: "kept\n      deeper" }]],
  ["spaces.txt", [{ oldText: "nowhere", newText: "x" }]],
  ["code.py", [{ oldText: "return 2", newText: "return 3" }, { oldText: "not there", newText: "x" }]],
];

test("edit_file: the same edits leave the same files as the reference server", async () => {
  for (const [file, edits] of EDITS) {
    const a = await call(pg, "edit_file", { path: file, edits });
    const b = await call(ref, "edit_file", { path: path.join(theirs, file), edits });
    const label = `${file} ${JSON.stringify(edits)}`;
    assert.equal(Boolean(a.isError), Boolean(b.isError), `${label}: ${a.content[0].text} / ${b.content[0].text}`);
    if (a.isError) {
      // the reference's message, its path written as ours
      assert.equal(a.content[0].text, b.content[0].text.replace(theirs + "/", ""), label);
    }
    let got = fs.readFileSync(path.join(mine, file), "utf8");
    const want = fs.readFileSync(path.join(theirs, file), "utf8");
    if (file === "crlf.txt") {
      // the one difference: pathgate keeps the file's CRLF, the reference writes LF
      assert.ok(got.includes("\r\n"), got);
      got = got.replaceAll("\r\n", "\n");
    }
    assert.equal(got, want, label);
  }
});

test("apply_patch: Codex's answers with addresses, all or nothing", async () => {
  const okr = await call(pg, "apply_patch", { input:
    "*** Begin Patch\n*** Add File: new/n.txt\n+n\n*** Update File: twice.txt\n@@\n-OTHER\n+changed\n*** End Patch" });
  assert.equal(okr.content[0].text, "Success. Updated the following files:\nA root:repo/new/n.txt\nM root:repo/twice.txt\n");
  assert.deepEqual(okr.structuredContent.files.map((f) => f.change), ["A", "M"]);
  const bad = await call(pg, "apply_patch", { input:
    "*** Begin Patch\n*** Add File: other.txt\n+x\n*** Update File: twice.txt\n@@\n-missing\n+x\n*** End Patch" });
  assert.equal(bad.isError, true);
  assert.equal(bad.content[0].text, "Failed to find expected lines in root:repo/twice.txt:\nmissing");
  assert.ok(!fs.existsSync(path.join(mine, "other.txt")));
  const byFile = await call(pg, "apply_patch", { atomic: false, input:
    "*** Begin Patch\n*** Add File: other.txt\n+x\n*** Delete File: nope.txt\n*** End Patch" });
  assert.equal(byFile.content[0].text, "Failed to delete file root:repo/nope.txt");
  assert.ok(fs.existsSync(path.join(mine, "other.txt")));
  const listed = (await pg.listTools()).tools.find((t) => t.name === "apply_patch");
  assert.deepEqual(listed.inputSchema.required, ["input"]);
});

test("the text editor tools: the reference's answers, undo per connection", async () => {
  const view = await call(pg, "str_replace_based_edit_tool", { command: "view", path: "tabs.txt" });
  assert.equal(view.content[0].text.split("\n")[0], "Here's the result of running `cat -n` on root:repo/tabs.txt:");
  const edited = await call(pg, "str_replace_editor", { command: "str_replace", path: "spaces.txt",
    old_str: "deeper", new_str: "deepest" });
  assert.match(edited.content[0].text, /^The file root:repo\/spaces.txt has been edited\./);
  // the other connection has no history of that edit
  const other = await call(pg2, "str_replace_editor", { command: "undo_edit", path: "spaces.txt" });
  assert.equal(other.isError, true);
  assert.equal(other.content[0].text, "No edit history found for root:repo/spaces.txt.");
  const undone = await call(pg, "str_replace_editor", { command: "undo_edit", path: "spaces.txt" });
  assert.match(undone.content[0].text, /^Last edit to root:repo\/spaces.txt undone successfully\./);
  assert.ok(fs.readFileSync(path.join(mine, "spaces.txt"), "utf8").includes("deeper"));
  const noUndo = await call(pg, "str_replace_based_edit_tool", { command: "undo_edit", path: "spaces.txt" });
  assert.equal(noUndo.content[0].text, "Unrecognized command undo_edit. The allowed commands for the "
    + "str_replace_based_edit_tool tool are: view, create, str_replace, insert");
  const out = await call(pg, "str_replace_based_edit_tool", { command: "view", path: "../x" });
  assert.equal(out.content[0].text, "Invalid path / not found");
});
