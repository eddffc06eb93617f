"""neardup: near-duplicate verification with receipts anyone can check.

The same Rust core as the ``neardup`` command line (kar-shingle-minhash-v1):
normalize (lowercase, collapse whitespace), take word k-shingles, MinHash
them with fixed published constants, decide a verdict, and hand out a
receipt whose canonical JSON and SHA-256 are the same on every machine.

Every call that takes ``k`` and ``n`` also takes ``words``: ``"space"``
(``None``, the default: words split on whitespace) or ``"script"`` (SPEC
§11, kar-script-shingle-minhash-v1: every Han, kana, Thai, Lao, Khmer,
Myanmar and Yi character is a word of its own, so that Chinese, Japanese
and Thai compare), as the CLI's ``--words``. Anything else is a
``ValueError`` with the CLI's message. The rule travels with what was made
with it (fingerprints, batches, receipts: the receipt's algorithm id names
it), and ``Receipt.verify`` recomputes with the receipt's own.

Long calls run with the GIL released and look for signals every 50 ms or
so: Ctrl-C stops them with ``KeyboardInterrupt`` (from the main thread;
a call from another thread runs to its end). An internal error is a
``RuntimeError`` naming the call.
"""
import os
import pathlib

from typing import Any, Iterable, Iterator, Literal, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

ALGORITHM: str
"""``"kar-shingle-minhash-v1"``."""
UNICODE_VERSION: str
"""The Unicode version of the lowercase mapping, ``"17.0.0"``."""

Verdict = Literal["IDENTICAL", "NEAR-DUPLICATE", "OVERLAPPING", "DISTINCT", "INSUFFICIENT-DATA"]

Words = Optional[Literal["space", "script"]]
"""A word rule: ``"space"`` (``None``) or ``"script"``."""

Texts = Union[Iterable[str], Any]
"""A sequence (any iterable) of ``str``, or a pyarrow ``string``,
``large_string`` or ``string_view`` ``Array``/``ChunkedArray`` (or any
object with ``__arrow_c_stream__``, read through pyarrow)."""

class MalformedReceipt(ValueError):
    """A receipt that SPEC §10 rejects."""

    field: str
    """The JSON path of the offending field: ``documents[1].shingles``, or ``(root)``."""
    problem: str
    """What is wrong with it."""

def normalize(text: str) -> str:
    """The normalized text (lowercase, whitespace collapsed and trimmed):
    exactly the text whose SHA-256 is ``normalized_sha256``."""

EXTRACTOR_VERSION: str
"""The version of the document text rules (EXTRACT.md), ``neardup-extract-v1``."""

def extract(data: bytes, format: str | None = None, *, name: str | None = None,
            lossy: bool = False, max_size: int = 4 << 30,
            max_expanded: int = 256 << 20) -> str:
    """The text neardup compares for a document's bytes (DOCX, ODT, EPUB,
    HTML, PDF, RTF or plain text), by the rules of ``EXTRACT.md``: the text
    ``neardup extract`` prints. The format is detected from the content
    unless given (``"docx"``, ``"odt"``, ``"epub"``, ``"html"``, ``"pdf"``,
    ``"rtf"``, ``"text"``); ``name`` only tells HTML from plain text.
    Raises ``ValueError`` with the CLI's one-line message for a file that
    gives no text (encrypted, no text layer, corrupt, over ``max_size``, or
    a decompression bomb: parts inflating past ``max_expanded`` in all, the
    CLI's ``--max-expanded``). Runs with the GIL released."""

def from_file(path: str | os.PathLike[str], format: str | None = None, *,
              lossy: bool = False, max_size: int = 4 << 30,
              max_expanded: int = 256 << 20) -> str:
    """The text of a file, read as ``neardup compare`` reads it: plain
    text, or a document's extracted text (see :func:`extract`)."""

def explain(
    a: str,
    b: str,
    k: Optional[int] = None,
    base: Optional[list[str]] = None,
    words: Words = None,
) -> dict[str, Any]:
    """The passages ``a`` and ``b`` share: the ``coverage`` and ``passages``
    that ``neardup compare --explain --json`` adds to its object, the same
    values. With ``base`` (base texts: an assignment's prompt, a template)
    also ``shared_outside_base``: the words shared in passages that no base
    text holds, each text's share of them (``a``, ``b``) and the counts, as
    ``--base FILE`` gives. Evidence for people: the verdict and the receipt
    stay SPEC's, over the whole texts. ``k`` is 5 when ``None``; passages
    are made of ``words``' words. GIL released."""

