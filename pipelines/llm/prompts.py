"""The packaged Jinja prompt templates (`config/prompts/<name>.j2`), loaded once each.

Templates render with `StrictUndefined` (a missing variable is an error, not an empty
string) and without autoescaping (the output is a chat message, not HTML; untrusted
text is cleaned by the caller, seed 003 §4.4 L2). Callers use the template's module:
its macros and `{% set %}` values.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import jinja2


@cache
def load_prompt_module(name: str) -> Any:
    """The template module of `config/prompts/<name>.j2`."""
    source = resources.files("lyra.config").joinpath(f"prompts/{name}.j2").read_text("utf-8")
    environment = jinja2.Environment(
        undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False
    )
    return environment.from_string(source).module
