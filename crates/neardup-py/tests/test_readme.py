"""The README's Python examples run, so that they stay true."""
import re

from conftest import REPO


def test_readme_python_blocks_run():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "the README has a Python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
