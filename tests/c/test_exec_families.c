/* test_exec_families.c - socket families by allowlist (docs/exec.md
 * "Socket families"): inside a contained command, socket() and
 * socketpair() create only AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK with
 * NETLINK_ROUTE; every other family (AF_VSOCK among them: vsock is not
 * isolated by network namespaces) and every other netlink protocol fails
 * with EAFNOSUPPORT, whatever the socket type. Each family 0..AF_MAX-1 is
 * tried by python3 run by the command (no helper is built). */
#define _GNU_SOURCE
#include "support.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    char *tmp;
    pathgate_resolver *r;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
    char repo[600];
    snprintf(repo, sizeof repo, "%s/repo", f->tmp);
    assert_int_equal(mkdir(repo, 0755), 0);
    pathgate_base_spec roots[1] = {{"repo", 4, repo, strlen(repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    assert_int_equal(pathgate_resolver_new(&f->r, &o, NULL), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pathgate_resolver_free(f->r);
    pg_tmpdir_remove(f->tmp);
    free(f);
    return 0;
}

static int can_run(void)
{
    return pathgate_exec_landlock_abi() >= 1 && access("/usr/bin/python3", X_OK) == 0;
}

/* One line per try: "<call> <family> <protocol> ok" or "... <errno>"
 * (the errno of every type tried when none created a socket, the first
 * one that differs from EAFNOSUPPORT if any). */
static const char script[] =
    "import socket, sys\n"
    "n = int(sys.argv[1])\n"
    "types = (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_SEQPACKET)\n"
    "def attempt(call, fam, proto):\n"
    "    errs = []\n"
    "    for t in types:\n"
    "        try:\n"
    "            if call == 'socket':\n"
    "                socket.socket(fam, t, proto).close()\n"
    "            else:\n"
    "                for s in socket.socketpair(fam, t, proto): s.close()\n"
    "            return 'ok'\n"
    "        except OSError as e:\n"
    "            errs.append(e.errno)\n"
    "    other = [e for e in errs if e != 97]\n"
    "    return str(other[0] if other else 97)\n"
    "for call in ('socket', 'socketpair'):\n"
    "    for fam in range(n):\n"
    "        print(call, fam, 0, attempt(call, fam, 0))\n"
    "    for proto in range(1, 32):\n"
    "        print(call, 16, proto, attempt(call, 16, proto))\n";

static int run(fixture *f, const char *cmd, char **out, unsigned int *prot)
{
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 60000;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    int rc = pathgate_exec_run(&res, f->r, cmd, strlen(cmd), &o, &err);
    if (rc)
        print_error("exec: %s\n", err.message);
    assert_int_equal(rc, 0);
    *out = strndup(res.output.ptr ? res.output.ptr : "", res.output.len);
    *prot = res.protections;
    int code = res.exit_code;
    pathgate_exec_result_dispose(&res);
    return code;
}

static int allowed(int fam, int proto)
{
    if (fam == AF_NETLINK)
        return proto == NETLINK_ROUTE;
    return proto == 0 && (fam == AF_UNIX || fam == AF_INET || fam == AF_INET6);
}

static void test_only_listed_families(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char *cmd = malloc(sizeof script + 128);
    snprintf(cmd, sizeof script + 128, "/usr/bin/python3 -c \"$(cat <<'EOF'\n%sEOF\n)\" %d", script,
             AF_MAX);
    char *out = NULL;
    unsigned int prot = 0;
    int code = run(f, cmd, &out, &prot);
    free(cmd);
    if (code != 0)
        print_error("output: %s\n", out);
    assert_int_equal(code, 0);
    assert_true(prot & PATHGATE_EXEC_PROT_SECCOMP);
    int lines = 0, bad = 0, socket_ok = 0, pair_ok = 0;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char call[16], what[16];
        int fam, proto;
        assert_int_equal(sscanf(line, "%15s %d %d %15s", call, &fam, &proto, what), 4);
        lines++;
        int pair = strcmp(call, "socketpair") == 0;
        int ok = strcmp(what, "ok") == 0;
        if (ok && pair)
            pair_ok++;
        else if (ok)
            socket_ok++;
        if (!pair) {
            /* exactly the allowed ones are created; every other try is
             * EAFNOSUPPORT (the filter's answer), never another error */
            if (ok != allowed(fam, proto) || (!ok && atoi(what) != EAFNOSUPPORT)) {
                print_error("unexpected: %s\n", line);
                bad++;
            }
        } else if (!allowed(fam, proto)) {
            /* socketpair: the same filter; the kernel itself pairs only
             * AF_UNIX among the allowed ones */
            if (ok || atoi(what) != EAFNOSUPPORT) {
                print_error("unexpected: %s\n", line);
                bad++;
            }
        } else if (ok != (fam == AF_UNIX)) {
            print_error("unexpected: %s\n", line);
            bad++;
        }
    }
    free(out);
    assert_int_equal(lines, 2 * (AF_MAX + 31));
    assert_int_equal(bad, 0);
    assert_int_equal(socket_ok, 4); /* AF_UNIX, AF_INET, AF_INET6, NETLINK_ROUTE */
    assert_int_equal(pair_ok, 1);   /* AF_UNIX */
}

/* What glibc's getifaddrs (NETLINK_ROUTE) and a loopback server need
 * still works: the interfaces are listed, a TCP server on 127.0.0.1 and
 * on ::1 is reached, a Unix socket pair carries bytes. */
static void test_everyday_sockets_work(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    const char *cmd =
        "/usr/bin/python3 -c \"$(cat <<'EOF'\n"
        "import socket\n"
        "print(sorted(n for _, n in socket.if_nameindex()))\n"
        "for fam, host in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):\n"
        "    srv = socket.socket(fam); srv.bind((host, 0)); srv.listen()\n"
        "    c = socket.create_connection(srv.getsockname()[:2]); a, _ = srv.accept()\n"
        "    c.sendall(b'hi'); print(a.recv(2)); c.close(); a.close(); srv.close()\n"
        "x, y = socket.socketpair(); x.sendall(b'up'); print(y.recv(2))\n"
        "EOF\n"
        ")\"";
    char *out = NULL;
    unsigned int prot = 0;
    int code = run(f, cmd, &out, &prot);
    if (code != 0)
        print_error("output: %s\n", out);
    assert_int_equal(code, 0);
    assert_string_equal(out, "['lo']\nb'hi'\nb'hi'\nb'up'\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_only_listed_families, setup, teardown),
        cmocka_unit_test_setup_teardown(test_everyday_sockets_work, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
