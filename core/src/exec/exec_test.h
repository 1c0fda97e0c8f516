/*
 * exec_test.h - internal test knobs of contained execution, carried in the
 * public options' `flags` field (whose only public bit is
 * PATHGATE_EXEC_TEST_NO_LANDLOCK). Not part of the API: the bindings'
 * underscore-prefixed test arguments set them.
 */
#ifndef PATHGATE_EXEC_TEST_H
#define PATHGATE_EXEC_TEST_H

/* Behave as if user namespaces were unavailable. */
#define PATHGATE__EXEC_TEST_NO_NAMESPACES 0x2u
/* Behave as if the bases could not be idmapped (a root caller's command
 * cannot run as an unprivileged uid). */
#define PATHGATE__EXEC_TEST_NO_IDMAP 0x4u
/* Behave as if no control group could be had (the limits are rlimits). */
#define PATHGATE__EXEC_TEST_NO_CGROUP 0x8u
/* Behave as if the kernel's Landlock ABI were at most n (0..15). */
#define PATHGATE__EXEC_TEST_ABI_CAP(n) (((((unsigned int)(n)) & 0xfu) + 1u) << 8)
/* The cap encoded in flags, or -1 for none. */
#define PATHGATE__EXEC_TEST_ABI_CAP_OF(flags) ((int)(((flags) >> 8) & 0x1fu) - 1)

#endif
