"""Issue 30: `python -m neardup.spark` on `local-cluster[2,1,1024]` (a
master, two workers and two executor JVMs, each running Python workers
from this venv, so that the wheel reaches them as installed, and reading
files of every format from their own working directories) loses an
executor JVM (SIGKILL, as a preemption or the OOM killer does) once the
job's Python tasks have started, and still writes, through Spark's own
task and stage retries, the files `neardup scan` writes, byte for byte.
This is also the suite's run of the command on separate executor JVMs:
one job, which CI pays for once.

What makes that hold is in RELIABILITY.md: every stage is a deterministic
function of its input and no task has a side effect; the output files
appear only through the driver's final rename.

CI kills once, `delay` 0 s after the first Python worker of an executor
appears. `NEARDUP_SPARK_KILL_DELAYS="0,3,10,20,30,45"` runs one job per
delay (the runs RELIABILITY.md reports).
"""
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip(
    "pyspark", reason="pyspark is not installed: pip install './crates/neardup-py[spark]'")
pytest.importorskip("pyarrow")

from conftest import JVM_ARGS  # noqa: E402
from test_cli import run_cli_scan  # noqa: E402
from test_spark import OUTPUTS, files, mixed  # noqa: E402,F401  (the shared corpora)

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc (Linux)")

DELAYS = [float(d) for d in os.environ.get("NEARDUP_SPARK_KILL_DELAYS", "0").split(",")]


def children():
    """Every process's children, from /proc."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:  # gone meanwhile
            continue
        # The command name may hold spaces and parentheses: the fields
        # after its closing parenthesis are state, then the parent's pid.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        out.setdefault(parent, []).append(int(entry))
    return out


def descendants(pid, tree):
    found, todo = [], [pid]
    while todo:
        for c in tree.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def executors(driver):
    """The executor JVMs under `driver` (in local-cluster mode the workers
    run in the driver's JVM and start each executor as a child process),
    each with whether Python workers (pyspark.daemon) run under it."""
    tree = children()
    return {e: any("pyspark" in cmdline(c) for c in descendants(e, tree))
            for e in descendants(driver, tree)
            if "CoarseGrainedExecutorBackend" in cmdline(e)}


@pytest.mark.cluster
@pytest.mark.parametrize("delay", DELAYS, ids=["kill-%gs" % d for d in DELAYS])
def test_a_lost_executor_changes_no_output_byte(cli, files, mixed, tmp_path, delay,  # noqa: F811
                                                capsys):
    want = run_cli_scan(cli, tmp_path, [files["new"], files["more"], mixed],
                        {"threshold": "0.75"}, against=files["ref"])
    out = {x: tmp_path / ("lost-" + x) for x in OUTPUTS}
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    log = open(tmp_path / "stderr.log", "w+")
    start = time.monotonic()
    p = subprocess.Popen(
        [sys.executable, "-m", "neardup.spark", str(files["new"]), str(files["more"]),
         str(mixed), "--against", str(files["ref"]), "--master", "local-cluster[2,1,1024]",
         "--partitions", "3", "--conf", "spark.sql.files.maxPartitionBytes=20000",
         "--conf", "spark.sql.shuffle.partitions=2",
         # The clusters by rounds over DataFrames, each checkpointed, as a
         # graph too large for the driver is: a lost executor must not
         # change them either.
         "--conf", "spark.neardup.localEdges=0", *JVM_ARGS,
         "--pairs", out["pairs"], "--clusters", out["clusters"],
         "--keep-list", out["keep"], "--drop-list", out["drop"]],
        stdout=subprocess.DEVNULL, stderr=log, env=env)
    killed, busy_at = None, None
    try:
        while p.poll() is None and time.monotonic() - start < 600:
            if killed is None:
                running = executors(p.pid)
                busy = sorted(e for e, python in running.items() if python)
                if busy and busy_at is None:
                    busy_at = time.monotonic()
                if busy and len(running) == 2 and time.monotonic() - busy_at >= delay:
                    os.kill(busy[0], signal.SIGKILL)
                    killed = time.monotonic() - start
            time.sleep(0.05)
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        took = time.monotonic() - start
        log.seek(0)
        stderr = log.read()
        log.close()
    with capsys.disabled():
        print("\nexecutor loss: killed %s s in (%g s after Python tasks began), job %.1f s, exit %s"
              % ("%.1f" % killed if killed is not None else "never", delay, took, p.returncode))
    assert killed is not None, (
        "nothing killed: the job ended before two executors ran, one of them Python tasks for "
        "%g s:\n%s" % (delay, stderr[-3000:]))
    assert p.returncode == 0, stderr[-3000:]
    assert "verified pairs" in stderr
    for x in OUTPUTS:
        assert out[x].read_text(encoding="utf-8") == want[x], x
