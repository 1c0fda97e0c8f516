-- exec_spec.lua - resolver:execute / session:execute: contained commands
-- (docs/spec.md section 7b) seen from Lua: the result table, the session's
-- cwd, containment, exit codes, timeout, output cap, the failure
-- convention (nil, message, code) and misuse.
local pathgate = require "pathgate"
local helpers = require "helpers"

local function landlock()
  local r = assert(pathgate.Resolver { roots = { { "x", "/tmp" } } })
  local res = r:execute("true", { allow_unconfined = true })
  r:close()
  return res and res.landlock_abi > 0
end

local function raises(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error matching " .. pattern)
  assert.matches(pattern, err, 1, true)
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

describe("execute #needs_commands", function()
  local t, r, confined

  setup(function()
    t = helpers.make_tree()
    confined = landlock()
  end)
  teardown(function() helpers.rmtree(t.top) end)
  before_each(function()
    r = assert(pathgate.Resolver { roots = { { "repo", t.repo }, { "game", t.game } },
                                   mods = { ["Some Mod"] = t.mod } })
  end)

  it("runs in the first root and returns the result table", function()
    local res = assert(r:execute("pwd -P; echo out; echo err >&2; exit 3"))
    assert.are.equal("/pathgate/root/repo\nout\nerr\n", res.output) -- the view's path
    assert.is_true(res.protections.namespaces)
    assert.is_true(res.protections.seccomp)
    assert.are.equal(3, res.exit_code)
    assert.is_false(res.truncated)
    assert.is_false(res.timed_out)
    assert.is_number(res.landlock_abi)
  end)

  it("runs in the session's cwd and creates files there", function()
    local s = assert(pathgate.Session(r))
    assert(s:push("common/traits"))
    local res = assert(s:execute("pwd -P; cat 00_traits.txt; echo new > made.txt"))
    assert.are.equal("/pathgate/root/repo/common/traits\ntrait = 1\n", res.output)
    assert.is_true(exists(t.repo .. "/common/traits/made.txt"))
    local mod = assert(s:execute("pwd -P", { cwd = "mod:Some Mod" }))
    assert.are.equal("/pathgate/mod/Some Mod\n", mod.output)
  end)

  it("cannot reach outside the bases", function()
    if not confined then pending("no Landlock on this kernel") return end
    local res = assert(r:execute("cat ../outside/secret.txt; cat escape/secret.txt; " ..
                                 "echo x > escape/new.txt; cd .. && echo y > out.txt; " ..
                                 "echo z > /tmp/pathgate-lua-escape-$$; echo end"))
    assert.is_nil(res.output:find("secret\n", 1, true))
    assert.matches("end\n$", res.output)
    assert.is_false(exists(t.outside .. "/new.txt"))
    assert.is_false(exists(t.top .. "/out.txt"))
    local f = assert(io.open(t.outside .. "/secret.txt"))
    assert.are.equal("secret\n", f:read("a"))
    f:close()
  end)

  it("shows the command a view: no outside metadata change, no setuid, no host path", function()
    if not confined then pending("no Landlock on this kernel") return end
    local secret = t.outside .. "/secret.txt"
    local before = helpers.sh("stat -c '%a %Y %s' " .. helpers.sh_quote(secret))
    local q = helpers.sh_quote(secret)
    -- (the tools' own messages would repeat the path they were given)
    local res = assert(r:execute("{ chmod 0666 " .. q .. "; touch -d 2000-01-01 " .. q ..
                                 "; truncate -s 0 " .. q .. "; } 2>/dev/null; stat " .. q ..
                                 " 2>/dev/null; " ..
                                 "echo stat=$?; cp /bin/true t; chmod 4755 t; chmod g+s t; " ..
                                 "pwd; echo \"$PWD|$HOME|$TMPDIR\"; ls -a /tmp; " ..
                                 "python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); " ..
                                 "print(\"keyctl\", l.syscall(250, 0, -3, 0), ctypes.get_errno())'"))
    assert.are.equal(before, helpers.sh("stat -c '%a %Y %s' " .. helpers.sh_quote(secret)))
    assert.matches("stat=1\n", res.output, 1, true)
    local user = helpers.sh("id -un"):gsub("\n$", "")
    assert.matches("/pathgate/root/repo\n/pathgate/root/repo|/home/" .. user .. "|/tmp\n.\n..\n",
                   res.output, 1, true)
    assert.matches("keyctl -1 1\n", res.output, 1, true)
    assert.is_nil(res.output:find(t.top, 1, true))
    assert.are.equal("755", (helpers.sh("stat -c '%a' " .. helpers.sh_quote(t.repo .. "/t"))
                             :gsub("\n$", "")))
    os.remove(t.repo .. "/t")
    assert.is_true(res.protections.namespaces)
  end)

  it("limits processes, memory and file size", function()
    if not confined then pending("no Landlock on this kernel") return end
    local res = assert(r:execute("python3 -c 'bytearray(1 << 30)' 2>/dev/null; echo py=$?; " ..
                                 "yes > big; echo big=$?; rm -f big",
                                 { max_memory = 256 * 1024 * 1024, max_file_size = 65536,
                                   max_processes = 64, tmp_size = 65536 }))
    -- a memory cgroup kills it (SIGKILL); RLIMIT_AS makes it fail (MemoryError)
    assert.matches(res.protections.memory_limit and "py=137\n" or "py=1\n", res.output, 1, true)
    assert.matches("big=153\n", res.output, 1, true)
    assert.is_true(res.protections.rlimits)
  end)

  it("refuses a weak Landlock ABI without namespaces unless allowed", function()
    local v, msg, code = r:execute("touch ran", { _test_abi_cap = 2, _test_no_namespaces = true })
    assert.is_nil(v)
    assert.are.equal("unsupported", code)
    assert.is_nil(msg:find("/", 1, true))
    assert.is_false(exists(t.repo .. "/ran"))
    local res = assert(r:execute("touch ran", { _test_abi_cap = 2, _test_no_namespaces = true,
                                                allow_unconfined = true }))
    assert.are.equal(0, res.exit_code)
    assert.is_nil(res.protections.namespaces)
    assert.is_nil(res.protections.landlock_truncate)
    assert.is_true(exists(t.repo .. "/ran"))
    os.remove(t.repo .. "/ran")
  end)

  it("runs a root caller's command as an unprivileged uid, or refuses", function()
    local id = io.popen("id -u")
    local root = id:read("l") == "0"
    id:close()
    local res = assert(r:execute("id -u"))
    assert.are.equal(root, res.protections.unprivileged_uid == true)
    if not root then return end
    assert.are.equal("0\n", res.output) -- 0 inside, the host's 65534 outside
    local v, msg, code = r:execute("touch ran", { _test_no_idmap = true })
    assert.is_nil(v)
    assert.are.equal("unsupported", code)
    assert.matches("unprivileged uid", msg, 1, true)
    assert.is_false(exists(t.repo .. "/ran"))
    res = assert(r:execute("touch ran", { _test_no_idmap = true, allow_unconfined = true }))
    assert.is_true(res.protections.namespaces)
    assert.is_nil(res.protections.unprivileged_uid)
    os.remove(t.repo .. "/ran")
  end)

  it("maps a range of ids for a root caller: chown works, id_range chooses it", function()
    local id = io.popen("id -u")
    local root = id:read("l") == "0"
    id:close()
    local res = assert(r:execute("touch owned && chown 1000:1000 owned && stat -c %u owned",
      { id_range = { 3000000000, 65536 } }))
    if not root then
      assert.is_nil(res.protections.id_range) -- only its own id: chown fails
      assert.are_not.equal(0, res.exit_code)
      os.remove(t.repo .. "/owned")
      return
    end
    assert.is_true(res.protections.id_range)
    assert.are.equal("1000\n", res.output)
    local st = io.popen("stat -c %u '" .. t.repo .. "/owned'")
    assert.are.equal("3000001000", st:read("l")) -- the range's, never user 1000's
    st:close()
    os.remove(t.repo .. "/owned")
    res = assert(r:execute("touch owned && chown 1000 owned", { id_range = "none" }))
    assert.are_not.equal(0, res.exit_code)
    assert.is_nil(res.protections.id_range)
    os.remove(t.repo .. "/owned")
    local v, msg, code = r:execute("true", { id_range = { 0, 65536 } })
    assert.is_nil(v)
    assert.are.equal("invalid_argument", code)
    assert.matches("id_range", msg, 1, true)
    assert.has_error(function() r:execute("true", { id_range = "all" }) end)
    assert.has_error(function() r:execute("true", { id_range = { 5, 1 } }) end)
  end)

  it("passes exit codes and signals through", function()
    assert.are.equal(0, r:execute("true").exit_code)
    assert.are.equal(42, r:execute("exit 42").exit_code)
    assert.are.equal(128 + 9, r:execute("kill -KILL $$").exit_code)
    assert.are.equal(7, r:execute("exec 1>&- 2>&-; sleep 0.2; exit 7").exit_code)
  end)

  it("times out with 124 and caps the output", function()
    local res = assert(r:execute("echo before; sleep 30", { timeout = 0.3 }))
    assert.are.equal(124, res.exit_code)
    assert.is_true(res.timed_out)
    assert.are.equal("before\n", res.output)
    local big = assert(r:execute("head -c 50000 /dev/zero | tr '\\0' b", { output_cap = 100 }))
    assert.are.equal(string.rep("b", 100), big.output)
    assert.is_true(big.truncated)
    assert.are.equal(0, big.exit_code)
  end)

  it("builds the environment from scratch plus env", function()
    local res = assert(r:execute('echo "$FOO|$LANG|${HOSTVAR-unset}"', { env = { FOO = "a b" } }))
    assert.are.equal("a b|C.UTF-8|unset\n", res.output)
  end)

  it("returns nil, message, code on expected failures", function()
    local v, msg, code = r:execute("true", { _test_no_landlock = true })
    assert.is_nil(v)
    assert.are.equal("unsupported", code)
    assert.is_nil(msg:find(t.top, 1, true))
    local res = assert(r:execute("echo unconfined", { _test_no_landlock = true, allow_unconfined = true }))
    assert.are.equal(0, res.landlock_abi)
    assert.is_nil(res.protections.landlock)
    assert.are.equal("unconfined\n", res.output)
    v, msg, code = r:execute("true", { cwd = "root:repo/escape" })
    assert.is_nil(v)
    assert.are.equal("invalid_path", code)
    assert.are.equal("Invalid path / not found", msg)
    v, msg, code = r:execute("true", { cwd = "root:repo/common/traits/00_traits.txt" })
    assert.are.equal("not_a_directory", code)
    v, msg, code = r:execute("echo a\0b")
    assert.is_nil(v)
    assert.are.equal("nul_byte", code)
  end)

  it("shows a toolchain of the host read-only, its bin first in PATH", function()
    if not confined then pending("no Landlock") return end
    helpers.mkdir(t.outside .. "/tool/bin")
    helpers.write(t.outside .. "/tool/bin/hello-tool", "#!/bin/sh\necho hello from tool\n")
    os.execute("chmod 755 '" .. t.outside .. "/tool/bin/hello-tool'")
    local res = assert(r:execute("hello-tool; cd /pathgate/tool/tool && pwd -P; "
      .. "(touch x) 2>/dev/null || echo read-only", { toolchains = { t.outside .. "/tool" } }))
    assert.are.equal("hello from tool\n/pathgate/tool/tool\nread-only\n", res.output)
    assert.is_false(exists(t.outside .. "/tool/x"))
    local v, msg, code = r:execute("true", { toolchains = { "/" } })
    assert.is_nil(v)
    assert.are.equal("invalid_argument", code)
    assert.matches("toolchains[0]", msg, 1, true) -- (counted from 0 in every door)
  end)

  it("raises on misuse", function()
    raises("string expected", r.execute, r, 42)
    raises("unknown option 'bogus'", r.execute, r, "true", { bogus = 1 })
    raises("option 'timeout'", r.execute, r, "true", { timeout = -1 })
    raises("option 'output_cap'", r.execute, r, "true", { output_cap = 0 })
    raises("option 'allow_network' must be a boolean", r.execute, r, "true", { allow_network = 1 })
    -- every kind of ../../bindings/exec_opts.h, the table Python reads too
    raises("option 'cwd' must be a string", r.execute, r, "true", { cwd = 1 })
    raises("option 'home' must be a string", r.execute, r, "true", { home = {} })
    raises("option 'max_memory' must be an integer > 0", r.execute, r, "true", { max_memory = 0 })
    raises("option 'max_processes' must be an integer > 0", r.execute, r, "true",
      { max_processes = 2 ^ 33 })
    raises("option '_test_abi_cap' must be an integer 0..15", r.execute, r, "true",
      { _test_abi_cap = 16 })
    raises("option '_test_no_idmap' must be a boolean", r.execute, r, "true", { _test_no_idmap = "y" })
    raises("option 'allow_domains' must be a sequence of strings", r.execute, r, "true",
      { allow_domains = "x" })
    raises("option 'timeout' must be a number of seconds > 0", r.execute, r, "true",
      { timeout = 5e6 })
    raises("option 'env'", r.execute, r, "true", { env = { ["A=B"] = "x" } })
    raises("option 'env'", r.execute, r, "true", { env = { A = 1 } })
    raises("option 'toolchains'", r.execute, r, "true", { toolchains = "/usr" })
    raises("option 'toolchains_at_host_path' must be a boolean", r.execute, r, "true",
           { toolchains_at_host_path = 1 })
    local s = assert(pathgate.Session(r))
    r:close()
    raises("closed", r.execute, r, "true")
    raises("closed", s.execute, s, "true")
  end)
end)

describe("pathgate.exec_protections", function()
  -- the one table both front ends read (bindings/result_fields.h), in the
  -- order of the bits; Python's sandbox.PROTECTIONS has the same names
  it("lists every protection name a result may hold", function()
    assert.are.same({ "landlock", "landlock_truncate", "landlock_scope", "seccomp", "namespaces",
      "pid_limit", "rlimits", "unprivileged_uid", "memory_limit", "network_namespace",
      "network_allowlist", "id_range" }, pathgate.exec_protections)
  end)
end)
