"""Turn published claim-verification sets into the JSON lines ``bench/stance.py`` reads.

    .venv/bin/python scripts/stance_sets.py climate-fever CLIMATE_FEVER.jsonl OUT.jsonl
    .venv/bin/python scripts/stance_sets.py covidfact COVIDFACT_dataset.jsonl OUT.jsonl

Then ``bench/stance.py --extra-set OUT.jsonl``. The sets are used to measure only, never
to train, and stay outside the repository (docs/stance-model.md lists where each comes
from: tdiggelm/climate-fever-dataset ``dataset/climate-fever.jsonl``; asaakyan/covidfact
``COVIDFACT_dataset.jsonl``). Each output line is one (premise, claim) pair:
``{"premise", "claim", "label", "group", "topic"}`` with label supports / refutes /
neutral; ``group`` keeps every pair of one claim together (COVID-Fact: a claim and the
counter-claims made from it, which share a source article), ``topic`` groups further
where the set says how (otherwise it is the group).

- **Climate-FEVER**: each claim's five evidence sentences with their own
  ``evidence_label`` (SUPPORTS, REFUTES, NOT_ENOUGH_INFO → neutral); topic = the
  claim (the set has no topic ids).
- **COVID-Fact**: the claim against its evidence sentences joined in order, label
  SUPPORTED or REFUTED (the set has no neutral pairs); group and topic = the source
  article (``gold_source``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

CLIMATE_FEVER_LABELS = {"SUPPORTS": "supports", "REFUTES": "refutes", "NOT_ENOUGH_INFO": "neutral"}
COVIDFACT_LABELS = {"SUPPORTED": "supports", "REFUTED": "refutes"}


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, json.loads(line)


def _label(table: dict[str, str], value: Any, where: str) -> str:
    """The stance label of ``value``; an unknown one stops the conversion (never guessed)."""
    if value not in table:
        raise SystemExit(f"{where}: unknown label {value!r}")
    return table[value]


def climate_fever(path: Path) -> list[dict[str, str]]:
    """One pair per (claim, evidence sentence), the sentence's own label."""
    out = []
    for number, row in _rows(path):
        for evidence in row["evidences"]:
            label = _label(CLIMATE_FEVER_LABELS, evidence["evidence_label"], f"{path}:{number}")
            group = f"climate-fever:{row['claim_id']}"
            out.append(
                {
                    "premise": evidence["evidence"],
                    "claim": row["claim"],
                    "label": label,
                    "group": group,
                    "topic": group,
                }
            )
    return out


def covidfact(path: Path) -> list[dict[str, str]]:
    """One pair per claim: its evidence sentences joined, SUPPORTED or REFUTED."""
    out = []
    for number, row in _rows(path):
        label = _label(COVIDFACT_LABELS, row["label"], f"{path}:{number}")
        group = f"covidfact:{row['gold_source']}"
        out.append(
            {
                "premise": " ".join(row["evidence"]),
                "claim": row["claim"],
                "label": label,
                "group": group,
                "topic": group,
            }
        )
    return out


CONVERTERS = {"climate-fever": climate_fever, "covidfact": covidfact}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", choices=sorted(CONVERTERS))
    parser.add_argument("source", type=Path, help="the set's file as published")
    parser.add_argument("out", type=Path, help="JSON lines for bench/stance.py --extra-set")
    args = parser.parse_args(argv)
    pairs = CONVERTERS[args.set](args.source)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    counts = {k: sum(p["label"] == k for p in pairs) for k in ("supports", "refutes", "neutral")}
    print(f"{args.set}: {len(pairs)} pairs {counts} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