def compare(
    a: str,
    b: str,
    k: Optional[int] = None,
    n: Optional[int] = None,
    words: Words = None,
) -> "Comparison":
    """Compares text ``a`` with text ``b`` (the order matters for the receipt).

    ``k`` and ``n`` are 5 and 128 when ``None`` and ``words`` is
    ``"space"`` (the core's defaults, as for every call below). Raises
    ``ValueError`` for ``k`` outside 1..=64, ``n`` outside 16..=256 or
    ``words`` neither ``"space"`` nor ``"script"``, and ``TypeError`` for a
    text that is not a ``str``. Runs with the GIL released."""

def sign(
    text: str, k: Optional[int] = None, n: Optional[int] = None, words: Words = None
) -> "Fingerprint":
    """Normalizes, shingles and signs one text (GIL released)."""

def sign_batch(
    texts: Texts,
    k: Optional[int] = None,
    n: Optional[int] = None,
    threads: Optional[int] = None,
    words: Words = None,
) -> "SignatureBatch":
    """Signs every text on ``threads`` worker threads (default: all cores, or
    ``RAYON_NUM_THREADS``), with the GIL released. A pyarrow array is read
    through its buffers, never one Python ``str`` per document; a sequence
    is read a bounded chunk at a time. Row ``i`` of the result is
    ``texts[i]``; ``sign_batch(texts)[i] == sign(texts[i])``."""

def scan(
    ids: Iterable[Union[str, int]],
    texts: Texts,
    threshold: Optional[Union[float, str]] = None,
    k: Optional[int] = None,
    n: Optional[int] = None,
    against: Optional[Tuple[Iterable[Union[str, int]], Texts]] = None,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    threads: Optional[int] = None,
    recall: Literal["probable", "exact"] = "probable",
    containment: Optional[Union[float, str]] = None,
    words: Words = None,
) -> "ScanResult":
    """Every near-duplicate pair of the documents ``(ids[i], texts[i])``,
    verified on its exact slot-match count, clustered, with the keeper of a
    cluster its first document: the same result as ``neardup scan`` on the
    same documents, ids and order (the core's scan, run in memory).

    ``ids`` are unique ``str`` or ``int``. ``k`` and ``n`` default (``None``)
    to the core's 5 and 128, ``words`` to ``"space"`` (``--words``).
    ``threshold`` is read exactly as ``--threshold`` (0 < T <= 1, at most 4
    decimals; 0.75 by default). ``against`` is an
    existing corpus ``(ids, texts)``: only pairs with a new document are
    reported, and its documents are never dropped. ``bands``/``rows``
    override the LSH banding (both or neither); ``recall="exact"`` chooses
    pigeonhole bands instead, so that no pair at or over the threshold is
    missed (``--recall exact``).

    ``containment=T`` (read as ``threshold``) reports instead every pair in
    which one document holds at least ``T`` of the other's distinct
    shingles, found exactly (``--containment``): each pair gains
    ``containment`` ``{"a_in_b", "b_in_a", "shared"}``, and the smaller side
    of each pair is dropped. Not with ``threshold``, ``bands``, ``rows`` or
    ``recall``."""

class ScanResult:
    """The result of :func:`scan`, every part in input order. Picklable."""

    @property
    def pairs(self) -> list[dict[str, Any]]:
        """Dicts with the fields of ``neardup scan --pairs`` lines: ``a``, ``b``
        (ids), ``matches``, ``n``, ``receipt_sha256``, ``similarity``, ``verdict``."""
    @property
    def clusters(self) -> list[dict[str, Any]]:
        """Dicts with the fields of ``--clusters`` lines: ``cluster``, ``keep``,
        ``members`` (keeper first), ``size``."""
    @property
    def keep(self) -> list[Union[str, int]]:
        """The ids to keep (not from ``against``, not dropped), in input order."""
    @property
    def drop(self) -> list[Union[str, int]]:
        """The ids to drop: in a cluster, not its keeper, not from ``against``."""
    @property
    def receipts(self) -> list["Receipt"]:
        """Each pair's receipt, in the order of :attr:`pairs`."""
    def pairs_jsonl(self) -> str:
        """The ``--pairs`` file ``neardup scan`` writes, byte for byte."""
    def clusters_jsonl(self) -> str:
        """The ``--clusters`` file, byte for byte."""
    def keep_list(self) -> str:
        """The ``--keep-list`` file, byte for byte."""
    def drop_list(self) -> str:
        """The ``--drop-list`` file, byte for byte."""

