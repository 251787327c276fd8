"""The n-tuple network's weights file: shape, header, checks, memory map.

The format is documented in docs/solver-weights.md.  In short: a header
(magic ``T48NTUPL``, version, the SHA-256 of everything after the digest,
the value type, the scale of quantised values, the tuples' cells, the stage
thresholds, a JSON metadata text), padded to a multiple of 64 bytes, then
the payload: ``n_arrays`` arrays of ``total`` little-endian values each
(the weights; a training checkpoint adds the TC learning rule's two
accumulators), stage by stage, tuple by tuple, ``16**len(tuple)`` values a
tuple.

Everything in the header is checked here, in Python, before a byte reaches
the C code: a file that is truncated, longer than its header says, changed
anywhere after the digest, of another version, or of a shape out of range is
refused with a :class:`WeightsError` (one line; exit 2 on the command line).
The payload is memory-mapped, never read whole: the operating system pages
in the weights a search touches, and processes share them.

No NumPy here: a hint loads weights without paying for importing it.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import mmap
import os
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

import attrs

from twenty48_replay.core.errors import EXIT_UNUSABLE, Twenty48Error
from twenty48_replay.core.i18n import N_, _

MAGIC: Final = b"T48NTUPL"
VERSION: Final = 1
#: Byte offsets of the fixed part of the header.
DIGEST_OFFSET: Final = 16
HASHED_FROM: Final = 48
FIXED: Final = struct.Struct("<8sII32sQBBBBBBHdII")
HEADER_ALIGN: Final = 64
TUPLE_ENTRY: Final = 8  # length + 7 cells (0xFF where unused)
MAX_TUPLES: Final = 16
MAX_TUPLE_LENGTH: Final = 7
MAX_STAGES: Final = 8
CELL_VALUES: Final = 16
MAX_METADATA: Final = 1 << 20
#: The largest network accepted (weights per array): 2**31, the C side's index range.
MAX_TOTAL: Final = 1 << 31

FLOAT32: Final = 1
INT16: Final = 2
VALUE_TYPES: Final = {FLOAT32: ("float32", 4), INT16: ("int16", 2)}
DENSE: Final = 1
SPARSE: Final = 2
LAYOUTS: Final = (DENSE, SPARSE)
#: A sparse file's index: per group of 64 weights, three uint32 (rank, mask low, mask high).
GROUP: Final = 64
GROUP_BYTES: Final = 12
#: What ntuple_load calls each kind of weights.
KIND_F32: Final = 0
KIND_I16: Final = 1
KIND_I16_SPARSE: Final = 2


class WeightsError(Twenty48Error):
    """A weights file that cannot be used (exit 2): the reason, naming the file."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE
    TEMPLATE: ClassVar[str] = N_("weights file {path}: {reason}")

    def __init__(self, path: str | os.PathLike[str], reason: str, **values: object) -> None:
        """``reason``: one of the templates below (marked for translation), ``values``
        its placeholders."""
        self.path = str(path)
        self.reason = reason
        self.values = values
        super().__init__(self.TEMPLATE.format(path=self.path, reason=reason.format(**values)))

    def translated(self) -> str:
        reason = _(self.reason).format(**self.values)
        return _(self.TEMPLATE).format(path=self.path, reason=reason)


# The reasons, marked for translation (WeightsError.translated looks them up).
NOT_WEIGHTS: Final = N_("not a weights file (no T48NTUPL magic)")
OTHER_VERSION: Final = N_("format version {found}, this program reads version {expected}")
TRUNCATED: Final = N_("truncated or padded: {found} bytes, its header says {expected}")
CORRUPT: Final = N_("corrupt: the SHA-256 of its contents does not match its header")
BAD_HEADER: Final = N_("bad header: {what}")
UNREADABLE: Final = N_("cannot be read ({why})")
NOT_CHECKPOINT: Final = N_("not a training checkpoint (float32 weights of kind 'checkpoint')")
BAD_TRAINING: Final = N_("bad training metadata ({what})")
NO_TRAINER: Final = N_(
    "training needs the native solver (twenty48_replay._solver), which is not built or "
    "not chosen here; reinstall with a C compiler, or unset TWENTY48_ENGINE"
)


