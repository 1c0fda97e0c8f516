/*
 * netproxy.h - internal: the network allowlist of a command (docs/policy.md,
 * "Network allowlist").
 *
 * A command given `allow_domains` has a network namespace of its own with
 * only a loopback interface: no route out. Two pieces connect it to the
 * names it may reach:
 *
 *  - the proxy (netproxy.c and its parts), in the host process: threads
 *    serving a Unix socket in a private directory. Each connection speaks
 *    HTTP CONNECT, plain HTTP (absolute-URI forward proxying) or SOCKS5
 *    (told apart by the first byte). The proxy checks the name against the
 *    allowlist, resolves it on the host, checks every address it resolved
 *    to, connects to one of those very addresses (never resolving twice)
 *    and relays bytes. Every decision is one event for the audit callback.
 *  - the bridge (netproxy_bridge.c), inside the command's network
 *    namespace: listens on 127.0.0.1 and [::1] at PATHGATE__NETPROXY_PORT
 *    and joins each connection, byte for byte, to a new connection to the
 *    Unix socket (bind-mounted into the view). It makes raw system calls
 *    only, so that pathgate's init (a CLONE_VM process) may run it.
 *
 * The command is told where the proxy is by PATHGATE__NETPROXY_ENV.
 */
#ifndef PATHGATE_NETPROXY_H
#define PATHGATE_NETPROXY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate/common.h"

#ifdef _WIN32
/* Windows compiles the allowlist only (no proxy): the owners' types of
 * the proxy's configuration, which it never fills */
typedef int uid_t;
typedef int gid_t;
#endif

/* ------------------------------------------------------------ allowlist */

/* Longest allow_domains entry, and most entries. */
#define PATHGATE__NETPROXY_ENTRY_MAX 300
#define PATHGATE__NETPROXY_ENTRIES_MAX 4096

/* One IP address (network byte order; IPv4 in the first 4 bytes). */
typedef struct pathgate__net_addr {
    int family; /* AF_INET or AF_INET6 */
    unsigned char bytes[16];
} pathgate__net_addr;

/* The compiled allow_domains list (immutable; shareable between threads). */
typedef struct pathgate__netproxy_allow pathgate__netproxy_allow;

/*
 * Compiles entries[0..n): each a host name (`example.com`), a wildcard
 * (`*.example.com`: any name below it, not the name itself) or an IP
 * literal (`192.0.2.7`, `2001:db8::1`, `[2001:db8::1]`), with an optional
 * `:port` (IPv6 only in brackets); without one, every port. Names fold
 * ASCII case and lose a trailing dot. PATHGATE_EINVAL naming the entry
 * (quoted when printable ASCII, else by index) when one is malformed, or
 * there are more than PATHGATE__NETPROXY_ENTRIES_MAX; PATHGATE_ENOMEM.
 */
int pathgate__netproxy_allow_compile(pathgate__netproxy_allow **out,
                                     const pathgate_allocator *alloc, const char *const *entries,
                                     size_t n, pathgate_error *err);
void pathgate__netproxy_allow_free(pathgate__netproxy_allow *allow);
/* How many entries (0 for NULL). */
size_t pathgate__netproxy_allow_count(const pathgate__netproxy_allow *allow);

/* 1 when the address is one the proxy refuses unless it is listed:
 * unspecified, loopback, private (RFC 1918), CGNAT (100.64/10), link-local,
 * IPv6 unique-local and site-local, multicast, reserved, documentation and
 * benchmarking ranges, and IPv4-mapped, -compatible, NAT64 and 6to4 forms
 * of those. */
int pathgate__net_addr_is_internal(const pathgate__net_addr *addr);

/* ---------------------------------------------------------------- audit */

/*
 * One decision of the proxy (the shape of pathgate_audit_event in the
 * policy layer: docs/policy.md "Audit"). Strings are valid during the
 * callback only.
 */
typedef struct pathgate__net_event {
    int64_t time_sec; /* CLOCK_REALTIME */
    long time_nsec;
    const char *door;      /* the configured door ("c", "python", ...) */
    const char *operation; /* "connect" (HTTP CONNECT), "http" (plain HTTP),
                              "socks5" (SOCKS5 CONNECT) or NULL when the
                              request was not understood */
    const char *address;   /* "host:port" as the command named it (IPv6 in
                              brackets, names lower-cased), or NULL */
    const char *ip;        /* the address connected to; for "private_address"
                              and "host_address" the refused one (for the
                              operator: the command is not told); else NULL */
    const char *outcome;   /* "allowed", "denied" (the allowlist), "invalid"
                              (a malformed or unsupported request) or
                              "failed" (allowed, but not reached) */
    const char *reason;    /* NULL when allowed; see PATHGATE__NET_REASONS */
    const char *rule;      /* the allow_domains entry that matched, or NULL */
} pathgate__net_event;

/* The reasons: "not_listed", "private_address" (a name resolved to an
 * internal address that is not listed), "host_address" (to an address of
 * one of this host's interfaces that is not listed) and "peer" (the
 * socket's peer is not the expected uid): denied. "bad_request",
 * "bad_host", "header_too_large", "timeout" (the request did not arrive in
 * time) and "unsupported": invalid. "resolve_failed", "connect_failed",
 * "connect_timeout" and "too_many_connections": failed. */

typedef void (*pathgate__net_audit_fn)(const pathgate__net_event *event, void *ctx);

/* Resolution hook: writes up to max addresses of host (a validated,
 * lower-case name) into out and returns how many (0 = no such name), or
 * a negative value on error. Called from the proxy's threads. */
typedef int (*pathgate__net_resolve_fn)(pathgate__net_addr *out, size_t max, const char *host,
                                        void *ctx);

