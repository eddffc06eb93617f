"""Shared fixtures: the conformance vectors and the `neardup` command line.

The CLI is the reference the package must agree with. `NEARDUP_BIN` names
it (scripts/test-python sets it); otherwise the repo's target/ is searched.
"""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
VECTORS = REPO / "vectors"


def _text(case, inline, file_key):
    if inline in case:
        return case[inline]
    # Strict UTF-8, nothing changed (vectors/README.md).
    return (VECTORS / case[file_key]).read_bytes().decode("utf-8")


def compare_cases(name="compare.json"):
    cases = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    out = []
    for c in cases:
        a, b = _text(c, "a", "a_file"), _text(c, "b", "b_file")
        docs = [dict(d, normalized=_text(d, "normalized", "normalized_file"))
                for d in c["expected"]["documents"]]
        out.append(dict(c, a=a, b=b, expected=dict(c["expected"], documents=docs)))
    return out


def normalize_cases():
    return json.loads((VECTORS / "normalize.json").read_text(encoding="utf-8"))


COMPARE = compare_cases()
# SPEC §11's script words: compare.json's format, each case with "words".
SCRIPT = compare_cases("script-compare.json")
NORMALIZE = normalize_cases()


def _find_cli():
    env = os.environ.get("NEARDUP_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "neardup"
        if p.exists():
            return str(p)
    return None


#: The options of every JVM the suite starts (the driver's, and the
#: executors' on local-cluster): its jobs are many and small, so the JVM's
#: time goes to compiling Spark's code rather than running it, and C2's
#: optimizing compiles and a parallel collector's threads take CPU the
#: suite's other processes need. The client compiler alone and the serial
#: collector make a scan of a few hundred documents about 40% faster on
#: CI's two cores. A large job wants the defaults (what users get).
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

#: The same options as `python -m neardup.spark` arguments.
JVM_ARGS = ["--conf", "spark.driver.extraJavaOptions=" + JVM_OPTIONS,
            "--conf", "spark.executor.extraJavaOptions=" + JVM_OPTIONS]


@pytest.fixture(scope="session")
def spark():
    """The suite's one Spark session (`local[2]`), shared by every test
    that needs one: a JVM started once, not once per module."""
    pytest.importorskip("pyspark")
    from neardup import spark as ns
    s = ns.session("local[2]", app="neardup-tests", **{
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.driver.memory": "1g",
        "spark.driver.extraJavaOptions": JVM_OPTIONS,
        # For jobs of a few hundred rows, planning is the JVM's work: about
        # 60 jobs a scan. Without adaptive re-planning at every shuffle and
        # whole-stage code generation (compiled by Janino per query), a
        # scan costs the JVM about 20% less CPU. The command's runs on
        # local-cluster keep Spark's defaults, both on.
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.codegen.wholeStage": "false",
    })
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture(scope="session")
def cli():
    """Runs the neardup binary; returns stdout (bytes). Fails on a non-zero exit."""
    binary = _find_cli()
    if binary is None:
        pytest.skip("no neardup binary: set NEARDUP_BIN or cargo build -p neardup-cli")

    def run(*args, ok=True):
        p = subprocess.run([binary, *map(str, args)], capture_output=True)
        if ok and p.returncode != 0:
            raise AssertionError("neardup %s: exit %d: %s" % (
                " ".join(map(str, args)), p.returncode, p.stderr.decode()))
        return p if not ok else p.stdout

    return run


def cli_error(run, *args):
    """The one-line error the CLI prints for args (exit 2), without its prefix."""
    p = run(*args, ok=False)
    assert p.returncode == 2, p
    line = p.stderr.decode().splitlines()[0]
    return line.split("error: ", 1)[1]


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "cluster: a run of `python -m neardup.spark` on local-cluster[2,1,1024], which "
        "mostly waits on its JVMs: scripts/test-python runs these beside the rest "
        "(-m cluster, -m 'not cluster')")
    config.addinivalue_line(
        "markers",
        "timing: asserts how soon something happens (Ctrl-C returns, the GIL is free), "
        "so it needs the cores to itself: scripts/test-python runs these alone, after "
        "everything else (-m timing)")
