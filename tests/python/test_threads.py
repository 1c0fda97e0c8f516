"""One Resolver shared by 8 threads: no lost or duplicate tokens, an exact
capacity limit, and Sessions used concurrently. The GIL is released inside
resolve, so these threads really run the core at the same time."""

import threading

import pathgate

THREADS = 8
PER_THREAD = 300
CAPACITY = "Visibility registry capacity exceeded \u2014 restart server"


def _run(n, fn):
    barrier = threading.Barrier(n)
    errors, results = [], [None] * n

    def worker(i):
        try:
            barrier.wait()
            results[i] = fn(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_concurrent_resolve_and_release(resolver):
    addresses = ["root:repo/README.md", "root:game/common/x.txt", "mod:Some Mod/common/m.txt",
                 "root:repo/common/traits/00_traits.txt"]

    def work(i):
        minted, released = [], 0
        for k in range(PER_THREAD):
            res = resolver.resolve(addresses[(i + k) % len(addresses)])
            assert res.ok, res
            minted.append(res.ref)
            assert resolver.host_path(res.ref) is not None
            if k % 3 == 0:  # release some as we go, interleaved with others' mints
                assert resolver.release(res.ref) is True
                assert resolver.release(res.ref) is False
                released += 1
            assert not resolver.resolve("root:repo/missing").ok  # failures mint nothing
        return minted, released

    results = _run(THREADS, work)
    tokens = [ref.token for minted, _ in results for ref in minted]
    assert len(tokens) == THREADS * PER_THREAD
    assert len(set(tokens)) == len(tokens)  # no duplicates
    released = sum(r for _, r in results)
    assert len(resolver) == len(tokens) - released  # none lost

    def release_all(i):
        return sum(resolver.release(ref) for ref in results[i][0])

    assert sum(_run(THREADS, release_all)) == len(tokens) - released
    assert len(resolver) == 0


def test_capacity_under_contention(tree):
    cap = 100
    r = pathgate.Resolver(roots={"repo": tree["repo"]}, max_tokens=cap)

    def work(i):
        out = []
        for _ in range(40):
            res = r.resolve("root:repo/README.md")
            out.append(res)
        return out

    results = [res for chunk in _run(THREADS, work) for res in chunk]
    good = [res for res in results if res.ok]
    bad = [res for res in results if not res.ok]
    assert len(good) == cap and len(r) == cap
    assert len({res.ref.token for res in good}) == cap
    assert len(bad) == THREADS * 40 - cap
    assert all(res.error_message == CAPACITY and res.reason == "capacity" for res in bad)


def test_sessions_in_threads(resolver):
    def work(i):
        s = pathgate.Session(resolver)
        for _ in range(50):
            assert s.push("common") == "root:repo/common"
            assert s.resolve("traits/00_traits.txt").ok
            assert s.pop() == "root:repo"
        return s.get().depth

    assert _run(THREADS, work) == [0] * THREADS


def test_one_session_shared_by_threads(resolver):
    s = pathgate.Session(resolver)

    def work(i):
        for _ in range(50):
            # one address: depth stays 0 or 1 ("already in" adds nothing),
            # and the last operation of all is a pop
            assert s.push("root:repo/common") in ("root:repo/common",
                                                  "already in root:repo/common")
            assert s.get().depth in (0, 1)
            s.pop()
            assert s.resolve("root:repo/README.md").ok
        return True

    _run(THREADS, work)
    assert s.get().depth == 0
