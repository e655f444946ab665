"""scripts/crossfit_stance.py (decision 0121): the folds are the bench's, and the unrelated
neutral rows pair a training claim with a passage of another topic only."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

from lyra.pipelines.evidence.stance_eval import grouped_folds

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "crossfit_stance", ROOT / "scripts/crossfit_stance.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["crossfit_stance"] = module
    spec.loader.exec_module(module)
    return module


crossfit = _load()


def _healthver(path: Path) -> list[dict[str, str]]:
    rows = []
    for topic in range(6):
        for claim in range(2):
            for k, label in enumerate(("Supports", "Refutes", "Neutral")):
                rows.append(
                    {
                        "id": str(len(rows)),
                        "evidence": f"passage {topic}.{claim}.{k}",
                        "claim": f"claim {topic}.{claim}",
                        "label": label,
                        "topic_ip": f"t{topic}",
                        "question": "q",
                    }
                )
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def test_prep_writes_the_bench_folds_of_each_grouping(tmp_path: Path) -> None:
    rows = _healthver(tmp_path / "hv.csv")
    extra = tmp_path / "climate.jsonl"
    extra.write_text(json.dumps({"premise": "p", "claim": "c", "label": "refutes"}) + "\n")
    out = tmp_path / "data.json"
    assert crossfit.main(["prep", "--out", str(out), "--healthver", str(tmp_path / "hv.csv"),
                          "--extra", str(extra)]) == 0  # fmt: skip
    data = json.loads(out.read_text())
    pairs = data["healthver"]
    assert [p["label"] for p in pairs[:3]] == [0, 1, 2]
    for grouping, key in (("claim", "claim"), ("topic", "topic_ip")):
        expected = grouped_folds([r[key] for r in rows], 5, 0)
        got = [[i for i, p in enumerate(pairs) if p[f"fold_{grouping}"] == k] for k in range(5)]
        assert got == expected
    assert data["extra"] == {"climate": [{"premise": "p", "claim": "c", "label": 1}]}


def test_unrelated_rows_take_a_passage_of_another_topic(tmp_path: Path) -> None:
    _healthver(tmp_path / "hv.csv")
    out = tmp_path / "data.json"
    crossfit.main(["prep", "--out", str(out), "--healthver", str(tmp_path / "hv.csv")])
    pairs = json.loads(out.read_text())["healthver"]
    train = [i for i, p in enumerate(pairs) if p["topic"] != "t0"]
    rows = crossfit.training_rows(pairs, train, seed=13)
    assert rows[: len(train)] == [
        (pairs[i]["premise"], pairs[i]["claim"], pairs[i]["label"]) for i in train
    ]
    added = rows[len(train) :]
    assert Counter(claim for _, claim, _ in added) == {
        f"claim {t}.{c}": 2 for t in range(1, 6) for c in range(2)
    }
    assert {label for _, _, label in added} == {2}
    for premise, claim, _ in added:
        assert premise.split()[1].split(".")[0] != claim.split()[1].split(".")[0]
        assert not premise.startswith("passage 0.")  # never a held-out passage
