"""SimHash and exact-hash deduplication (ARCHITECTURE §3 step 7, §4 independent sources)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lyra.pipelines.extract.dedup import (
    DEFAULT_MAX_DISTANCE,
    duplicate_map,
    exact_text_hash,
    hamming,
    near_duplicate_groups,
    simhash64,
)

MEASLES = (
    "The World Health Organization reported on Tuesday that measles cases rose sharply "
    "across Europe in 2023, with more than 42,000 infections recorded between January and "
    "October. Officials said vaccination coverage had fallen during the pandemic and urged "
    "governments to run catch-up campaigns for children who missed routine doses, warning "
    "that outbreaks would continue without rapid action by health ministries in the region. "
    "Romania and Kazakhstan accounted for the largest share of cases, according to the "
    "agency's regional office, which said that hospital admissions had also increased and "
    "that several deaths had been reported among infants too young to be vaccinated. "
    "Measles is one of the most contagious diseases known, and a coverage of ninety-five "
    "percent with two doses is needed to prevent sustained transmission in a population. "
    "In many countries of the region coverage with the second dose stood below that level "
    "even before the pandemic, and disruptions to primary care services in 2020 and 2021 "
    "widened the gaps. The organization recommended that countries identify communities "
    "with low coverage, strengthen surveillance so that suspected cases are confirmed "
    "quickly in laboratories, and communicate clearly with parents about the safety and "
    "benefits of the vaccine, which has been used for decades."
)
# The same wire story as republished by another outlet: re-wrapped, re-cased, with
# typographic quotes. Tokenisation ignores all of that.
MEASLES_REPUBLISHED = (
    MEASLES.replace("agency's", "agency\u2019s")
    .replace(". ", ".\n\n")
    .replace("The World Health Organization", "THE WORLD HEALTH ORGANIZATION")
)
# The same story lightly edited: a day changed and a word added.
MEASLES_EDITED = MEASLES.replace("Officials said", "Health officials said").replace(
    "Tuesday", "Wednesday"
)
IBUPROFEN = (
    "Ibuprofen and paracetamol are both used to treat pain and fever, but they act through "
    "different mechanisms; ibuprofen inhibits cyclooxygenase enzymes peripherally while "
    "paracetamol acts mainly in the central nervous system, which is why doctors sometimes "
    "alternate the two drugs for children with persistent high temperatures."
)
MEASLES_JA = (
    "世界保健機関は火曜日、2023年に欧州全域で麻疹の症例が急増し、1月から10月までに"
    "4万2千件以上の感染が記録されたと発表した。当局者はパンデミック中に予防接種率が"
    "低下したと述べた。"
)


def fullwidth(text: str) -> str:
    """The full-width form of ASCII text (a common filter bypass that NFKC undoes)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def test_simhash_is_pinned_and_independent_of_python_hash_seed() -> None:
    """Fingerprints are stored in DuckDB, so they must not depend on PYTHONHASHSEED."""
    code = (
        "from lyra.pipelines.extract.dedup import simhash64;"
        "print(simhash64('Aspirin reduces fever in adults.'))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert outputs == {"3494092613505305879"}
    assert simhash64("Aspirin reduces fever in adults.") == 3494092613505305879


def test_simhash_of_empty_text_is_zero() -> None:
    """No words, no shingles: the fingerprint is 0 rather than an error."""
    assert simhash64("") == 0
    assert simhash64("  \n\t ...  ") == 0


def test_simhash_ignores_case_whitespace_and_quote_style() -> None:
    """A republished copy with different wrapping and casing is the same text."""
    assert hamming(simhash64(MEASLES), simhash64(MEASLES_REPUBLISHED)) == 0


def test_simhash_distance_of_edited_and_unrelated_texts() -> None:
    """A lightly edited copy lands within k=3; an unrelated article lands far away."""
    edited = hamming(simhash64(MEASLES), simhash64(MEASLES_EDITED))
    unrelated = hamming(simhash64(MEASLES), simhash64(IBUPROFEN))
    assert edited == 3, f"edited copy differs by {edited} bits"
    assert unrelated == 34, f"unrelated text differs by {unrelated} bits"


def test_simhash_japanese_uses_character_shingles() -> None:
    """Japanese has no spaces; one changed word must not make the text look unrelated."""
    edited = MEASLES_JA.replace("火曜日", "水曜日")
    assert hamming(simhash64(MEASLES_JA), simhash64(edited)) == 3
    assert hamming(simhash64(MEASLES_JA), simhash64(MEASLES)) == 38


def test_hamming_counts_differing_bits() -> None:
    """Boundary values: identical, one bit, all 64 bits."""
    assert hamming(0, 0) == 0
    assert hamming(0b1011, 0b0010) == 2
    assert hamming(0, 2**64 - 1) == 64


def test_exact_text_hash_normalises_whitespace_case_and_width() -> None:
    """Exact duplicates after trivial reformatting share a hash; a changed word does not."""
    base = exact_text_hash("aspirin reduces fever")
    assert exact_text_hash("  Aspirin\n reduces\tFEVER ") == base
    assert exact_text_hash(fullwidth("Aspirin") + " reduces fever") == base
    assert exact_text_hash("aspirin reduces fevers") != base
    assert len(base) == 64


def test_near_duplicate_groups_maps_to_first_seen() -> None:
    """The first of a group is canonical; later near-duplicates point to it."""
    items = [
        ("who", simhash64(MEASLES)),
        ("ibuprofen", simhash64(IBUPROFEN)),
        ("mirror", simhash64(MEASLES_REPUBLISHED)),
        ("edited", simhash64(MEASLES_EDITED)),
    ]
    groups = near_duplicate_groups(items)
    assert groups == {
        "who": "who",
        "ibuprofen": "ibuprofen",
        "mirror": "who",
        "edited": "who",
    }


@pytest.mark.parametrize(
    ("flipped_bits", "grouped"),
    [
        ((0, 20, 40), True),  # distance 3 spread over three bands: still found
        ((0, 1, 2), True),  # distance 3 inside one band
        ((0, 20, 40, 60), False),  # distance 4: one past the default
        ((5, 6, 7, 8), False),
    ],
)
def test_near_duplicate_boundary_at_default_distance(
    flipped_bits: tuple[int, ...], grouped: bool
) -> None:
    """k = 3 is inclusive, and banding finds matches whichever bands the bits fall in."""
    base = 0x0123456789ABCDEF
    other = base
    for bit in flipped_bits:
        other ^= 1 << bit
    groups = near_duplicate_groups([("a", base), ("b", other)])
    assert DEFAULT_MAX_DISTANCE == 3
    assert groups["b"] == ("a" if grouped else "b")


def test_near_duplicate_groups_compare_with_canonical_items_only() -> None:
    """A chain a~b~c with a !~ c does not pull c into a's group (leader clustering)."""
    a = 0
    b = 0b111  # 3 bits from a: joins a
    c = 0b1111  # 1 bit from b but 4 from a: b is not canonical, so c starts a group
    groups = near_duplicate_groups([("a", a), ("b", b), ("c", c)])
    assert hamming(b, c) == 1
    assert groups == {"a": "a", "b": "a", "c": "c"}


def test_near_duplicate_groups_edge_cases() -> None:
    """Empty input, repeated ids, invalid fingerprints and distances."""
    assert near_duplicate_groups([]) == {}
    assert near_duplicate_groups([("x", 1), ("x", 2**63)]) == {"x": "x"}
    assert near_duplicate_groups([("a", 5), ("b", 5)], max_distance=0) == {"a": "a", "b": "a"}
    with pytest.raises(ValueError, match="64-bit"):
        near_duplicate_groups([("neg", -1)])
    with pytest.raises(ValueError, match="64-bit"):
        near_duplicate_groups([("big", 2**64)])
    with pytest.raises(ValueError, match="max_distance"):
        near_duplicate_groups([("a", 1)], max_distance=-1)


def test_duplicate_map_combines_exact_and_near_duplicates() -> None:
    """Fragments across pages: exact copies and near copies both map to the first."""
    groups = duplicate_map(
        [
            (10, MEASLES),
            (11, IBUPROFEN),
            (12, "  " + MEASLES.upper() + " "),
            (13, MEASLES_EDITED),
            (14, MEASLES_JA),
        ]
    )
    assert groups == {10: 10, 11: 11, 12: 10, 13: 10, 14: 14}
