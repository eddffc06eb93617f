"""The installed package: stubs, py.typed, and one name list for all three."""
import ast
import pathlib

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
