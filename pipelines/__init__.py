"""Lyra's pipelines: pure steps, no Ray and no I/O of their own beyond what is passed in.

Sub-packages by the question they answer, each importing only those listed after it
(checked by import-linter, `[tool.importlinter]` in pyproject.toml):

    evidence/   which claims, who supports or refutes them, how sure are we?
    discover/   where are the sources? (engines, SERPs, academic APIs, identifiers)
    extract/    what does this source say? (HTML, PDF, text, fragments, dedup)
    llm/        the local LLM, its prompts and the injection defences around it
    net/        may I, and how do I, talk to this site? (politeness, guards, Tor)

`errors.py` (typed errors every layer raises) is shared by all of them. Modules that
lived at the top of this package before the layout change (docs/decisions/0014) are
still importable under their old names, with a DeprecationWarning naming the new one.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers imports of moved modules' old names with the module at its new name."""

    def __init__(self, moved: Mapping[str, str]) -> None:
        self.moved = dict(moved)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.moved:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self.moved[spec.name]
        warnings.warn(
            f"{spec.name} has moved to {new}; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module was executed under its new name."""


def register_moved(moved: Mapping[str, str]) -> None:
    """Let `moved`'s old module names import their new modules (once per process)."""
    known = {
        old for finder in sys.meta_path if isinstance(finder, MovedModules) for old in finder.moved
    }
    fresh = {old: new for old, new in moved.items() if old not in known}
    if fresh:
        sys.meta_path.append(MovedModules(fresh))


_SUBPACKAGES = {
    "net": "backoff body browser_rules challenge circuit cookies domains net_guard notify "
    "robots token_bucket tor",
    "discover": "academic_openalex academic_s2 citations engine_health engines identifiers "
    "local_corpus papers query_mirror query_normalize serp_parsers wikipedia",
    "extract": "content_sniff dedup documents extract_html extract_pdf extract_text",
    "evidence": "claims confidence embedding nli nli_heuristic onnx_export ranking research",
    "llm": "prompts sanitize",
}

register_moved(
    {
        f"{__name__}.{name}": f"{__name__}.{sub}.{name}"
        for sub, names in _SUBPACKAGES.items()
        for name in names.split()
    }
)
