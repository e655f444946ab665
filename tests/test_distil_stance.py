"""scripts/distil_stance.py: the unlabelled inputs a shallower stance encoder learns on.

Small files in VitaminC's and PubMedQA's published formats (the real ones are not in the
repository). What matters is that each kind of pair is what decision 0091 says it is:
two texts of one page or abstract, a negated conclusion, texts of unrelated subjects.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "distil_stance", ROOT / "scripts/distil_stance.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["distil_stance"] = module
    spec.loader.exec_module(module)
    return module


distil = _load()


def _vitaminc(path: Path) -> Path:
    rows = [
        {
            "case_id": f"{page}{case}",
            "page": page,
            "claim": f"claim {page}{case}.{k}",
            "evidence": f"Evidence {page}{case} holds.",
            "label": "SUPPORTS",
        }
        for page in ("A", "B")
        for case in range(3)
        for k in range(2)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_vitaminc_inputs_pair_texts_of_one_page_and_of_two(tmp_path: Path) -> None:
    pairs = distil.vitaminc_pairs([_vitaminc(tmp_path / "test.jsonl")])
    of = {kind: [p for p in pairs if p["kind"] == kind] for kind in {p["kind"] for p in pairs}}
    # 12 published pairs, one same-page pair per pair, 2 long premises per page (3 evidence
    # sentences each), 10,000 unrelated pairs.
    assert {k: len(v) for k, v in of.items()} == {
        "published": 12,
        "same page": 12,
        "long premise": 4,
        "unrelated": 10_000,
    }
    cases = [
        (re.findall(r"Evidence (\w)(\d)", p["premise"]), p["claim"][6:8], p["group"]) for p in pairs
    ]
    same = [c for c, p in zip(cases, pairs, strict=True) if p["kind"] == "same page"]
    assert all(ev[0][0] == group == claim[0] and ev[0][1] != claim[1] for ev, claim, group in same)
    long = [c for c, p in zip(cases, pairs, strict=True) if p["kind"] == "long premise"]
    assert [len(ev) for ev, _, _ in long] == [3, 3, 3, 3]
    assert all({e[0] for e in ev} == {group} == {claim[0]} for ev, claim, group in long)
    unrelated = [c for c, p in zip(cases, pairs, strict=True) if p["kind"] == "unrelated"]
    assert all(ev[0][0] == group != claim[0] for ev, claim, group in unrelated)


def test_a_conclusion_is_negated_at_its_first_auxiliary() -> None:
    assert distil._negated("Zinc is effective for colds.") == "Zinc is not effective for colds."
    assert distil._negated("Zinc shortens colds.") == "It is not true that zinc shortens colds."


def test_pubmedqa_inputs_pair_an_abstract_with_conclusions(tmp_path: Path) -> None:
    items = {
        str(n): {
            "CONTEXTS": [f"Background {n}. More {n}.", f"Results {n} were clear."],
            "LONG_ANSWER": f"Drug {n} is useful. It was safe.",
            "MESHES": [mesh],
        }
        for n, mesh in ((1, "Zinc"), (2, "Zinc"), (3, "Colds"))
    }
    path = tmp_path / "ori_pqal.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    pairs = distil.pubmedqa_pairs(path)
    kinds = Counter(p["kind"] for p in pairs)
    assert kinds == {
        "abstract section": 6,
        "abstract sentence": 9,
        "negated conclusion": 6,
        "same MeSH term": 2,
        "unrelated": 3,
    }
    own = {f"pubmed:{n}": {f"Drug {n} is useful.", "It was safe."} for n in "123"}
    told = [p for p in pairs if p["kind"] in ("abstract section", "abstract sentence")]
    assert all(p["claim"] in own[p["group"]] for p in told)
    negated = [p for p in pairs if p["kind"] == "negated conclusion"]
    assert all(
        p["claim"] in {f"Drug {p['group'][-1]} is not useful.", "It was not safe."} for p in negated
    )
    related = [p for p in pairs if p["kind"] == "same MeSH term"]
    assert sorted(p["group"] for p in related) == ["pubmed:1", "pubmed:2"]
    assert all(p["claim"] in own["pubmed:1"] | own["pubmed:2"] for p in related)
