"""Ctrl-C during a long call, and Rust panics.

A long call releases the GIL, and CPython runs a signal's handler only when
the main thread next checks: each long call checks every 50 ms, stops its
work and raises `KeyboardInterrupt` (issue 30). Each test below sends
SIGINT from a timer thread into a call that would run for seconds,
requires the `KeyboardInterrupt` within 200 ms of the signal, prints the
median delay, and checks that the next call gives the right answer.

A bug (a Rust panic) must reach Python as a `RuntimeError` naming the call,
not as pyo3's `PanicException` (a `BaseException`): the hidden test hook
`neardup._neardup._force_panic(call, place)` makes the next such call
panic once, on entry or in its work with the GIL released.
"""
import os
import signal
import statistics
import sys
import threading
import time

import numpy as np
import pytest

import neardup
from neardup import _neardup

pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
              pytest.mark.timing]

#: The latency the issue asks for, signal sent to KeyboardInterrupt raised.
BOUND = 0.2
RUNS = 3

VOCAB = ["w%d" % i for i in range(20000)]


def words(n, seed):
    picks = np.random.default_rng(seed).integers(0, len(VOCAB), size=n)
    return " ".join(VOCAB[i] for i in picks.tolist())


@pytest.fixture(scope="module")
def docs():
    """150,000 documents of 300 words: 2,000 distinct ones, each repeated
    (list entries share the str, so this is 2,000 strings of memory, and
    signing them all takes seconds on one thread)."""
    base = [words(300, i) for i in range(2000)]
    return [base[i % len(base)] for i in range(150_000)]


@pytest.fixture(autouse=True)
def default_sigint():
    # What a plain `python` or Jupyter has: SIGINT raises KeyboardInterrupt.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def interrupt_after(delay, call):
    """Runs call(), SIGINT sent `delay` s in from a timer thread; returns the
    seconds from the signal to the KeyboardInterrupt."""
    sent = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, fire)
    start = time.perf_counter()
    timer.start()
    try:
        call()
    except KeyboardInterrupt:
        raised = time.perf_counter()
    else:
        timer.cancel()
        pytest.fail("the call ended after %.2f s, before the signal" % (
            time.perf_counter() - start))
    finally:
        timer.join()
    assert sent, "KeyboardInterrupt without the signal"
    return raised - sent[0]


def check_latency(name, delay, call, capsys):
    """RUNS interrupted calls: each raised within BOUND; prints the median."""
    latencies = [interrupt_after(delay, call) for _ in range(RUNS)]
    with capsys.disabled():
        print("\n%s: SIGINT %.1f s in, KeyboardInterrupt after %s ms, median %.1f ms" % (
            name, delay, ", ".join("%.1f" % (x * 1e3) for x in latencies),
            statistics.median(latencies) * 1e3))
    assert max(latencies) < BOUND, latencies


def test_sign_batch(docs, capsys):
    check_latency("sign_batch", 0.3, lambda: neardup.sign_batch(docs, threads=1), capsys)
    small = neardup.sign_batch(docs[:100], threads=1)
    assert small[7] == neardup.sign(docs[7])
    assert len(small) == 100


def test_sign_batch_on_all_workers(docs, capsys):
    check_latency("sign_batch (all cores)", 0.3, lambda: neardup.sign_batch(docs * 2), capsys)
    assert neardup.sign_batch(docs[:50])[3] == neardup.sign(docs[3])


def test_scan_while_signing(docs, capsys):
    ids = list(range(len(docs)))
    check_latency("scan (signing)", 0.3, lambda: neardup.scan(ids, docs, threads=1), capsys)
    assert neardup.scan([1, 2, 3], [docs[0], docs[1], docs[0]]).drop == [3]


def near_copies(docs):
    """15 near-duplicates of each of 2,000 documents: 210,000 pairs to
    verify and give receipts (identical copies would give only 14 a
    group), seconds of work after the signing."""
    return ["%s x%d" % (docs[i], i) for i in range(30_000)]


def after_signing(texts, call):
    """When to send the signal so that it lands after `texts` are signed
    and before `call()` ends: halfway between the two, both timed first on
    this machine."""
    start = time.perf_counter()
    neardup.sign_batch(texts)
    signing = time.perf_counter() - start
    start = time.perf_counter()
    call()
    whole = time.perf_counter() - start
    assert whole - signing > 0.5, (signing, whole)
    return (signing + whole) / 2


def test_index_add_is_all_or_nothing(docs, capsys, tmp_path):
    """Ctrl-C in an add: raised as promptly as a scan's; the add is then
    either wholly in the index or not at all (stopped before writing), and
    the next call sees which."""
    ids = list(range(len(docs)))
    with neardup.Index.create(tmp_path / "idx") as idx:
        check_latency("Index.add (signing)", 0.3, lambda: idx.add(ids, docs, threads=1), capsys)
        assert len(idx) == 0
        texts = near_copies(docs)
        new_ids = list(range(len(texts)))
        at = after_signing(texts, lambda: idx.query(texts, ids=new_ids))
        interrupt_after(at, lambda: idx.add(new_ids, texts))
        assert len(idx) in (0, len(texts))
        idx.add(["after"], [docs[0]])
        assert len(idx) in (1, len(texts) + 1)


