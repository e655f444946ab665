"""Bounded decoding of HTTP bodies (ARCHITECTURE §3 step 6: size and decompression caps).

The fetch layer turns libcurl's own content decoding off and decodes here, chunk by
chunk, never producing more than the cap: a gzip bomb (a megabyte that expands to
gigabytes) is cut at the cap after expanding only that much, and the transfer is
stopped. libcurl would expand the whole chunk inside one write callback, with no
point at which the caller could stop it.

Codings: gzip (and x-gzip), deflate (zlib-wrapped or raw, as servers send both),
br (Brotli), identity. Anything else, or a chain of codings, is refused: the fetch
layer only advertises these three.
"""

from __future__ import annotations

import zlib
from typing import Any

import brotli

SUPPORTED = ("gzip", "x-gzip", "deflate", "br")


class BodyReader:
    """Decodes one body's Content-Encoding, stopping at `limit` decoded bytes."""

    def __init__(self, content_encoding: str | None, limit: int) -> None:
        codings = [
            c.strip().lower()
            for c in (content_encoding or "").split(",")
            if c.strip() and c.strip().lower() != "identity"
        ]
        if len(codings) > 1 or (codings and codings[0] not in SUPPORTED):
            raise ValueError(",".join(codings))
        self.coding = codings[0] if codings else None
        self.limit = int(limit)
        self.size = 0
        self.full = False
        self.wire_bytes = 0
        self._z: Any = None
        self._br: Any = None
        if self.coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif self.coding == "br":
            self._br = brotli.Decompressor()

    def _room(self) -> int:
        return self.limit - self.size

    def _take(self, data: bytes) -> bytes:
        """Keep at most the room left; mark the body full when it overflows."""
        room = self._room()
        if len(data) > room:
            self.full = True
            data = data[:room]
        self.size += len(data)
        return data

    def feed(self, chunk: bytes) -> bytes:
        """Decoded bytes of `chunk` (at most the room left under the cap)."""
        if self.full:
            return b""
        self.wire_bytes += len(chunk)
        if self.coding is None:
            return self._take(chunk)
        if self.coding == "deflate" and self._z is None:
            # RFC 9110 says zlib-wrapped; many servers send raw deflate. A zlib
            # header is 0x78 followed by a byte making the pair a multiple of 31.
            wrapped = (
                len(chunk) >= 2 and chunk[0] & 0x0F == 8 and (chunk[0] << 8 | chunk[1]) % 31 == 0
            )
            self._z = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        if self._br is not None:
            return self._feed_brotli(chunk)
        return self._feed_zlib(chunk)

    def _feed_zlib(self, chunk: bytes) -> bytes:
        out: list[bytes] = []
        data = chunk
        while data and not self.full:
            piece = self._z.decompress(data, self._room() + 1)
            out.append(self._take(piece))
            data = self._z.unconsumed_tail
            if not piece and data:
                break
        return b"".join(out)

    def _feed_brotli(self, chunk: bytes) -> bytes:
        out = [self._take(self._br.process(chunk, output_buffer_limit=self._room() + 1))]
        while not self.full and not self._br.can_accept_more_data():
            more = self._br.process(b"", output_buffer_limit=self._room() + 1)
            if not more:
                break
            out.append(self._take(more))
        return b"".join(out)

    def flush(self) -> bytes:
        """What the decoder still holds once the body has ended."""
        if self.full or self._z is None:
            return b""
        return self._take(self._z.flush(self._room() + 1))
