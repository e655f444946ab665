"""The antonym axes of the heuristic stance judge (`nli_heuristic`): word lists only.

Each axis folds words of opposite sign onto one key, so that "X increases Y" and "X
reduces Y" talk about the same thing with opposite sign; `nli_heuristic` stems them at
import and adds one axis per adjective and its prefixed opposite.
"""

from __future__ import annotations

# Axis name → (words with sign +1, words with sign -1); stemmed at import.
ANTONYM_AXES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "amount": (
        (
            "increase",
            "increases",
            "raise",
            "raises",
            "rise",
            "rises",
            "higher",
            "more",
            "gain",
            "gains",
            "greater",
            "elevated",
            "double",
            "doubles",
            "triple",
            "triples",
            "boost",
            "boosts",
            "grow",
            "grows",
            "grew",
            "grown",
            # Past forms a stem does not reach ("rose", "fell" are how figures move).
            "rose",
            "risen",
            "climb",
            "climbs",
            "climbed",
            "soar",
            "soars",
            "soared",
        ),
        (
            "decrease",
            "decreases",
            "reduce",
            "reduces",
            "lower",
            "lowers",
            "fall",
            "falls",
            "less",
            "loss",
            "losses",
            "fewer",
            "diminish",
            "diminishes",
            "halve",
            "halves",
            "cut",
            "cuts",
            "shrink",
            "shrinks",
            "shrank",
            "shrunk",
            "decline",
            "declines",
            "declined",
            "fell",
            "fallen",
            "drop",
            "drops",
            "dropped",
            "plunge",
            "plunges",
            "plunged",
        ),
    ),
    "quality": (
        ("improve", "improves", "better"),
        ("worsen", "worsens", "impair", "impairs", "worse"),
    ),
    "performance": (
        ("outperform", "outperforms", "outperformed"),
        ("underperform", "underperforms", "underperformed"),
    ),
    "strength": (
        ("strengthen", "strengthens", "strengthened", "stronger"),
        ("weaken", "weakens", "weakened", "weaker"),
    ),
    "width": (
        ("widen", "widens", "widened", "wider"),
        ("narrow", "narrows", "narrowed", "narrower"),
    ),
    # "well tolerated" against "poorly tolerated" (see _axis: before a participle only)
    "manner": (("well",), ("poorly",)),
    "efficacy": (
        ("effective", "efficacious", "useful", "helpful", "cure", "cures", "cured"),
        ("ineffective", "useless", "unhelpful", "futile"),
    ),
    "safety": (("safe", "harmless"), ("unsafe", "dangerous", "hazardous")),
    "benefit": (("benefit", "beneficial", "protective", "protects"), ("harm", "harmful", "harms")),
    "sign": (("positive",), ("negative",)),
    "association": (("associated", "linked"), ("unassociated", "unlinked")),
    # how often: "side effects are common" against "side effects are rare"
    "frequency": (
        ("common", "commonly", "frequent", "frequently", "often", "usually"),
        ("rare", "rarely", "uncommon", "uncommonly", "infrequent", "infrequently", "seldom"),
    ),
    "causation": (("cause", "causes", "trigger", "triggers"), ("prevent", "prevents")),
    "duration": (("lengthen", "lengthens", "prolong", "prolongs"), ("shorten", "shortens")),
    "speed": (
        ("accelerate", "accelerates", "hasten", "hastens", "faster", "quicker"),
        ("slow", "slows", "slower"),
    ),
    # "more expensive" against "cheaper" ("less expensive" has no direction: see _axis)
    "cost": (
        ("expensive", "costly", "costlier", "pricier", "dearer"),
        ("cheap", "cheaper", "cheapest", "inexpensive"),
    ),
    # what a rule or a law lets people do: "the law allows X" against "the law bans X"
    "permission": (
        (
            "allow",
            "allows",
            "allowed",
            "permit",
            "permits",
            "permitted",
            "legalise",
            "legalises",
            "legalised",
            "legalize",
            "legalizes",
            "legalized",
        ),
        (
            "prohibit",
            "prohibits",
            "ban",
            "bans",
            "banned",
            "forbid",
            "forbids",
            "forbidden",
            "outlaw",
            "outlaws",
            "outlawed",
        ),
    ),
    # what a higher court did with a decision
    "ruling": (
        ("uphold", "upholds", "upheld", "affirm", "affirms", "affirmed"),
        (
            "overturn",
            "overturns",
            "overturned",
            "overrule",
            "overrules",
            "overruled",
            "quash",
            "quashes",
            "quashed",
            "strike",
            "strikes",
            "struck",
            "reversed",
        ),
    ),
    "verdict": (
        ("guilty", "convicted"),
        ("acquitted", "acquit", "acquits", "innocent", "exonerated"),
    ),
    # how many: "many patients recovered" against "few patients recovered" ("a few" is
    # some, see _axis; "most" is left out: it is mostly a superlative)
    "proportion": (("many", "majority"), ("few", "minority")),
    "approval": (
        (
            "approve",
            "approves",
            "approved",
            "accept",
            "accepts",
            "accepted",
            "grant",
            "grants",
            "granted",
        ),
        (
            "reject",
            "rejects",
            "rejected",
            "deny",
            "denies",
            "denied",
            "refuse",
            "refuses",
            "refused",
        ),
    ),
}
# An adjective and its prefixed opposite, each pair an axis of its own ("valid" against
# "invalid"; "legal" is not the opposite of "invalid").
PREFIXED_OPPOSITES = (
    ("valid", "invalid"),
    ("legal", "illegal"),
    ("lawful", "unlawful"),
    ("enforceable", "unenforceable"),
    ("constitutional", "unconstitutional"),
    ("permissible", "impermissible"),
    ("accurate", "inaccurate"),
    ("consistent", "inconsistent"),
    ("sufficient", "insufficient"),
    ("adequate", "inadequate"),
    ("reliable", "unreliable"),
    ("appropriate", "inappropriate"),
    ("successful", "unsuccessful"),
    ("significant", "insignificant"),
    ("correct", "incorrect"),
)