@attrs.frozen
class NetworkShape:
    """The tuples (cells 0..15, row-major) and the stage thresholds of a network.

    ``stages[s]`` is the smallest exponent of the largest tile from which
    stage ``s`` is used (``stages[0]`` is 0); one stage: ``(0,)``.
    """

    tuples: tuple[tuple[int, ...], ...]
    stages: tuple[int, ...] = (0,)

    def __attrs_post_init__(self) -> None:
        problem = shape_problem(self.tuples, self.stages)
        if problem:
            raise ValueError(problem)

    @property
    def stage_size(self) -> int:
        """Weights of one stage."""
        return sum(CELL_VALUES ** len(cells) for cells in self.tuples)

    @property
    def total(self) -> int:
        """Weights in all stages."""
        return self.stage_size * len(self.stages)

    def table_offsets(self) -> list[int]:
        """The first weight of each tuple's table within a stage."""
        offsets, at = [], 0
        for cells in self.tuples:
            offsets.append(at)
            at += CELL_VALUES ** len(cells)
        return offsets

    def describe(self) -> str:
        """``0-1-2-3-4-5 4-5-6-7-8-9 ...`` and the stages, for people."""
        text = " ".join("-".join(str(c) for c in cells) for cells in self.tuples)
        if len(self.stages) > 1:
            text += " stages " + ",".join(str(s) for s in self.stages)
        return text


def shape_problem(tuples: Sequence[Sequence[int]], stages: Sequence[int]) -> str:
    """What is wrong with a shape ('' when nothing)."""
    if not 1 <= len(tuples) <= MAX_TUPLES:
        return f"1 to {MAX_TUPLES} tuples, not {len(tuples)}"
    for cells in tuples:
        if not 1 <= len(cells) <= MAX_TUPLE_LENGTH:
            return f"a tuple has 1 to {MAX_TUPLE_LENGTH} cells, not {len(cells)}"
        if any(not 0 <= c <= 15 for c in cells) or len(set(cells)) != len(cells):
            return f"the cells of a tuple are distinct, from 0 to 15: {list(cells)}"
    if not 1 <= len(stages) <= MAX_STAGES or stages[0] != 0:
        return f"1 to {MAX_STAGES} stages, the first from 0: {list(stages)}"
    if any(b <= a for a, b in itertools.pairwise(stages)) or stages[-1] > 31:
        return f"stage thresholds increase, up to 31: {list(stages)}"
    per_stage = sum(CELL_VALUES ** len(cells) for cells in tuples)
    if per_stage * len(stages) > MAX_TOTAL:
        return f"{per_stage * len(stages)} weights, more than {MAX_TOTAL}"
    return ""


#: The network the solver trains by default: four 6-tuples (two of a row and
#: two cells beside it, two of a 2x3 rectangle), Yeh et al.'s 2016 shape, as in
#: many later 2048 players.
DEFAULT_SHAPE: Final = NetworkShape(
    ((0, 1, 2, 3, 4, 5), (4, 5, 6, 7, 8, 9), (0, 1, 2, 4, 5, 6), (4, 5, 6, 8, 9, 10))
)


@attrs.frozen
class Header:
    """A weights file's header, checked."""

    shape: NetworkShape
    value_type: int
    layout: int
    n_arrays: int
    scale: float
    metadata: dict[str, Any]
    header_length: int
    payload_length: int
    digest: bytes

    @property
    def itemsize(self) -> int:
        return VALUE_TYPES[self.value_type][1]

    @property
    def dtype(self) -> str:
        """The NumPy name of the stored values."""
        return VALUE_TYPES[self.value_type][0]


def encode_header(
    shape: NetworkShape,
    *,
    value_type: int,
    n_arrays: int,
    scale: float,
    metadata: dict[str, Any],
    layout: int = DENSE,
    payload_length: int | None = None,
) -> bytes:
    """The header's bytes with a zero digest (the writer fills it in)."""
    meta = json.dumps(metadata, sort_keys=True, ensure_ascii=True).encode("ascii")
    if len(meta) > MAX_METADATA:
        raise ValueError("metadata too long")
    tuples = b"".join(
        bytes([len(cells), *cells, *[0xFF] * (MAX_TUPLE_LENGTH - len(cells))])
        for cells in shape.tuples
    )
    stages = bytes(shape.stages).ljust(_round_up(len(shape.stages), 8), b"\0")
    body_length = FIXED.size + len(tuples) + len(stages) + len(meta)
    header_length = _round_up(body_length, HEADER_ALIGN)
    if payload_length is None:
        payload_length = n_arrays * shape.total * VALUE_TYPES[value_type][1]
    fixed = FIXED.pack(
        MAGIC,
        VERSION,
        header_length,
        b"\0" * 32,
        payload_length,
        value_type,
        layout,
        len(shape.tuples),
        len(shape.stages),
        CELL_VALUES,
        n_arrays,
        0,
        scale,
        len(meta),
        0,
    )
    return (fixed + tuples + stages + meta).ljust(header_length, b"\0")


