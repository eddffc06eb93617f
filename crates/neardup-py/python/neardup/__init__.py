"""neardup: near-duplicate verification with receipts anyone can check.

The same Rust core as the ``neardup`` command line (kar-shingle-minhash-v1,
and with ``words="script"`` SPEC §11's kar-script-shingle-minhash-v1): a
receipt made here is the CLI's receipt, byte for byte. See the stubs
(``__init__.pyi``) for the API.
"""

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
