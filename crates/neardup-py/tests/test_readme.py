"""The README's Python examples run, so that they stay true."""
import importlib.util
import re

from conftest import REPO


def test_readme_python_blocks_run(request):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "the README has a Python example"
    for block in blocks:
        uses_spark = "neardup.spark" in block or "from neardup import spark" in block
        if uses_spark and importlib.util.find_spec("pyspark") is None:
            continue  # the Spark example needs the `spark` extra
        if uses_spark:
            # The suite's session first, so that the example's
            # `session("local[2]")` is that one (its getOrCreate), not a
            # JVM of its own options that every later test would then get.
            request.getfixturevalue("spark")
        exec(compile(block, "README.md", "exec"), {})