def test_scan_after_signing(docs, capsys):
    """A signal once every document is signed: in the core's scan (left to
    finish on its own thread) or in the receipts (stopped). The signal is
    sent halfway between the end of signing and the end of the scan, both
    timed first on this machine."""
    texts = near_copies(docs)
    ids = list(range(len(texts)))
    check_latency("scan (after signing)", after_signing(texts, lambda: neardup.scan(ids, texts)),
                  lambda: neardup.scan(ids, texts), capsys)
    assert neardup.scan([1, 2, 3], [docs[0], docs[1], docs[0]]).drop == [3]


@pytest.fixture(scope="module")
def long_text():
    return words(4_000_000, 7)  # about 26 MB


def test_compare_of_long_texts(long_text, capsys):
    b = long_text + " one more"
    check_latency("compare (26 MB)", 0.3, lambda: neardup.compare(long_text, b), capsys)
    assert neardup.compare("a b c d e f", "a b c d e f").verdict == "IDENTICAL"


def test_sign_and_verify_of_a_long_text(long_text, capsys):
    check_latency("sign (26 MB)", 0.3, lambda: neardup.sign(long_text), capsys)
    small = neardup.compare("a b c d e f g", "a b c d e f h")
    check_latency("Receipt.verify (26 MB)", 0.3,
                  lambda: small.receipt.verify(long_text, long_text), capsys)
    assert small.receipt.verify("a b c d e f g", "a b c d e f h") == []


def test_a_call_from_another_thread_is_not_interrupted(docs):
    """Only the main thread runs signal handlers: Ctrl-C interrupts the
    main thread's wait, and the worker's call finishes normally."""
    out = {}
    # A fifteenth of the documents: seconds on one thread still (about 4 in
    # CI), not a minute.
    docs = docs[:10_000]

    def work():
        out["batch"] = neardup.sign_batch(docs, threads=1)

    t = threading.Thread(target=work)
    t.start()
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    interrupted = False
    # Polling, not t.join(): a join that KeyboardInterrupt breaks can leave
    # the thread looking finished (CPython gh-90882).
    while "batch" not in out and t.is_alive():
        try:
            time.sleep(0.05)
        except KeyboardInterrupt:
            interrupted = True
    t.join()
    timer.join()
    assert interrupted, "the signal came after the call had ended"
    batch = out["batch"]
    assert len(batch) == len(docs)
    assert batch[len(docs) - 1] == neardup.sign(docs[len(docs) - 1])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_fork_after_an_interrupted_call(docs):
    interrupt_after(0.3, lambda: neardup.sign_batch(docs, threads=1))
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the calls give the right answers
        try:
            ok = (neardup.sign_batch(docs[:300])[299] == neardup.sign(docs[299])
                  and neardup.scan([1, 2], [docs[0], docs[0]]).drop == [2])
            os._exit(0 if ok else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def test_the_issue_in_a_fresh_interpreter():
    """The issue's report: in a process where numpy's C API was not loaded
    yet, SIGINT 0.5 s into sign_batch gave a PanicException once the batch
    was done (the numpy import met the pending KeyboardInterrupt). The API
    is now loaded before the work, and the signal stops the work."""
    import subprocess
    code = (
        "import os, signal, threading, time, neardup\n"
        "texts = [' '.join('w%d' % i for i in range(300))] * 150000\n"
        "threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "start = time.perf_counter()\n"
        "try:\n"
        "    neardup.sign_batch(texts, threads=1)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt after %.2f s' % (time.perf_counter() - start))\n"
        "print(neardup.sign_batch(texts[:3]).signatures.shape)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert "PanicException" not in p.stderr and "panicked" not in p.stderr, p.stderr
    first, second = p.stdout.splitlines()
    assert first.startswith("KeyboardInterrupt after 0."), first
    assert second == "(3, 128)", p.stdout


# Calls with a forced panic: (call name, place, the call).
PANICS = [
    ("sign_batch", "work", lambda: neardup.sign_batch(["a b c d e f"] * 10)),
    ("sign_batch", "entry", lambda: neardup.sign_batch(["a b c d e f"])),
    ("scan", "work", lambda: neardup.scan([1, 2], ["a b c d e f", "a b c d e f"])),
    ("compare", "entry", lambda: neardup.compare("a b c d e f", "a b c d e g")),
    ("compare", "work", lambda: neardup.compare("x " * 600_000, "y " * 600_000)),
    ("sign", "work", lambda: neardup.sign("x " * 600_000)),
    ("normalize", "entry", lambda: neardup.normalize("A  B")),
    ("ScanPlan.band_records", "entry", lambda: neardup.ScanPlan().band_records(
        np.zeros(1, np.uint32), np.zeros((1, 128), np.uint32))),
    ("ids_json", "entry", lambda: neardup.ids_json([1, "a"])),
]


@pytest.mark.parametrize("call, place, run", PANICS,
                         ids=["%s-%s" % (c, p) for c, p, _ in PANICS])
def test_a_panic_is_a_runtime_error_naming_the_call(call, place, run):
    _neardup._force_panic(call, place)
    try:
        with pytest.raises(RuntimeError) as e:
            run()
    finally:
        _neardup._force_panic(None)
    assert str(e.value).startswith("neardup.%s: internal error: forced by _force_panic" % call)
    assert "please report it" in str(e.value)
    run()  # once only: the next call works


def test_the_panic_hook_refuses_an_unknown_place():
    with pytest.raises(ValueError, match="place must be"):
        _neardup._force_panic("scan", "nowhere")
