"""Duplicate detection for pages and fragments: exact hashes and 64-bit SimHash.

SimHash (Charikar 2002) over word 3-shingles gives near-identical texts fingerprints
a few bits apart; Manku et al. (WWW 2007) use a Hamming distance of 3 on 64-bit
fingerprints for web pages, which is the default here. Shingle hashes come from
blake2b, never from Python's `hash()`, which is salted per process: fingerprints are
stored in the database and compared across runs and machines.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt

K = TypeVar("K", bound=Hashable)

SIMHASH_BITS: Final = 64
SHINGLE_WORDS: Final = 3
# Manku, Jain, Das Sarma (2007): k = 3 on 64-bit SimHash separates near-duplicate web
# pages from distinct ones.
DEFAULT_MAX_DISTANCE: Final = 3
# Rows per block when summing shingle bits; keeps a 2 MB text under ~10 MB of scratch.
_CHUNK_ROWS: Final = 65536
_MASK64: Final = (1 << SIMHASH_BITS) - 1

# Words are runs of letters and digits in any script; CJK text has no spaces, so each
# ideograph or kana counts as one word there (3-shingles become character trigrams).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_WHITESPACE = re.compile(r"\s+")


def dedup_tokens(text: str) -> list[str]:
    """Case-folded NFKC word tokens of `text` (CJK characters one token each)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def _hash64(value: str) -> int:
    digest = hashlib.blake2b(value.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def simhash64(text: str) -> int:
    """64-bit SimHash of `text` over word 3-shingles weighted by their counts."""
    tokens = dedup_tokens(text)
    if not tokens:
        return 0
    if len(tokens) < SHINGLE_WORDS:
        shingles = Counter([" ".join(tokens)])
    else:
        shingles = Counter(
            " ".join(tokens[i : i + SHINGLE_WORDS]) for i in range(len(tokens) - SHINGLE_WORDS + 1)
        )
    hashes = np.fromiter((_hash64(s) for s in shingles), dtype=np.uint64, count=len(shingles))
    weights = np.fromiter(shingles.values(), dtype=np.int64, count=len(shingles))
    positive = np.zeros(SIMHASH_BITS, dtype=np.int64)
    shifts = np.arange(SIMHASH_BITS, dtype=np.uint64)
    for start in range(0, len(hashes), _CHUNK_ROWS):
        block = hashes[start : start + _CHUNK_ROWS]
        bits = ((block[:, None] >> shifts) & np.uint64(1)).astype(np.int64)
        positive += weights[start : start + _CHUNK_ROWS] @ bits
    # Bit i is set when the shingles with bit i set outweigh those without it.
    votes: npt.NDArray[np.int64] = 2 * positive - int(weights.sum())
    fingerprint = 0
    for bit in np.flatnonzero(votes > 0):
        fingerprint |= 1 << int(bit)
    return fingerprint


def hamming(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit fingerprints."""
    return ((a ^ b) & _MASK64).bit_count()


def exact_text_hash(text: str) -> str:
    """sha256 of `text` after NFKC, case folding and whitespace collapsing."""
    normalised = _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def _band_slices(bands: int) -> list[tuple[int, int]]:
    """Split 64 bit positions into `bands` contiguous (shift, width) ranges."""
    base, extra = divmod(SIMHASH_BITS, bands)
    slices: list[tuple[int, int]] = []
    shift = 0
    for index in range(bands):
        width = base + (1 if index < extra else 0)
        slices.append((shift, width))
        shift += width
    return slices


def near_duplicate_groups(
    items: Sequence[tuple[K, int]], max_distance: int = DEFAULT_MAX_DISTANCE
) -> dict[K, K]:
    """Map every id to its canonical id: the first-seen item within `max_distance` bits.

    Leader clustering: an item joins the earliest canonical item whose fingerprint is
    within `max_distance`; otherwise it becomes a canonical item itself (and maps to
    itself). Comparing only with canonical items keeps chains A~B~C from pulling two
    distinct texts into one group. An id seen twice keeps its first mapping.
    """
    if max_distance < 0:
        raise ValueError(f"max_distance must be >= 0, got {max_distance}")
    # Pigeonhole: two fingerprints within k bits agree exactly on at least one of k + 1
    # bands, so looking up each band finds every candidate without comparing all pairs.
    bands = _band_slices(min(max_distance + 1, SIMHASH_BITS))
    index: dict[tuple[int, int], list[int]] = {}
    canonicals: list[tuple[K, int]] = []
    groups: dict[K, K] = {}
    for item_id, fingerprint in items:
        if not 0 <= fingerprint <= _MASK64:
            raise ValueError(f"simhash of {item_id!r} is not a 64-bit unsigned integer")
        if item_id in groups:
            continue
        keys = [
            (n, (fingerprint >> shift) & ((1 << width) - 1))
            for n, (shift, width) in enumerate(bands)
        ]
        candidates = sorted({c for key in keys for c in index.get(key, ())})
        match = next(
            (c for c in candidates if hamming(canonicals[c][1], fingerprint) <= max_distance),
            None,
        )
        if match is not None:
            groups[item_id] = canonicals[match][0]
            continue
        groups[item_id] = item_id
        for key in keys:
            index.setdefault(key, []).append(len(canonicals))
        canonicals.append((item_id, fingerprint))
    return groups


def duplicate_map(
    items: Sequence[tuple[K, str]], max_distance: int = DEFAULT_MAX_DISTANCE
) -> dict[K, K]:
    """Canonical id per text id: exact duplicates (normalised) first, then SimHash ones.

    Used for fragments within and across pages (ARCHITECTURE §3 step 7). The first
    occurrence of a text is canonical.
    """
    first_by_hash: dict[str, K] = {}
    groups: dict[K, K] = {}
    unique: list[tuple[K, int]] = []
    for item_id, text in items:
        if item_id in groups:
            continue
        digest = exact_text_hash(text)
        if digest in first_by_hash:
            groups[item_id] = first_by_hash[digest]
            continue
        first_by_hash[digest] = item_id
        groups[item_id] = item_id
        unique.append((item_id, simhash64(text)))
    near = near_duplicate_groups(unique, max_distance)
    return {item_id: near[canonical] for item_id, canonical in groups.items()}
