"""8 threads x 10k calls on the shared runtime: no errors, identical results."""

import threading

import jsonrpc_errors as jre

THREADS = 8
CALLS = 10_000


def test_threads_identical_results():
    jre.set_environment({})
    error = {"kind": "method-not-found", "method": "tools/list", "id": 7}
    text = "failed with ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d at /home/alice/app.py"
    want_map = jre.map_error(error, "canonical", context=(1767225600000, 42))
    want_redact = jre.redact(text)
    failures = []
    counts = [0] * THREADS
    start = threading.Barrier(THREADS)

    def worker(n):
        try:
            start.wait()
            for i in range(CALLS):
                if i % 2:
                    got = jre.map_error(error, "canonical", context=(1767225600000, 42))
                    ok = got == want_map
                else:
                    ok = jre.redact(text) == want_redact
                if not ok:
                    failures.append((n, i))
                    return
                counts[n] += 1
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append((n, repr(e)))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert counts == [CALLS] * THREADS
    # never more instances than concurrent callers
    assert jre._runtime.get().idle_count() <= THREADS
