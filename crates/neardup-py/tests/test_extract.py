"""neardup.extract and neardup.from_file against `neardup extract`: the
same text for every committed document fixture (LibreOffice, pandoc and
Chromium made them), the same one-line errors, and the same detection."""
import os

import pytest

import neardup
from conftest import cli_error

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "neardup-extract", "tests",
                        "fixtures")


def fixture_documents():
    out = []
    for root, _, names in os.walk(FIXTURES):
        for name in sorted(names):
            if name.endswith((".docx", ".odt", ".epub", ".html", ".pdf", ".rtf")):
                out.append(os.path.join(root, name))
    return sorted(out)


def test_there_are_fixtures():
    assert len(fixture_documents()) >= 5


@pytest.mark.parametrize("path", fixture_documents(), ids=os.path.basename)
def test_the_text_is_the_clis(cli, path):
    """The same text, or (encrypted, scanned and truncated PDFs) the same
    one-line error."""
    with open(path, "rb") as f:
        data = f.read()
    p = cli("extract", path, ok=False)
    if p.returncode == 2:
        want = cli_error(cli, "extract", path)
        for call in (lambda: neardup.from_file(path),
                     lambda: neardup.extract(data, name=os.path.basename(path))):
            with pytest.raises(ValueError) as e:
                call()
            assert want.endswith(str(e.value))
        return
    assert p.returncode == 0, p.stderr
    assert neardup.from_file(path).encode("utf-8") == p.stdout
    assert neardup.extract(data, name=os.path.basename(path)).encode("utf-8") == p.stdout


def test_plain_text_and_the_html_rule():
    assert neardup.extract(b"caf\xc3\xa9") == "café"
    html = b"<!DOCTYPE html><p>Hello <b>world</b></p>"
    # HTML needs an HTML name or format="html"; without, it is text.
    assert neardup.extract(html) == html.decode()
    assert neardup.extract(html, name="page.txt") == html.decode()
    assert neardup.extract(html, name="page.html").split() == ["Hello", "world"]
    assert neardup.extract(html, "html").split() == ["Hello", "world"]
    assert neardup.EXTRACTOR_VERSION == "neardup-extract-v1"


def test_errors_are_the_clis(cli, tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9")
    want = cli_error(cli, "extract", bad)
    with pytest.raises(ValueError) as e:
        neardup.from_file(str(bad))
    assert str(e.value) == want
    assert neardup.extract(b"caf\xe9", lossy=True) == "caf\ufffd"
    with pytest.raises(ValueError, match="format: expected one of text, docx, odt, epub, html, "
                                         "pdf, rtf, got 'doc'"):
        neardup.extract(b"x", "doc")
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(8)
    with pytest.raises(ValueError, match=r"an OLE compound file \(a legacy \.doc"):
        neardup.extract(ole)
    with pytest.raises(ValueError, match="no such file"):
        neardup.from_file(str(tmp_path / "missing.docx"))
