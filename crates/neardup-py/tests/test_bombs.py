"""Issue 38: decompression bombs through the Python package and Spark.

``neardup.extract`` and ``neardup.from_file`` refuse a bomb of each
container kind with the CLI's one-line error (a ``ValueError`` naming the
cap). Spark skips each of them in a folder as ``neardup scan`` does, read
by the crate or through ``binaryFile`` (a remote URI), giving the CLI's
output: test_spark.py's folder of every kind holds them. The bombs are built
here, small on disk: a block deflated with a full flush is byte-aligned and
refers to nothing before it, so one compressed copy, repeated, inflates to
any number of blocks (bench/run-bombs measures their time and memory)."""
import struct
import zlib

import pytest

import neardup
from conftest import cli_error

MIB = 1 << 20


def repeated(head, block, count, raw=True):
    """A deflate stream of head then block count times (raw, or zlib with
    its Adler-32), with the CRC-32 and size of what it inflates to."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15 if raw else 15)
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    once = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    data = first + once + again * (count - 1) + c.flush()
    crc, adler = zlib.crc32(head), zlib.adler32(head)
    for _ in range(count):
        crc, adler = zlib.crc32(block, crc), zlib.adler32(block, adler)
    if not raw:
        data = data[:-4] + struct.pack(">I", adler)
    return data, crc, len(head) + len(block) * count


def zip_of(entries):
    """A zip of (name, bytes stored | (raw deflate, crc, size))."""
    out, central = bytearray(), bytearray()
    for name, entry in entries:
        name = name.encode()
        if isinstance(entry, tuple):
            data, crc, size = entry
            method = 8
        else:
            data, crc, size, method = entry, zlib.crc32(entry), len(entry), 0
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(data),
                           size, len(name), 0) + name + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc,
                               len(data), size, len(name), 0, 0, 0, 0, 0, offset) + name
    return bytes(out + central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries),
                                             len(entries), len(central), len(out), 0))


TYPES = (b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
         b'content-types"><Override PartName="/word/document.xml" ContentType="application/'
         b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')


def pdf_of(content):
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font"
               b" << /F1 5 0 R >> >> /Contents 4 0 R >>",
               b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(content) + content
               + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objects):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def bombs():
    """(file name, bytes, what the error says): each inflates to 1 GiB."""
    spaces = b" " * MIB
    docx = zip_of([("[Content_Types].xml", TYPES),
                   ("word/document.xml", repeated(b"<w:document xmlns:w=\"w\"><w:body><w:p><w:r>"
                                                  b"<w:t>", spaces, 1024))])
    odt = zip_of([("mimetype", b"application/vnd.oasis.opendocument.text"),
                  ("content.xml", repeated(b"<document-content><body><text><p>", spaces, 1024))])
    epub = zip_of([("mimetype", b"application/epub+zip"),
                   ("META-INF/container.xml",
                    b'<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>'),
                   ("c.opf", b'<package><manifest><item id="a" href="a.xhtml" media-type='
                             b'"application/xhtml+xml"/></manifest><spine><itemref idref="a"/>'
                             b'</spine></package>'),
                   ("a.xhtml", repeated(b"<html><body><p>x</p><!--", spaces, 1024))])
    pdf = pdf_of(repeated(b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n", spaces, 1024, raw=False)[0])
    nested = zip_of([("inner.zip", zip_of([("a.docx", docx), ("b.odt", odt)]))])
    ratio = "has expanded more than 256:1 past 16777216 bytes (a zip bomb?)"
    return [("bomb.docx", docx, "zip entry 'word/document.xml' " + ratio),
            ("bomb.odt", odt, "zip entry 'content.xml' " + ratio),
            ("bomb.epub", epub, "zip entry 'a.xhtml' " + ratio),
            ("bomb.pdf", pdf, "a PDF page's content expands to more than 67108864 bytes"),
            ("nested.zip", nested, "a zip archive, not a text document")]


BOMBS = bombs()


@pytest.mark.parametrize("name,data,needle", BOMBS, ids=[b[0] for b in BOMBS])
def test_a_bomb_is_the_clis_one_line_error(cli, tmp_path, name, data, needle):
    assert len(data) < 4 * MIB, len(data)
    path = tmp_path / name
    path.write_bytes(data)
    want = cli_error(cli, "extract", path)
    assert needle in want and "\n" not in want, want
    with pytest.raises(ValueError) as e:
        neardup.from_file(str(path))
    assert want.endswith(str(e.value)) and str(path) in str(e.value)
    with pytest.raises(ValueError) as e:
        neardup.extract(data, name=name)
    assert want.endswith(str(e.value)) and needle in str(e.value)


def test_max_expanded_is_the_clis(cli, tmp_path):
    """``max_expanded`` is ``--max-expanded``: a quarter of it caps a PDF
    page's content, the same line either way."""
    name, data, _ = BOMBS[3]
    path = tmp_path / name
    path.write_bytes(data)
    want = cli_error(cli, "extract", "--max-expanded", "4M", path)
    assert "more than 1048576 bytes, a quarter of the --max-expanded limit" in want
    with pytest.raises(ValueError) as e:
        neardup.from_file(str(path), max_expanded=4 << 20)
    assert want.endswith(str(e.value))
    with pytest.raises(ValueError) as e:
        neardup.extract(data, max_expanded=4 << 20)
    assert want.endswith(str(e.value))
