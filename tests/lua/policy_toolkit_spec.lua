-- policy_toolkit_spec.lua - the policy in the handles, the toolkit,
-- subroot, apply_patch and text_editor through the Lua door
-- (docs/policy.md, "What the operations do"): a `**/.env` file cannot be
-- opened, listed by scandir or walk, copied, linked, symlinked to or
-- readlink'd; `.git/hooks/pre-commit` cannot be opened for writing,
-- chmod'ed, removed or be a copy's, link's or symlink's destination; a
-- subroot keeps the rules and reports to its parent's audit function; every
-- path of a patch and every editor command is judged first.
local pathgate = require "pathgate"
local helpers = require "helpers"

describe("policy in the toolkit", function()
  local top, repo
  before_each(function()
    top = helpers.tmpdir()
    repo = top .. "/repo"
    for rel, text in pairs {
      [".env"] = "SECRET=1\n", ["app/.env"] = "APP_SECRET=1\n", ["app/main.txt"] = "hello\n",
      ["notes.txt"] = "notes\n", ["secrets/key.txt"] = "KEY\n",
      [".git/hooks/pre-commit"] = "#!/bin/sh\n", [".git/config"] = "[core]\n",
      [".git/index"] = "idx\n",
    } do
      helpers.mkdir((repo .. "/" .. rel):match("^(.*)/[^/]*$"))
      helpers.write(repo .. "/" .. rel, text)
    end
    if helpers.file_links then -- (not under wine: helpers.WINE_FILE_LINK)
      helpers.symlinks { { ".env", repo .. "/innocent" }, { ".git/config", repo .. "/cfglink" } }
    end
  end)
  after_each(function() helpers.rmtree(top) end)

  local function make(events)
    return assert(pathgate.Resolver {
      roots = { repo = repo }, deny_read = { "**/.env", "secrets/" }, presets = { "vcs" },
      audit = function(e) events[#events + 1] = e end,
    })
  end

  local function denied(events, op, address, reason)
    for _, e in ipairs(events) do
      if e.operation == op and e.address == address and e.outcome == "denied"
          and (not reason or e.reason == reason) then
        return e
      end
    end
  end

  local function slurp(rel)
    local f = io.open(repo .. "/" .. rel)
    if not f then return nil end
    local s = f:read("a"); f:close(); return s
  end

  local function unchanged()
    assert.are.equal("SECRET=1\n", slurp(".env"))
    assert.are.equal("#!/bin/sh\n", slurp(".git/hooks/pre-commit"))
    assert.are.equal("[core]\n", slurp(".git/config"))
    assert.is_nil(slurp("stolen.txt"))
  end

  -- nil, message, code of a call: its code (the message checked)
  local function code_of(v, msg, code)
    assert.is_nil(v)
    if code == "invalid_path" then assert.are.equal("Invalid path / not found", msg) end
    if code == "policy_denied" then assert.truthy(msg:find("Protected by policy", 1, true)) end
    return code
  end

  it("hides deny_read paths from the handles and the toolkit", function()
    local events = {}
    local r = make(events)
    local hidden_paths = { "root:repo/.env", "root:repo/secrets/key.txt" }
    if helpers.file_links then table.insert(hidden_paths, "root:repo/innocent") end
    for _, p in ipairs(hidden_paths) do
      for _, mode in ipairs { "r", "w", "a", "r+" } do
        assert.are.equal("invalid_path", code_of(r:open(p, mode)))
      end
      assert.is_false(r:exists(p)); assert.is_false(r:isfile(p))
      assert.are.equal("invalid_path", code_of(r:lstat(p)))
      assert.are.equal("invalid_path", code_of(r:readlink(p)))
      assert.are.equal("invalid_path", code_of(r:chmod(p, tonumber("600", 8))))
      assert.are.equal("invalid_path", code_of(r:utime(p)))
      assert.are.equal("invalid_path", code_of(r:remove_tree(p)))
      assert.are.equal("invalid_path", code_of(r:copy(p, "root:repo/stolen.txt")))
      assert.are.equal("invalid_path", code_of(r:link(p, "root:repo/stolen.txt")))
    end
    assert.are.equal("invalid_path", code_of(r:symlink(".env", "root:repo/peek")))
    assert.are.equal("invalid_path", code_of(r:symlink("secrets/key.txt", "root:repo/peek")))
    assert.are.equal("invalid_path", code_of(r:copy("root:repo/notes.txt", "root:repo/app/.env",
                                                    { replace = true })))
    assert.are.equal("policy_denied", code_of(r:remove_tree("root:repo/app")))
    assert.has_error(function() r:scandir("root:repo/secrets") end)
    local names = {}
    for e in r:scandir("root:repo") do names[#names + 1] = e.name end
    assert.are.same(helpers.file_links and { ".git", "app", "cfglink", "notes.txt" }
                    or { ".git", "app", "notes.txt" }, names)
    for dir, dirs, files in r:walk("root:repo") do
      for _, n in ipairs(dirs) do assert.are_not.equal("secrets", n) end
      for _, n in ipairs(files) do
        assert.are_not.equal(".env", n); assert.are_not.equal("innocent", n)
      end
      assert.is_nil(dir:find("secrets", 1, true))
    end
    unchanged()
    for _, op in ipairs { "open", "atomic_open", "exists", "lstat", "readlink", "chmod", "utime",
                          "remove_tree", "copy", "link", "symlink" } do
      assert.truthy(denied(events, op, "root:repo/.env", "deny_read"), op)
    end
    local e = denied(events, "symlink", "root:repo/secrets/key.txt", "deny_read")
    assert.are.equal("target", e.role); assert.are.equal("lua", e.door)
    local hidden = {}
    for _, x in ipairs(events) do
      if x.outcome == "hidden" then hidden[x.operation] = x.count end
    end
    -- (.env, secrets and, where there is one, the link innocent)
    assert.are.equal(helpers.file_links and 3 or 2, hidden.scandir); assert.truthy(hidden.walk)
  end)

  it("judges a file link by the file it names", function()
    helpers.skip_on_windows(helpers.WINE_FILE_LINK)
    local r = make({})
    assert.are.equal("invalid_path", code_of(r:open("root:repo/innocent")))
    assert.are.equal("policy_denied", code_of(r:open("root:repo/cfglink", "w")))
    assert.is_truthy(r:open("root:repo/cfglink"))
  end)

  it("protects deny_write paths from the handles and the toolkit", function()
    local events = {}
    local r = make(events)
    local protected = { "root:repo/.git/hooks/pre-commit", "root:repo/.git/config" }
    if helpers.file_links then table.insert(protected, "root:repo/cfglink") end
    for _, p in ipairs(protected) do
      local f = assert(r:open(p)); assert.truthy(f:read("a")); f:close()
      for _, mode in ipairs { "w", "a", "r+", "w+" } do
        assert.are.equal("policy_denied", code_of(r:open(p, mode)))
      end
      assert.are.equal("policy_denied", code_of(r:chmod(p, tonumber("777", 8))))
      assert.are.equal("policy_denied", code_of(r:utime(p)))
      assert.are.equal("policy_denied",
                       code_of(r:copy("root:repo/notes.txt", p, { replace = true })))
    end
    assert.are.equal("policy_denied", code_of(r:open("root:repo/.git/hooks/post-merge", "x")))
    assert.are.equal("policy_denied",
                     code_of(r:link("root:repo/notes.txt", "root:repo/.git/hooks/post-merge")))
    assert.are.equal("policy_denied",
                     code_of(r:link("root:repo/.git/hooks/pre-commit", "root:repo/hard")))
    assert.are.equal("policy_denied",
                     code_of(r:symlink("../../notes.txt", "root:repo/.git/hooks/post-merge")))
    assert.are.equal("policy_denied", code_of(r:remove_tree("root:repo/.git")))
    assert.is_nil(slurp(".git/hooks/post-merge")); assert.is_nil(slurp("hard"))
    unchanged()
    do
      local out <close> = assert(r:open("root:repo/.git/index", "w"))
      out:write("idx2")
    end
    assert.are.equal("idx2", slurp(".git/index"))
    for _, op in ipairs { "atomic_open", "chmod", "utime", "copy", "link" } do
      assert.truthy(denied(events, op, "root:repo/.git/hooks/pre-commit", "deny_write"), op)
    end
    if helpers.file_links then
      assert.truthy(denied(events, "atomic_open", "root:repo/cfglink", "deny_write"))
    end
    assert.truthy(denied(events, "remove_tree", "root:repo/.git", "deny_write"))
  end)

  it("keeps the rules in a subroot, which reports to its parent's function", function()
    local events = {}
    local r = make(events)
    local git = assert(r:subroot("root:repo/.git", "git"))
    local app = assert(pathgate.Session(r):subroot("root:repo/app"))
    r = nil
    helpers.full_gc()
    assert.are.equal("policy_denied", code_of(git:write("root:git/hooks/pre-commit", "evil")))
    assert.is_truthy(git:write("root:git/index", "idx3"))
    assert.are.equal("invalid_path", code_of(app:read("root:app/.env")))
    local entries, info = app:ls("root:app")
    assert.are.equal(1, #entries); assert.are.equal(1, info.skipped_denied)
    unchanged()
    local e = denied(events, "write", "root:git/hooks/pre-commit", "deny_write")
    assert.truthy(e); assert.are.equal("lua", e.door)
    assert.truthy(denied(events, "read", "root:app/.env", "deny_read"))
    assert.are.equal("write", git:policy_check("root:git/hooks/x").denied)
    git:close(); app:close()
    helpers.full_gc()
  end)

  it("judges every path of a patch and every editor command first", function()
    local events = {}
    local r = make(events)
    local first = "*** Begin Patch\n*** Add File: root:repo/new.txt\n+new\n"
    local res = r:apply_patch(first .. "*** Update File: root:repo/.env\n@@\n-SECRET=1\n+S\n"
                              .. "*** End Patch\n")
    assert.are.equal("invalid_path", res.kind)
    assert.are.equal("Invalid path / not found", res.error)
    res = r:apply_patch(first .. "*** Update File: root:repo/.git/hooks/pre-commit\n@@\n"
                        .. "-#!/bin/sh\n+evil\n*** End Patch\n", { atomic = false })
    assert.are.equal("policy_denied", res.kind)
    assert.truthy(res.error:find("Protected by policy", 1, true))
    assert.is_nil(slurp("new.txt"))
    res = r:text_editor("view", "root:repo/.env")
    assert.are.equal("invalid_path", res.kind)
    res = r:text_editor("str_replace", "root:repo/.git/hooks/pre-commit",
                        { old_str = "#!/bin/sh", new_str = "evil" })
    assert.are.equal("policy_denied", res.kind)
    res = r:text_editor("create", "root:repo/app/.env", { file_text = "x" })
    assert.are.equal("invalid_path", res.kind)
    res = r:text_editor("view", "root:repo")
    assert.is_nil(res.output:find("secrets", 1, true))
    unchanged()
    assert.truthy(denied(events, "apply_patch", "root:repo/.env", "deny_read"))
    assert.truthy(denied(events, "apply_patch", "root:repo/.git/hooks/pre-commit", "deny_write"))
    assert.truthy(denied(events, "editor_view", "root:repo/.env", "deny_read"))
    assert.truthy(denied(events, "editor_str_replace", "root:repo/.git/hooks/pre-commit",
                         "deny_write"))
  end)
end)
