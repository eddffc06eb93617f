"""The installed package: stubs, py.typed, and one name list for all three."""
import ast
import pathlib
import re

import neardup


def test_typed_and_stubbed():
    here = pathlib.Path(neardup.__file__).parent
    assert (here / "py.typed").exists()
    stub = ast.parse((here / "__init__.pyi").read_text())
    stubbed = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {t.id for n in stub.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
    for name in neardup.__all__:
        assert name in stubbed, name
        assert hasattr(neardup, name), name


def test_version_and_constants():
    assert neardup.__version__ != "0+unknown"
    assert neardup.ALGORITHM == "kar-shingle-minhash-v1"
    assert neardup.UNICODE_VERSION.count(".") == 2


def test_docs_name_the_unicode_version_the_core_pins():
    """The stub, SPEC and the core's README name the version the module
    reports (the core's constant), so a new Unicode version cannot leave
    one of them behind."""
    from conftest import REPO
    here = pathlib.Path(neardup.__file__).parent
    full = neardup.UNICODE_VERSION
    short = full.rsplit(".", 1)[0] if full.endswith(".0") else full
    assert '``"%s"``' % full in (here / "__init__.pyi").read_text()
    for doc in ("SPEC.md", "crates/neardup/README.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        named = set(re.findall(r"Unicode (\d+\.\d+(?:\.\d+)?)", text))
        assert named and named <= {full, short}, (doc, named)
