"""A forked child (multiprocessing's default on Linux, Spark's and Dask's
worker daemons) can use the package after its parent did: rayon's global
pool would leave the child waiting forever for threads it never had."""
import os
import signal
import time

import pytest

import neardup

TEXTS = ["a b c d e f g %d" % i for i in range(2000)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_fork_after_use():
    before = neardup.sign_batch(TEXTS)  # starts the parent's pool
    neardup.compare("a b c d e f", "a b c d e g")
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if every call returns the parent's answer
        try:
            ok = (neardup.sign_batch(TEXTS).normalized_sha256 == before.normalized_sha256
                  and neardup.compare("a b c d e f", "a b c d e g").verdict
                  and neardup.scan([1, 2], ["a b c d e f", "a b c d e f"]).drop == [2])
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
    pytest.fail("the forked child hung in a parallel call")
