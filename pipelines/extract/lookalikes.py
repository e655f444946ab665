"""Letters that look like others: folded to the Latin letters they show.

Cyrillic and Greek letters that look like Latin ones, Armenian letters, IPA and phonetic
small capitals, and enclosed capitals NFKC leaves alone. The injection guard
(`injection.py`) folds them inside words that also hold Latin letters, and its patterns
(`instruction_patterns.py`) are compiled folded the same way. Every map is one character
for one, so folding keeps every offset.
"""

from __future__ import annotations

from typing import Final

# Cyrillic and Greek letters that look like Latin ones (Unicode confusables.txt, the
# single-letter cases), as escapes: in a table of look-alikes, the glyphs cannot be
# told apart. A one-to-one map, so folding keeps every offset.
_LOOKALIKES: Final = (
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422"
    "\u0425\u0423\u0406\u0408\u0405\u04ae\u04c0\u0500\u051a\u051c"
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455"
    "\u04bb\u0501\u051b\u051d\u04cf\u04af\u0391\u0392\u0395\u0396"
    "\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
    "\u03b1\u03b9\u03ba\u03bd\u03bf\u03c1\u03c5\u03c7"
)
_LATIN_FOR: Final = "ABEKMHOPCTXYIJSYIDQWaeopcyxijshdqwlyABEZHIKMNOPTYXaikvopux"
# Armenian letters shaped like Latin ones, and the small capitals of IPA and phonetic
# extensions ("ɪɢɴᴏʀᴇ"), folded for matching only.
_MORE_LOOKALIKES: Final = (
    "\u0585\u057d\u0570\u0578\u0566\u0581\u0575"
    "\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f"
    "\u1d0d\u0274\u1d0f\u1d18\u01eb\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f\u1d22"
    "\u0261"
)
_MORE_LATIN: Final = "ouhnqgjabcdefghijklmnopqrstuvwyzg"
FOLD_ALL: Final = str.maketrans(_LOOKALIKES + _MORE_LOOKALIKES, _LATIN_FOR + _MORE_LATIN)
# Negative circled and negative squared capitals (U+1F150.., U+1F170..) have no NFKC
# form: they are read as the letters they show ("🅸🅶🅽🅾🆁🅴" is "IGNORE").
ENCLOSED_LETTERS: Final = {
    first + i: chr(ord("A") + i) for first in (0x1F150, 0x1F170) for i in range(26)
}


def fold_confusables(text: str) -> str:
    """Every Cyrillic or Greek look-alike as its Latin letter (same length as `text`)."""
    return text.translate(FOLD_ALL)
