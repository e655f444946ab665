"""A loopback stand-in for the Hugging Face hub, as much of it as a pinned download uses.

``huggingface_hub`` (2.x) asks, for ``model_info(files_metadata=True)`` and
``hf_hub_download(revision=<commit>)``:

- ``GET /api/models/{org}/{name}/revision/{rev}?blobs=True``: JSON with ``sha`` (the
  commit) and ``siblings`` (``rfilename``, ``size``, ``blobId``, and ``lfs`` with
  ``sha256``/``size``/``pointerSize`` for LFS files);
- ``HEAD`` then ``GET /{org}/{name}/resolve/{commit}/{path}``: ``X-Repo-Commit``,
  ``ETag`` (the git blob id), for LFS files ``X-Linked-Etag`` (the sha256) and
  ``X-Linked-Size``, ``Content-Length``; a resumed ``GET`` sends ``Range: bytes=N-``.

Errors carry ``X-Error-Code`` (``RepoNotFound``, ``RevisionNotFound``,
``EntryNotFound``), which is how the client tells them apart. Faults are set per file:
``corrupt`` (same length, other bytes), ``truncate`` (a shorter body with a matching
``Content-Length``, as a damaged mirror would serve it), ``drop`` (half the body, then
the connection closes; resumed requests close at once). ``status_for`` answers every
request for one repository with an HTTP status.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Literal

Fault = Literal["corrupt", "truncate", "drop"]

# Files served as LFS objects, as the hub stores weights.
LFS_SUFFIXES = (".safetensors", ".bin", ".onnx", ".model")


def git_blob_id(data: bytes) -> str:
    """The git blob id of ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass
class Repo:
    """One model repository at one commit."""

    commit: str
    files: dict[str, bytes]

    @classmethod
    def from_folder(cls, folder: Path, commit: str) -> Repo:
        """Every file under ``folder`` (relative paths), served at ``commit``."""
        files = {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }
        return cls(commit=commit, files=files)


@dataclass
class StandInHub:
    """The hub's state: repositories, faults, and every request it saw."""

    repos: dict[str, Repo] = field(default_factory=dict)
    faults: dict[tuple[str, str], Fault] = field(default_factory=dict)
    status_for: dict[str, int] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, method: str, path: str) -> None:
        """Remember a request (method, path without the query)."""
        with self._lock:
            self.requests.append((method, path.split("?")[0]))

    def downloads(self, repo_id: str) -> list[str]:
        """File paths of ``repo_id`` that were fetched with GET, in order."""
        prefix = f"/{repo_id}/resolve/"
        return [
            p[len(prefix) :].split("/", 1)[1]
            for m, p in self.requests
            if m == "GET" and p.startswith(prefix)
        ]


_API = re.compile(r"^/api/models/(?P<repo>[^/]+/[^/]+)/revision/(?P<rev>[^/?]+)")
_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>[^?]+)")


def _handler(hub: StandInHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return None

        def _error(self, status: int, code: str | None = None) -> None:
            body = json.dumps({"error": code or f"HTTP {status}"}).encode()
            self.send_response(status)
            if code:
                self.send_header("X-Error-Code", code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _repo(self, repo_id: str, rev: str) -> Repo | None:
            if repo_id in hub.status_for:
                self._error(hub.status_for[repo_id])
                return None
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._error(404, "RepoNotFound")
                return None
            if rev not in (repo.commit, "main"):
                self._error(404, "RevisionNotFound")
                return None
            return repo

        def _info(self, repo_id: str, rev: str) -> None:
            repo = self._repo(repo_id, rev)
            if repo is None:
                return
            siblings = []
            for name, data in sorted(repo.files.items()):
                sibling: dict[str, object] = {
                    "rfilename": name,
                    "size": len(data),
                    "blobId": git_blob_id(data),
                }
                if name.endswith(LFS_SUFFIXES):
                    sibling["lfs"] = {
                        "sha256": hashlib.sha256(data).hexdigest(),
                        "size": len(data),
                        "pointerSize": 134,
                    }
                siblings.append(sibling)
            body = json.dumps({"id": repo_id, "sha": repo.commit, "siblings": siblings})
            raw = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _file(self, repo_id: str, rev: str, path: str) -> None:
            repo = self._repo(repo_id, rev)
            if repo is None:
                return
            data = repo.files.get(path)
            if data is None:
                self._error(404, "EntryNotFound")
                return
            fault = hub.faults.get((repo_id, path))
            body = data
            if fault == "corrupt":
                body = bytes(b ^ 0x5A for b in data[:16]) + data[16:]
            elif fault == "truncate":
                body = data[: len(data) // 2]
            start = 0
            ranged = self.headers.get("Range", "")
            match = re.fullmatch(r"bytes=(\d+)-", ranged)
            if match:
                start = int(match.group(1))
            self.send_response(206 if start else 200)
            self.send_header("X-Repo-Commit", repo.commit)
            self.send_header("ETag", f'"{git_blob_id(data)}"')
            if path.endswith(LFS_SUFFIXES):
                self.send_header("X-Linked-Etag", f'"{hashlib.sha256(data).hexdigest()}"')
                self.send_header("X-Linked-Size", str(len(body)))
            self.send_header("Content-Length", str(len(body) - start))
            self.end_headers()
            if self.command == "HEAD":
                return
            if fault == "drop":
                # Half of the body on the first try, nothing on a resumed one; then
                # the connection closes under the client.
                if not start:
                    self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body[start:])

        def _route(self) -> None:
            hub.record(self.command, self.path)
            api = _API.match(self.path)
            if api and self.command == "GET":
                self._info(api["repo"], api["rev"])
                return
            resolve = _RESOLVE.match(self.path)
            if resolve:
                self._file(resolve["repo"], resolve["rev"], resolve["path"])
                return
            self._error(404)

        def do_GET(self) -> None:
            self._route()

        def do_HEAD(self) -> None:
            self._route()

    return Handler


@contextmanager
def serve_hub(hub: StandInHub) -> Iterator[StandInHub]:
    """Serve ``hub`` on 127.0.0.1 (a free port) for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