def _round_up(n: int, k: int) -> int:
    return (n + k - 1) // k * k


def parse_header(path: str | os.PathLike[str], data: bytes | mmap.mmap, size: int) -> Header:
    """Check and decode the header at the start of ``data`` (a file of ``size`` bytes)."""

    def bad(what: str) -> WeightsError:
        return WeightsError(path, BAD_HEADER, what=what)

    if size < FIXED.size or bytes(data[:8]) != MAGIC:
        raise WeightsError(path, NOT_WEIGHTS)
    (
        _magic,
        version,
        header_length,
        digest,
        payload_length,
        value_type,
        layout,
        n_tuples,
        n_stages,
        cell_values,
        n_arrays,
        reserved,
        scale,
        meta_length,
        reserved2,
    ) = FIXED.unpack_from(data, 0)
    if version != VERSION:
        raise WeightsError(path, OTHER_VERSION, found=version, expected=VERSION)
    if header_length % HEADER_ALIGN or header_length < FIXED.size or header_length > size:
        raise WeightsError(path, TRUNCATED, found=size, expected=max(header_length, FIXED.size))
    if size != header_length + payload_length:
        raise WeightsError(path, TRUNCATED, found=size, expected=header_length + payload_length)
    if value_type not in VALUE_TYPES:
        raise bad(f"value type {value_type}")
    if layout not in LAYOUTS:
        raise bad(f"layout {layout}")
    if cell_values != CELL_VALUES or reserved or reserved2:
        raise bad("cell values or reserved fields")
    if not 1 <= n_arrays <= 3:
        raise bad(f"{n_arrays} arrays")
    if not (scale > 0.0 and scale < 1e30):
        raise bad(f"scale {scale}")
    if not 1 <= n_tuples <= MAX_TUPLES or not 1 <= n_stages <= MAX_STAGES:
        raise bad(f"{n_tuples} tuples, {n_stages} stages")
    at = FIXED.size
    tuples = []
    for _i in range(n_tuples):
        entry = bytes(data[at : at + TUPLE_ENTRY])
        at += TUPLE_ENTRY
        length = entry[0]
        if not 1 <= length <= MAX_TUPLE_LENGTH or any(b != 0xFF for b in entry[1 + length :]):
            raise bad("a tuple's cells")
        tuples.append(tuple(entry[1 : 1 + length]))
    stages = tuple(bytes(data[at : at + n_stages]))
    at += _round_up(n_stages, 8)
    problem = shape_problem(tuples, stages)
    if problem:
        raise bad(problem)
    if meta_length > MAX_METADATA or at + meta_length > header_length:
        raise bad("metadata length")
    try:
        metadata = json.loads(bytes(data[at : at + meta_length]).decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise bad("metadata is not JSON") from None
    if not isinstance(metadata, dict):
        raise bad("metadata is not a JSON object")
    if any(bytes(data[at + meta_length : header_length])):
        raise bad("padding")
    shape = NetworkShape(tuple(tuples), stages)
    itemsize = VALUE_TYPES[value_type][1]
    if layout == DENSE and payload_length != n_arrays * shape.total * itemsize:
        raise bad("payload length")
    if layout == SPARSE:
        index_bytes = shape.total // GROUP * GROUP_BYTES
        if value_type != INT16 or n_arrays != 1 or shape.total % GROUP:
            raise bad("a sparse file holds one int16 array of a multiple of 64 weights")
        if payload_length < index_bytes or (payload_length - index_bytes) % itemsize:
            raise bad("payload length")
    return Header(
        shape, value_type, layout, n_arrays, scale, metadata, header_length, payload_length, digest
    )


@attrs.frozen(eq=False)
class Weights:
    """A checked, memory-mapped weights file.

    ``arrays[i]`` is a read-only memoryview of array ``i`` (dense files; a
    sparse file has one, its nonzero values), ``index`` the sparse index
    (None when dense).
    """

    path: str
    header: Header
    mapping: mmap.mmap
    arrays: tuple[memoryview, ...]
    index: memoryview | None = None

    @property
    def shape(self) -> NetworkShape:
        return self.header.shape

    @property
    def kind(self) -> int:
        """What ``ntuple_load`` calls these weights."""
        if self.header.layout == SPARSE:
            return KIND_I16_SPARSE
        return KIND_F32 if self.header.value_type == FLOAT32 else KIND_I16

    def network(self, module: Any) -> Any:
        """The weights as the C extension evaluates them (it checks a sparse index)."""
        shape = self.shape
        try:
            return module.ntuple_load(
                shape.tuples, shape.stages, self.kind, self.header.scale, self.arrays[0], self.index
            )
        except ValueError as exc:
            raise WeightsError(self.path, BAD_HEADER, what=str(exc)) from None

    def close(self) -> None:
        """Unmap now, unless an array made from the views still holds the mapping (it
        is then unmapped when the last of those goes)."""
        for view in (*self.arrays, self.index):
            if view is not None:
                view.release()
        with contextlib.suppress(BufferError):
            self.mapping.close()


def load(path: str | os.PathLike[str], *, verify: bool = True) -> Weights:
    """Map a weights file after checking its header and (``verify``) its SHA-256."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < FIXED.size:
                raise WeightsError(path, NOT_WEIGHTS)
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise WeightsError(path, UNREADABLE, why=exc.strerror or type(exc).__name__) from None
    try:
        header = parse_header(path, mapping, size)
        if verify:
            with memoryview(mapping) as whole:
                digest = hashlib.sha256(whole[HASHED_FROM:]).digest()
            if digest != header.digest:
                raise WeightsError(path, CORRUPT)
        whole = memoryview(mapping)
        start = header.header_length
        index = None
        if header.layout == SPARSE:
            index_bytes = header.shape.total // GROUP * GROUP_BYTES
            index = whole[start : start + index_bytes]
            arrays: tuple[memoryview, ...] = (whole[start + index_bytes : size],)
        else:
            length = header.shape.total * header.itemsize
            arrays = tuple(
                whole[start + i * length : start + (i + 1) * length] for i in range(header.n_arrays)
            )
        whole.release()
    except BaseException:
        mapping.close()
        raise
    return Weights(str(path), header, mapping, arrays, index)


def write(
    path: str | os.PathLike[str],
    shape: NetworkShape,
    arrays: Sequence[Any],
    *,
    value_type: int = FLOAT32,
    scale: float = 1.0,
    metadata: dict[str, Any] | None = None,
    sparse_index: Any = None,
) -> None:
    """Write a weights file atomically (a temporary file beside it, then a rename).

    ``arrays``: buffers of ``shape.total`` little-endian values of
    ``value_type`` each (NumPy arrays, bytes), or functions without arguments
    that return one (called one at a time, while the file is written, so that
    a caller never holds every copy at once); with ``sparse_index`` (the index
    of a sparse file) one buffer of the nonzero int16 values.  The digest
    covers everything after it.  A crash or Ctrl-C leaves the previous file
    whole.
    """
    target = Path(path)
    layout, payload_length = DENSE, None
    expected = shape.total * VALUE_TYPES[value_type][1]
    parts: list[Any] = list(arrays)
    if sparse_index is not None:
        index = memoryview(sparse_index).cast("B")
        values = memoryview(parts[0]).cast("B") if len(parts) == 1 else None
        if values is None or index.nbytes != shape.total // GROUP * GROUP_BYTES:
            raise ValueError("a sparse file has one array of values and an index of the shape")
        parts = [index, values]
        layout, payload_length = SPARSE, index.nbytes + values.nbytes
    head = bytearray(
        encode_header(
            shape,
            value_type=value_type,
            n_arrays=len(arrays),
            scale=scale,
            metadata=metadata or {},
            layout=layout,
            payload_length=payload_length,
        )
    )
    digest = hashlib.sha256(head[HASHED_FROM:])
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(head)
            for part in parts:
                view = memoryview(part() if callable(part) else part).cast("B")
                if layout == DENSE and view.nbytes != expected:
                    raise ValueError(f"an array of {view.nbytes} bytes, expected {expected}")
                digest.update(view)
                out.write(view)
                view.release()
            out.seek(DIGEST_OFFSET)
            out.write(digest.digest())
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