class Index:
    """A persistent index (the directory ``neardup index`` reads and writes):
    documents added as they arrive, new ones scanned against all of them.
    ``add`` and ``query`` return the :class:`ScanResult` that
    ``scan(ids, texts, against=everything_added_before)`` returns, its
    outputs byte for byte, without the index's documents in memory (the
    result holds the ids of the index documents that take part in a pair
    only: its ``repr`` counts those as ``against``).

    Open for reading (any number, in any process, each seeing the index as
    it was when opened) or for writing (one writer: it holds the directory's
    lock until closed or until its process ends). A context manager that
    closes it. Heavy work (signing, the query, writing, ``verify``,
    ``compact``) runs with the GIL released and stops on Ctrl-C; an add
    interrupted before its commit leaves the index as it was.

    Errors are one line naming the index or its file: ``FileNotFoundError``
    (no index there), ``BlockingIOError`` (another writer holds the lock),
    another ``OSError`` (a read or write failed: ``errno`` set),
    ``ValueError`` (a damaged file, an id the index holds already, other
    ``k``/``n``/``words``, a closed index, a write to an index opened for
    reading)."""

    @classmethod
    def create(
        cls,
        path: Union[str, os.PathLike[str]],
        k: Optional[int] = None,
        n: Optional[int] = None,
        threshold: Union[float, str] = 0.75,
        recall: Literal["probable", "exact"] = "probable",
        bands: Optional[int] = None,
        rows: Optional[int] = None,
        words: Words = None,
    ) -> "Index":
        """Creates an empty index in ``path`` (which must not exist, or be an
        empty directory), open for writing. The settings are those of
        :func:`scan`, the word rule included; every later add and query
        uses them."""
    @classmethod
    def open(cls, path: Union[str, os.PathLike[str]], write: bool = False) -> "Index":
        """Opens the index in ``path`` for reading, or with ``write=True`` for
        writing (``BlockingIOError`` while another writer holds it)."""
    def add(
        self,
        ids: Iterable[Union[str, int]],
        texts: Texts,
        only_new: bool = False,
        threads: Optional[int] = None,
        words: Words = None,
    ) -> ScanResult:
        """Signs the documents, scans them against the index and adds them as
        one segment (with ``only_new=True`` only those not dropped). ``ids``
        follow :func:`scan`'s rules and must not be in the index yet. The
        documents are signed with the index's word rule; ``words``, when
        given, must be it (a ``ValueError`` otherwise, as ``neardup index
        add --words`` refuses another rule)."""
    def query(
        self,
        texts: Texts,
        ids: Optional[Iterable[Union[str, int]]] = None,
        threads: Optional[int] = None,
        words: Words = None,
    ) -> ScanResult:
        """:meth:`add` without adding. ``ids`` default to the texts' positions
        (``0, 1, …``), which must then not be ids of the index."""
    def add_signatures(
        self,
        ids: Iterable[Union[str, int]],
        batch: "SignatureBatch",
        only_new: bool = False,
        threads: Optional[int] = None,
    ) -> ScanResult:
        """:meth:`add` of documents signed already by :func:`sign_batch` with
        the index's ``k``, ``n`` and ``words``: row ``i`` is document
        ``ids[i]``."""
    def query_signatures(
        self,
        batch: "SignatureBatch",
        ids: Optional[Iterable[Union[str, int]]] = None,
        threads: Optional[int] = None,
    ) -> ScanResult:
        """:meth:`query` of documents signed already."""
    def __len__(self) -> int:
        """The number of documents."""
    @property
    def path(self) -> pathlib.Path:
        """The directory, as given."""
    @property
    def writable(self) -> bool:
        """Whether this object holds the write lock."""
    def info(self) -> dict[str, Any]:
        """What ``neardup index info --json`` prints: ``documents``, ``k``,
        ``n``, ``words``, ``threshold``, ``bands``, ``rows``, ``recall``,
        ``miss_probability``, ``bytes``, ``segments``…"""
    def verify(self) -> list[str]:
        """Checks every segment's checksum and tables (``ValueError`` naming a
        damaged file); returns the names of files in the directory that are
        not the index's (left by an interrupted writer)."""
    def compact(self) -> None:
        """Merges every segment into one (writing only)."""
    def close(self) -> None:
        """Closes the index, releasing the lock; later calls raise
        ``ValueError``. Closing twice does nothing."""
    def __enter__(self) -> "Index": ...
    def __exit__(self, *exc: Any) -> bool: ...

