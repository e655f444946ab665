"""Turn published claim-verification and NLI sets into the JSON lines Lyra's stance tools read.

Measurement sets (``bench/stance.py --extra-set OUT.jsonl``)::

    .venv/bin/python scripts/stance_sets.py climate-fever CLIMATE_FEVER.jsonl OUT.jsonl
    .venv/bin/python scripts/stance_sets.py covidfact COVIDFACT_dataset.jsonl OUT.jsonl

Training sets of the packaged cross-encoder (``scripts/train_stance.py encoder --data``)::

    stance_sets.py vitaminc vitaminc_real/test.jsonl vitaminc_synthetic/test.jsonl OUT.jsonl
    stance_sets.py snli eSNLI/ OUT.jsonl        (the folder with s1, s2, labels .dev/.test)
    stance_sets.py fever-symmetric fever_symmetric_dev.jsonl fever_symmetric_test.jsonl OUT.jsonl
    stance_sets.py fever-adversarial fever_adversarial/test.jsonl OUT.jsonl

docs/stance-model.md lists where each file is published, at which commit, and its
licence; none of them is in the repository. Training lines also carry ``source``
(``train_stance.py`` holds out a share of each source's groups). ``vitaminc`` draws
``--sample`` pairs (26,000 for the shipped encoder) with the training seed; ``--rest``
writes the pairs that draw left out instead.

The measurement sets are used to measure only, never to train, and stay outside the
repository (docs/stance-model.md lists where each comes
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
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

CLIMATE_FEVER_LABELS = {"SUPPORTS": "supports", "REFUTES": "refutes", "NOT_ENOUGH_INFO": "neutral"}
COVIDFACT_LABELS = {"SUPPORTED": "supports", "REFUTED": "refutes"}
FEVER_LABELS = {"SUPPORTS": "supports", "REFUTES": "refutes", "NOT ENOUGH INFO": "neutral"}
SNLI_LABELS = {"entailment": "supports", "contradiction": "refutes", "neutral": "neutral"}
# The training seed (scripts/train_stance.py SEED) and the shipped encoder's VitaminC draw.
SEED = 13
VITAMINC_SAMPLE = 26_000


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


def _pair(premise: str, claim: str, label: str, group: str, source: str) -> dict[str, str]:
    return {
        "premise": premise,
        "claim": claim,
        "label": label,
        "group": group,
        "topic": group,
        "source": source,
    }


def vitaminc(paths: Sequence[Path], sample: int, rest: bool) -> list[dict[str, str]]:
    """VitaminC's real and synthetic test splits; a case's contrastive pairs are one group."""
    every = []
    for path in paths:
        for number, row in _rows(path):
            label = _label(FEVER_LABELS, row["label"], f"{path}:{number}")
            group = f"vitaminc:{row['case_id']}"
            every.append(_pair(row["evidence"], row["claim"], label, group, "vitaminc"))
    if sample >= len(every):
        return [] if rest else every
    chosen = set(random.Random(SEED).sample(range(len(every)), sample))
    return [pair for i, pair in enumerate(every) if (i in chosen) != rest]


def snli(folders: Sequence[Path]) -> list[dict[str, str]]:
    """SNLI dev and test as e-SNLI ships them (s1 premise, s2 hypothesis, labels); one
    premise's hypotheses are one group."""
    out = []
    for folder in folders:
        for split in ("dev", "test"):
            lines = [
                (folder / f"{name}.{split}").read_text(encoding="utf-8").splitlines()
                for name in ("s1", "s2", "labels")
            ]
            if len({len(part) for part in lines}) != 1:
                raise SystemExit(f"{folder}: s1, s2 and labels .{split} differ in length")
            for number, (premise, hypothesis, raw) in enumerate(zip(*lines, strict=True), 1):
                label = _label(SNLI_LABELS, raw.strip(), f"{folder}/labels.{split}:{number}")
                group = f"snli:{premise.strip()}"
                out.append(_pair(premise.strip(), hypothesis.strip(), label, group, "snli_esnli"))
    return out


def _fever_like(paths: Sequence[Path], source: str) -> list[dict[str, str]]:
    out = []
    for path in paths:
        for number, row in _rows(path):
            label = _label(FEVER_LABELS, row["label"], f"{path}:{number}")
            if not row["evidence"].strip():
                continue  # two FEVER 2.0 adversarial rows have no evidence sentence
            out.append(_pair(row["evidence"], row["claim"], label, f"{source}:{row['id']}", source))
    return out


def fever_symmetric(paths: Sequence[Path]) -> list[dict[str, str]]:
    """FEVER-Symmetric v0.2 dev and test: (evidence, claim) with SUPPORTS / REFUTES."""
    return _fever_like(paths, "fever_symmetric")


def fever_adversarial(paths: Sequence[Path]) -> list[dict[str, str]]:
    """FEVER 2.0 adversarial claims with their evidence sentence."""
    return _fever_like(paths, "fever_adversarial")


Pairs = list[dict[str, str]]


def _one(convert: Callable[[Path], Pairs]) -> Callable[[Sequence[Path], int, bool], Pairs]:
    def run(paths: Sequence[Path], sample: int, rest: bool) -> Pairs:
        if len(paths) != 1:
            raise SystemExit("this set is one file")
        return convert(paths[0])

    return run


def _many(
    convert: Callable[[Sequence[Path]], Pairs],
) -> Callable[[Sequence[Path], int, bool], Pairs]:
    return lambda paths, sample, rest: convert(paths)


CONVERTERS: dict[str, Callable[[Sequence[Path], int, bool], Pairs]] = {
    "climate-fever": _one(climate_fever),
    "covidfact": _one(covidfact),
    "vitaminc": vitaminc,
    "snli": _many(snli),
    "fever-symmetric": _many(fever_symmetric),
    "fever-adversarial": _many(fever_adversarial),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", choices=sorted(CONVERTERS))
    parser.add_argument("files", type=Path, nargs="+", help="the published files, then OUT")
    parser.add_argument("--sample", type=int, default=VITAMINC_SAMPLE, help="vitaminc: pairs drawn")
    parser.add_argument("--rest", action="store_true", help="vitaminc: the pairs not drawn")
    args = parser.parse_args(argv)
    if len(args.files) < 2:
        parser.error("give the set's files and then OUT")
    *sources, args.out = args.files
    pairs = CONVERTERS[args.set](sources, args.sample, args.rest)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair, ensure_ascii=False) + "\n")
    counts = {k: sum(p["label"] == k for p in pairs) for k in ("supports", "refutes", "neutral")}
    print(f"{args.set}: {len(pairs)} pairs {counts} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
