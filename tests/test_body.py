"""Bounded body decoding: bombs are cut at the cap without being expanded."""

from __future__ import annotations

import gzip
import zlib

import brotli  # type: ignore[import-untyped]
import pytest

from lyra.pipelines.net.body import BodyReader

TEXT = b"Caffeine shortens sleep. " * 400  # 10,000 bytes


def read_all(reader: BodyReader, data: bytes, chunk: int = 1000) -> bytes:
    out = [reader.feed(data[i : i + chunk]) for i in range(0, len(data), chunk)]
    return b"".join(out) + reader.flush()


@pytest.mark.parametrize(
    ("coding", "encoded"),
    [
        (None, TEXT),
        ("identity", TEXT),
        ("gzip", gzip.compress(TEXT)),
        ("x-gzip", gzip.compress(TEXT)),
        ("deflate", zlib.compress(TEXT)),
        ("br", brotli.compress(TEXT)),
    ],
)
def test_every_supported_coding_decodes_exactly(coding: str | None, encoded: bytes) -> None:
    reader = BodyReader(coding, 1_000_000)
    assert read_all(reader, encoded) == TEXT
    assert reader.full is False
    assert reader.size == len(TEXT)


def test_raw_deflate_decodes() -> None:
    packer = zlib.compressobj(wbits=-15)
    raw = packer.compress(TEXT) + packer.flush()
    assert read_all(BodyReader("deflate", 1_000_000), raw) == TEXT


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_a_bomb_stops_at_the_cap(coding: str) -> None:
    zeros = b"\0" * (64 * 1024 * 1024)
    bomb = gzip.compress(zeros) if coding == "gzip" else brotli.compress(zeros)
    assert len(bomb) < 200_000
    reader = BodyReader(coding, 1024 * 1024)
    out = read_all(reader, bomb, chunk=16 * 1024)
    assert len(out) == 1024 * 1024
    assert reader.full is True
    assert reader.size == 1024 * 1024


def test_plain_body_over_the_cap_is_cut_exactly() -> None:
    reader = BodyReader(None, 4096)
    out = read_all(reader, TEXT)
    assert out == TEXT[:4096]
    assert reader.full is True


def test_body_exactly_at_the_cap_is_whole() -> None:
    reader = BodyReader(None, len(TEXT))
    assert read_all(reader, TEXT) == TEXT
    assert reader.full is False


@pytest.mark.parametrize("coding", ["zstd", "compress", "gzip, br", "rot13"])
def test_unsupported_or_chained_codings_are_refused(coding: str) -> None:
    with pytest.raises(ValueError, match=coding.replace(" ", "")):
        BodyReader(coding, 1000)


def test_corrupt_gzip_raises_zlib_error() -> None:
    reader = BodyReader("gzip", 1000)
    with pytest.raises(zlib.error):
        reader.feed(b"\x1f\x8b\x08\x00garbage-not-deflate-data")