class Comparison:
    """The result of :func:`compare`. Picklable."""

    @property
    def verdict(self) -> Verdict: ...
    @property
    def matches(self) -> Optional[int]:
        """Matching signature slots out of ``n``; ``None`` when a text has fewer than ``k`` words."""
    @property
    def n(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def words(self) -> Literal["space", "script"]:
        """The word rule; the receipt's algorithm id names it."""
    @property
    def similarity(self) -> Optional[float]:
        """``matches / n`` (for display: the verdict is decided in integers)."""
    @property
    def interval_95(self) -> Optional[Tuple[float, float]]:
        """The 95% interval of the similarity, ``(low, high)``."""
    @property
    def jaccard(self) -> Optional[float]:
        """The exact Jaccard similarity of the distinct shingle sets; ``None`` when both are empty."""
    @property
    def containment(self) -> Tuple[Optional[float], Optional[float], int]:
        """``(a_in_b, b_in_a, shared)``: the share of A's distinct shingles found in B,
        of B's found in A (``None`` for a text without shingles), and how many they
        share. Exact, and never part of the receipt."""
    @property
    def receipt(self) -> "Receipt": ...
    @property
    def receipt_sha256(self) -> str: ...
    @property
    def fingerprints(self) -> Tuple["Fingerprint", "Fingerprint"]:
        """Document A's and B's fingerprints."""
    @property
    def elapsed_ms(self) -> float:
        """How long the comparison took (not part of the receipt)."""
    def to_json(self, a: Optional[str] = None, b: Optional[str] = None) -> str:
        """The object ``neardup compare --json`` prints, as JSON text; ``a`` and
        ``b`` are the names shown for the texts (``null`` unless given)."""

class Receipt:
    """A receipt (SPEC §9). Picklable; equal when their canonical forms are."""

    @classmethod
    def parse(cls, text: str) -> "Receipt":
        """Parses strictly (SPEC §10); also accepts a ``neardup compare --json``
        object. Raises :class:`MalformedReceipt` naming the field."""
    def canonical(self) -> str:
        """The canonical JSON (keys sorted, no whitespace)."""
    def sha256(self) -> str:
        """The receipt hash: SHA-256 of :meth:`canonical`."""
    def verify(self, a: str, b: str, sha256: Optional[str] = None) -> list["Mismatch"]:
        """Recomputes the receipt from the texts with its own ``k``, ``n`` and
        word rule (its ``algorithm``); every differing field, empty when
        verified. ``sha256``: a receipt hash
        the texts must also give (field ``receipt_sha256``)."""
    @property
    def k(self) -> int: ...
    @property
    def n(self) -> int: ...
    @property
    def words(self) -> Literal["space", "script"]:
        """The word rule its algorithm id names."""
    @property
    def algorithm(self) -> str:
        """``"kar-shingle-minhash-v1"``, or ``"kar-script-shingle-minhash-v1"``
        for script words."""
    @property
    def verdict(self) -> Verdict: ...
    @property
    def matches(self) -> Optional[int]: ...
    @property
    def documents(self) -> list[dict[str, Any]]:
        """``normalized_sha256``, ``shingles``, ``signature_sha256`` of A and B."""

class Mismatch:
    """One field where a claimed receipt and the texts differ."""

    def __init__(self, field: str, claimed: str, actual: str) -> None: ...
    @property
    def field(self) -> str:
        """``documents[1].shingles``, ``matches``, ``verdict``, ``receipt_sha256``…"""
    @property
    def claimed(self) -> str: ...
    @property
    def actual(self) -> str: ...
    @property
    def meaning(self) -> str:
        """The difference in words."""

class Fingerprint:
    """One document: what a receipt records of it. Picklable, comparable."""

    @classmethod
    def parse(cls, line: str) -> "Fingerprint":
        """Reads one ``neardup sign`` output line strictly (its parts must agree);
        the id is not kept."""
    def to_json(self, id: Union[str, int]) -> str:
        """The line ``neardup sign --jsonl`` writes for this document under ``id``."""
    @property
    def k(self) -> int: ...
    @property
    def n(self) -> int: ...
    @property
    def words(self) -> Literal["space", "script"]:
        """The word rule it was made with."""
    @property
    def normalized_sha256(self) -> str: ...
    @property
    def shingles(self) -> int:
        """The number of distinct shingles."""
    @property
    def signature(self) -> Optional[npt.NDArray[np.uint32]]:
        """``n`` slots, or ``None`` for a text with fewer than ``k`` words."""
    @property
    def signature_sha256(self) -> Optional[str]: ...
    @property
    def signature_hex(self) -> Optional[str]:
        """``8·n`` lowercase hex digits, as in ``neardup sign`` output."""

class SignatureBatch:
    """The result of :func:`sign_batch`: row ``i`` for ``texts[i]``. Picklable."""

    @property
    def signatures(self) -> npt.NDArray[np.uint32]:
        """``(len, n)``; rows of documents without a signature are all ``0xFFFFFFFF``."""
    @property
    def has_signature(self) -> npt.NDArray[np.bool_]: ...
    @property
    def shingles(self) -> npt.NDArray[np.uint64]: ...
    @property
    def normalized_sha256(self) -> list[str]: ...
    @property
    def k(self) -> int: ...
    @property
    def n(self) -> int: ...
    @property
    def words(self) -> Literal["space", "script"]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Fingerprint: ...
    def __iter__(self) -> Iterator[Fingerprint]: ...

class ScanPlan:
    """The settings of one scan, with one method per stage of a partitioned
    scan: the core's steps on a batch of rows, for an engine that brings the
    rows together itself (``neardup.spark`` does, on Spark). Document
    numbers are ``uint32`` input positions (``against`` documents first,
    numbers below ``refs``); signatures are ``(len, n)`` ``uint32`` arrays."""

    def __init__(
        self,
        threshold: Union[float, str, None] = None,
        k: Optional[int] = None,
        n: Optional[int] = None,
        bands: Optional[int] = None,
        rows: Optional[int] = None,
        recall: Literal["probable", "exact"] = "probable",
        words: Words = None,
    ) -> None:
        """The plan ``neardup scan --threshold T -k K -n N [--bands B
        --rows R] [--recall exact] [--words script]`` uses, checked as the
        CLI checks them; ``None`` is the CLI's default (0.75, 5, 128,
        space)."""
    k: int
    n: int
    words: Literal["space", "script"]
    """The word rule: the algorithm its receipts name."""
    bands: int
    rows: int
    threshold: str
    """As ``--threshold`` takes it: ``"0.75"``."""
    miss_probability: float
    """The probability that a pair exactly at the threshold shares no band: 0
    for an exact plan (``recall="exact"``), which misses no pair."""

    def band_records(
        self, docs: npt.NDArray[np.uint32], signatures: npt.NDArray[np.uint32]
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
        """The map side: ``(band, key, doc)``, one record per band of each
        document's signature."""

    def verify_blocks(
        self,
        band: npt.NDArray[np.uint32],
        key: npt.NDArray[np.uint64],
        left: npt.NDArray[np.uint32],
        right: npt.NDArray[np.uint32],
        block: npt.NDArray[np.uint32],
        doc: npt.NDArray[np.uint32],
        signatures: npt.NDArray[np.uint32],
        refs: int,
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32], int]:
        """The reduce side, on rows sorted by ``(band, key, left, right,
        doc)``: each run of one ``(band, key, left, right)`` is a unit of a
        bucket whose documents were cut into consecutive blocks (``block``
        is a row's own): block ``left`` with itself when ``left == right``,
        else the pairs across blocks ``left`` and ``right``. Each candidate
        counts only in the first band its signatures share and is kept when
        its exact slot-match count meets the threshold. Returns ``(a, b,
        matches)`` of the pairs kept and the number of candidates counted."""

    def exact_pairs(
        self,
        normalized_sha256: list,
        doc: npt.NDArray[np.uint32],
        signatures: npt.NDArray[np.uint32],
        has_signature: npt.NDArray[np.bool_],
        refs: int,
    ) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.int64], int, int]:
        """The exact stage, on rows sorted by ``(normalized_sha256, doc)``:
        each identical group's first document paired with each other one.
        Returns ``(a, b, matches)`` (``matches`` -1 for none), the groups
        that gave a pair and their documents."""

    def receipts(
        self,
        ids_a: list,
        ids_b: list,
        normalized_sha256_a: list,
        normalized_sha256_b: list,
        shingles_a: npt.NDArray[np.uint64],
        shingles_b: npt.NDArray[np.uint64],
        signatures_a: npt.NDArray[np.uint32],
        signatures_b: npt.NDArray[np.uint32],
        has_signature_a: npt.NDArray[np.bool_],
        has_signature_b: npt.NDArray[np.bool_],
    ) -> Tuple[list, list, npt.NDArray[np.int64], list]:
        """Each pair's receipt from the two fingerprints, and its
        ``--pairs`` line under the two ids (JSON text): ``(receipt_sha256,
        verdict, matches, lines)``."""

def ids_json(ids: Iterable[Union[str, int]]) -> list:
    """Each id as the JSON text of the output lines: a ``str`` as its JSON
    string, an ``int`` as its digits."""

def cluster_lines(first: int, members: list) -> str:
    """``--clusters`` lines numbered from ``first``, one per list of member
    ids (JSON text, keeper first)."""

def list_lines(ids: list) -> str:
    """``--keep-list`` / ``--drop-list`` lines, one per id (JSON text)."""
