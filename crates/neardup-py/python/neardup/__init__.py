"""neardup: near-duplicate verification with receipts anyone can check.

The same Rust core as the ``neardup`` command line (kar-shingle-minhash-v1,
and with ``words="script"`` SPEC §11's kar-script-shingle-minhash-v1): a
receipt made here is the CLI's receipt, byte for byte. See the stubs
(``__init__.pyi``) for the API.
"""

# numpy first, here: an import interrupted by Ctrl-C half-way leaves numpy
# unable to load again in this process ("cannot load module more than once
# per process"), and a first call importing it could be interrupted so
# (issue 30's test saw it on a loaded machine). Imported with neardup, a
# Ctrl-C stops the import of neardup itself, as any import's would.
import numpy as _numpy  # noqa: F401

from ._neardup import (
    ALGORITHM,
    EXTRACTOR_VERSION,
    UNICODE_VERSION,
    Comparison,
    Fingerprint,
    Index,
    MalformedReceipt,
    Mismatch,
    Receipt,
    ScanPlan,
    ScanResult,
    SignatureBatch,
    cluster_lines,
    compare,
    explain,
    extract,
    from_file,
    ids_json,
    list_lines,
    normalize,
    scan,
    sign,
    sign_batch,
)

try:
    from importlib.metadata import version as _version

    __version__ = _version("neardup")
except Exception:  # not installed as a distribution (a bare build)
    __version__ = "0+unknown"

__all__ = [
    "ALGORITHM",
    "EXTRACTOR_VERSION",
    "UNICODE_VERSION",
    "Comparison",
    "Fingerprint",
    "Index",
    "MalformedReceipt",
    "Mismatch",
    "Receipt",
    "ScanPlan",
    "ScanResult",
    "SignatureBatch",
    "cluster_lines",
    "compare",
    "explain",
    "extract",
    "from_file",
    "ids_json",
    "list_lines",
    "normalize",
    "scan",
    "sign",
    "sign_batch",
]
