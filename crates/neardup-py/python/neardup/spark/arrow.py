"""The sign stage's rows as Arrow: the columns every input gives, and the
signature column's binary layout (4·n little-endian bytes a row)."""

import numpy as np
import pyarrow as pa
from pyspark.sql import types as T

from .. import _neardup


_NO_SIGNATURE = 0xFFFFFFFF


def _column(batch, name):
    return batch.column(batch.schema.get_field_index(name))


def _ints(col, dtype):
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=dtype)


def _signature_column(matrix, has):
    """A (len, n) uint32 matrix as a binary column of 4·n little-endian bytes
    a row, null where ``has`` is false."""
    n = matrix.shape[1]
    lens = np.where(has, 4 * n, 0).astype(np.int32)
    offsets = np.zeros(len(has) + 1, dtype=np.int32)
    np.cumsum(lens, out=offsets[1:])
    data = np.ascontiguousarray(matrix[has], dtype="<u4").tobytes()
    validity = pa.array(has, type=pa.bool_()).buffers()[1]
    return pa.Array.from_buffers(
        pa.binary(), len(has), [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
        null_count=int((~has).sum()))


def _signature_matrix(col, n):
    """A binary signature column back to a (len, n) uint32 matrix (rows of a
    null all 0xFFFFFFFF) and the has-signature mask."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if pa.types.is_large_binary(col.type):
        wide = np.int64
    elif pa.types.is_binary(col.type):
        wide = np.int32
    else:
        raise TypeError("signature column must be binary, got %s" % col.type)
    size = len(col)
    has = np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    out = np.full((size, n), _NO_SIGNATURE, dtype=np.uint32)
    if not has.any():
        return out, has
    bufs = col.buffers()
    offsets = np.frombuffer(bufs[1], dtype=wide)[col.offset:col.offset + size + 1]
    starts = offsets[:-1][has]
    if not np.all(offsets[1:][has] - starts == 4 * n):
        raise ValueError("a signature of another length than n = %d slots" % n)
    data = np.frombuffer(bufs[2], dtype=np.uint8)
    first = int(starts[0])
    if len(starts) == size and np.array_equal(starts, first + 4 * n * np.arange(size)):
        # Every row present and back to back: the buffer is the matrix.
        out[:] = data[first:first + 4 * n * size].view("<u4").reshape(size, n)
        return out, has
    rows = data[starts[:, None] + np.arange(4 * n)]
    out[has] = np.ascontiguousarray(rows).view("<u4").reshape(-1, n)
    return out, has


def _batch(schema, columns):
    return pa.RecordBatch.from_arrays(
        [pa.array(columns[f.name], type=f.type) if not isinstance(columns[f.name], pa.Array)
         else columns[f.name] for f in schema], schema=schema)


#: What the sign stage gives for each document: where it sits in the input
#: (``src`` 0 for ``against``, 1 for the documents; a group ``g1, g2`` and a
#: position ``pos`` in it), its id (as given, and as the JSON text of the
#: output lines), and its fingerprint.
_SIGNED = [
    ("src", T.IntegerType()), ("g1", T.LongType()), ("g2", T.LongType()),
    ("pos", T.LongType()), ("id_json", T.StringType()), ("sha", T.StringType()),
    ("shingles", T.LongType()), ("sig", T.BinaryType()),
]


def _signed_schema(id_type):
    fields = [T.StructField(name, t, True) for name, t in _SIGNED]
    return T.StructType(fields + [T.StructField("id", id_type, True)])


def _arrow_schema(spark_schema):
    out = []
    for f in spark_schema.fields:
        t = {T.IntegerType: pa.int32(), T.LongType: pa.int64(), T.StringType: pa.string(),
             T.BinaryType: pa.binary(), T.DoubleType: pa.float64()}.get(type(f.dataType))
        if t is None:
            raise TypeError("no arrow type for %s" % f.dataType)
        out.append(pa.field(f.name, t))
    return pa.schema(out)


def _fingerprint_columns(b):
    """The fingerprint columns of a ``SignatureBatch``."""
    return {
        "sha": pa.array(b.normalized_sha256, type=pa.string()),
        "shingles": pa.array(np.asarray(b.shingles, dtype=np.int64)),
        "sig": _signature_column(np.asarray(b.signatures), np.asarray(b.has_signature)),
    }


def _sign_fields(texts, k, n, words):
    """The fingerprint columns of a list (or arrow array) of texts."""
    return _fingerprint_columns(_neardup.sign_batch(texts, k=k, n=n, threads=1, words=words))
