"""scripts/stance_sets.py: the published sets become the JSON lines the stance tools read.

Small files in each set's published format (the real ones are not in the repository);
what matters for retraining is that labels map without guessing, groups keep a case's
pairs together, and the VitaminC draw and its rest partition the set.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("stance_sets", ROOT / "scripts/stance_sets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stance_sets"] = module
    spec.loader.exec_module(module)
    return module


stance_sets = _load()


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _vitaminc_rows(prefix: str, cases: int) -> list[dict[str, str]]:
    labels = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
    return [
        {
            "case_id": f"{prefix}{c}",
            "label": labels[(c + k) % 3],
            "claim": f"claim {prefix}{c}.{k}",
            "evidence": f"evidence {c}",
        }
        for c in range(cases)
        for k in range(2)
    ]


def test_vitaminc_draw_and_rest_partition_the_set(tmp_path: Path) -> None:
    real = _write(tmp_path / "real.jsonl", _vitaminc_rows("real", 10))
    synthetic = _write(tmp_path / "synthetic.jsonl", _vitaminc_rows("synthetic", 5))
    files = [str(real), str(synthetic)]
    assert stance_sets.main(["vitaminc", "--sample", "12", *files, str(tmp_path / "a")]) == 0
    assert (
        stance_sets.main(["vitaminc", "--sample", "12", "--rest", *files, str(tmp_path / "b")]) == 0
    )
    drawn, rest = _read(tmp_path / "a"), _read(tmp_path / "b")
    assert (len(drawn), len(rest)) == (12, 18)
    key = [(p["group"], p["claim"]) for p in drawn + rest]
    assert len(set(key)) == 30
    assert drawn[0].keys() == {"premise", "claim", "label", "group", "topic", "source"}
    assert {p["source"] for p in drawn + rest} == {"vitaminc"}
    assert {p["label"] for p in drawn + rest} == {"supports", "refutes", "neutral"}
    # The same seed draws the same pairs.
    assert stance_sets.main(["vitaminc", "--sample", "12", *files, str(tmp_path / "c")]) == 0
    assert _read(tmp_path / "c") == drawn


def test_snli_maps_labels_and_groups_a_premise(tmp_path: Path) -> None:
    folder = tmp_path / "eSNLI"
    folder.mkdir()
    for split in ("dev", "test"):
        (folder / f"s1.{split}").write_text("A dog runs . \nA dog runs . \nA cat sits . \n")
        (folder / f"s2.{split}").write_text("An animal moves .\nA dog sleeps .\nA cat .\n")
        (folder / f"labels.{split}").write_text("entailment\ncontradiction\nneutral\n")
    assert stance_sets.main(["snli", str(folder), str(tmp_path / "out")]) == 0
    pairs = _read(tmp_path / "out")
    assert [p["label"] for p in pairs] == ["supports", "refutes", "neutral"] * 2
    assert pairs[0]["premise"] == "A dog runs ."
    assert pairs[0]["group"] == pairs[1]["group"] == "snli:A dog runs ."
    assert pairs[2]["group"] == "snli:A cat sits ."


def test_fever_sets_skip_rows_without_evidence(tmp_path: Path) -> None:
    rows = [
        {
            "id": 1,
            "label": "SUPPORTS",
            "evidence": "Paris is in France .",
            "claim": "Paris is French.",
        },
        {"id": 2, "label": "REFUTES", "evidence": " ", "claim": "Rome is in Spain."},
        {
            "id": 3,
            "label": "REFUTES",
            "evidence": "Rome is in Italy .",
            "claim": "Rome is in Spain.",
        },
    ]
    source = _write(tmp_path / "test.jsonl", rows)
    assert stance_sets.main(["fever-adversarial", str(source), str(tmp_path / "out")]) == 0
    pairs = _read(tmp_path / "out")
    assert [(p["group"], p["label"]) for p in pairs] == [
        ("fever_adversarial:1", "supports"),
        ("fever_adversarial:3", "refutes"),
    ]


def test_an_unknown_label_stops_the_conversion(tmp_path: Path) -> None:
    rows = [{"id": 1, "label": "MAYBE", "evidence": "Some text .", "claim": "A claim."}]
    source = _write(tmp_path / "test.jsonl", rows)
    with pytest.raises(SystemExit, match="unknown label 'MAYBE'"):
        stance_sets.main(["fever-symmetric", str(source), str(tmp_path / "out")])
    assert not (tmp_path / "out").exists()
