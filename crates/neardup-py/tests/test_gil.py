"""Long calls release the GIL: another Python thread keeps running."""
import threading
import time

import pytest

import neardup

# Timed: scripts/test-python runs these on a quiet machine (see conftest.py).
pytestmark = pytest.mark.timing


def ticks_during(call):
    """Runs call() while a thread records timestamps; returns the ones taken
    well inside the call, away from its start and end."""
    stamps, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.05)
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    t.join()
    margin = 0.2 * (end - start)
    return [s for s in stamps if start + margin < s < end - margin], end - start


def test_sign_batch_releases_the_gil():
    words = " ".join("w%d" % i for i in range(2000))
    texts = [words + " %d" % i for i in range(3000)]  # about 40 MB
    inside, took = ticks_during(lambda: neardup.sign_batch(texts, threads=1))
    assert took > 0.05, took
    # With the GIL held for the call no Python code could run inside it.
    assert len(inside) > 100, (len(inside), took)


def test_compare_releases_the_gil():
    a = " ".join("w%d" % i for i in range(400_000))
    inside, took = ticks_during(lambda: neardup.compare(a, a + " x"))
    assert len(inside) > 100, (len(inside), took)