/* ---------------------------------------------------------------- proxy */

#define PATHGATE__NETPROXY_MAX_CONNS_DEFAULT 128u
#define PATHGATE__NETPROXY_MAX_HEADER_DEFAULT (32u * 1024u)
#define PATHGATE__NETPROXY_HEADER_TIMEOUT_DEFAULT_MS 10000u
#define PATHGATE__NETPROXY_CONNECT_TIMEOUT_DEFAULT_MS 10000u
#define PATHGATE__NETPROXY_IDLE_TIMEOUT_DEFAULT_MS 300000u
/* The socket's name in the private directory. */
#define PATHGATE__NETPROXY_SOCKET_NAME "proxy.sock"

typedef struct pathgate__netproxy_config {
    const pathgate__netproxy_allow *allow; /* borrowed; must outlive the proxy */
    pathgate__net_audit_fn audit;          /* NULL = none; called from the proxy's threads */
    void *audit_ctx;
    const char *door;                 /* NULL = "c"; copied */
    pathgate__net_resolve_fn resolve; /* NULL = getaddrinfo (test hook) */
    void *resolve_ctx;
    const pathgate_allocator *alloc; /* NULL = libc */
    /* The private directory is made (mode 0700) under dir_parent (NULL =
     * "/tmp"); directory and socket are given to owner_uid/owner_gid when
     * those are not (uid_t)-1 (the host uid the bridge runs as). */
    const char *dir_parent;
    uid_t owner_uid;
    gid_t owner_gid;
    /* When not (uid_t)-1: connections whose peer (SO_PEERCRED) is another
     * uid are refused (an event with reason "peer"). */
    uid_t peer_uid;
    unsigned int max_conns;          /* 0 = default; more are refused */
    size_t max_header;               /* bytes of a request head; 0 = default */
    unsigned int header_timeout_ms;  /* the whole request head; 0 = default */
    unsigned int connect_timeout_ms; /* 0 = default */
    unsigned int idle_timeout_ms;    /* a relay without traffic; 0 = default */
} pathgate__netproxy_config;

#define PATHGATE__NETPROXY_CONFIG_INIT                                                             \
    {                                                                                              \
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, (uid_t)-1, (gid_t)-1, (uid_t)-1, 0, 0, 0,  \
            0, 0                                                                                   \
    }

typedef struct pathgate__netproxy pathgate__netproxy;

/* Makes the private directory and the socket, starts the accepting
 * thread. 0, PATHGATE_EINVAL, PATHGATE_ENOMEM or PATHGATE_EIO (the message
 * names no path). */
int pathgate__netproxy_start(pathgate__netproxy **out, const pathgate__netproxy_config *cfg,
                             pathgate_error *err);

/* Host paths (for the view's bind mount and the tests; never shown to an
 * agent): the private directory and the socket in it. */
const char *pathgate__netproxy_dir(const pathgate__netproxy *proxy);
const char *pathgate__netproxy_socket(const pathgate__netproxy *proxy);

/* Stops accepting, closes every connection, joins every thread, removes
 * the socket and the directory, frees. NULL is a no-op. */
void pathgate__netproxy_stop(pathgate__netproxy *proxy);

/* --------------------------------------------------------------- bridge */

/* The loopback port the bridge listens on in the command's namespace. */
#define PATHGATE__NETPROXY_PORT 3128
#define PATHGATE__NETPROXY_PORT_STR "3128"
/* Where the view shows the private directory, and the socket there. */
#define PATHGATE__NETPROXY_VIEW_DIR "/run/pathgate-net"
#define PATHGATE__NETPROXY_VIEW_SOCKET                                                             \
    PATHGATE__NETPROXY_VIEW_DIR "/" PATHGATE__NETPROXY_SOCKET_NAME

/* The command's environment: NULL-terminated "KEY=VALUE" entries. */
extern const char *const pathgate__netproxy_env[];

/* Connections the bridge joins at once (more wait in the listen queue). */
#define PATHGATE__NETPROXY_BRIDGE_MAX 64
/* The memory pathgate__netproxy_bridge_serve needs (its buffers). */
#define PATHGATE__NETPROXY_BRIDGE_MEM ((size_t)PATHGATE__NETPROXY_BRIDGE_MAX * 2u * 8192u)

typedef struct pathgate__netproxy_bridge {
    int listen4; /* 127.0.0.1:port, or -1 */
    int listen6; /* [::1]:port, or -1 (a kernel without IPv6) */
    /* The Unix socket to join connections to (a path in the view). */
    struct {
        unsigned short family;
        char path[108];
    } target;
    unsigned int target_len;
} pathgate__netproxy_bridge;

/*
 * The bridge's functions make raw system calls only: no allocation, no
 * lock, no errno, no sanitizer hook, so that a process sharing the host
 * process's memory (CLONE_VM) may call them. They return 0 or -errno.
 */

/* Sets the loopback interface up in the current network namespace. */
long pathgate__netproxy_bridge_loopback_up(void);

/* In the command's network namespace, before the command starts: the
 * listening sockets (IPv4 required, IPv6 when the kernel has it) on port,
 * and the Unix socket path to join connections to (at most 107 bytes). */
long pathgate__netproxy_bridge_listen(pathgate__netproxy_bridge *bridge, unsigned short port,
                                      const char *socket_path);

/* Serves the bridge until a fatal error (it is meant to end with its
 * process): mem is PATHGATE__NETPROXY_BRIDGE_MEM bytes for the buffers,
 * or NULL to map them. A connection to the Unix socket that fails closes
 * the accepted connection. Returns -errno. */
long pathgate__netproxy_bridge_serve(const pathgate__netproxy_bridge *bridge, void *mem);

#endif
