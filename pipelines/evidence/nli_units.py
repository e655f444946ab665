"""The units an amount is counted in (`nli_enough`): spans in days, a time each in
minutes, a dose by weight in milligrams, how often in times a week, lengths in
centimetres, and the occasions and times a count may number."""

from __future__ import annotations

from typing import Final

from lyra.pipelines.evidence.nli_numbers import stem

# Units of a span, in days; of a time each, in minutes.
SPAN_DAYS: Final = {"day": 1.0, "days": 1.0, "night": 1.0, "nights": 1.0, "week": 7.0,
                    "weeks": 7.0, "fortnight": 14.0, "fortnights": 14.0, "month": 30.0,
                    "months": 30.0, "term": 91.0, "terms": 91.0, "year": 365.0,
                    "years": 365.0,
                    # seasons a course is kept up for, one a year ("just the one summer"
                    # against "for a minimum of three consecutive years": decision 0141)
                    "summer": 365.0, "summers": 365.0, "season": 365.0,
                    "seasons": 365.0}  # fmt: skip
EACH_MINUTES: Final = {"minute": 1.0, "minutes": 1.0, "min": 1.0, "mins": 1.0,
                       "hour": 60.0, "hours": 60.0, "hr": 60.0, "hrs": 60.0,
                       # "Thirty seconds on each muscle" (decision 0131); not "a second
                       # course", so plural only
                       "seconds": 1 / 60, "secs": 1 / 60}  # fmt: skip
# A dose by weight, in milligrams: "should take 240 mg of a standardised extract each
# day" against "40mg once a day is plenty" (decision 0132). Digits only ("a gram of
# sense" is none).
DOSE_MG: Final = {"mg": 1.0, "milligram": 1.0, "milligrams": 1.0, "g": 1000.0,
                  "gram": 1000.0, "grams": 1000.0, "mcg": 0.001, "microgram": 0.001,
                  "micrograms": 0.001}  # fmt: skip
# A dose by volume, in millilitres: "at least 1 tablespoon (15 ml)" against "A teaspoon
# in a mug of warm water once a day is plenty" (decision 0139).
VOLUME_ML: Final = {"ml": 1.0, "millilitre": 1.0, "millilitres": 1.0, "teaspoon": 5.0,
                    "teaspoons": 5.0, "tsp": 5.0, "tablespoon": 15.0, "tablespoons": 15.0,
                    "tbsp": 15.0,
                    # a dropper's drop, a twentieth of a millilitre (decision 0140)
                    "drop": 0.05, "drops": 0.05}  # fmt: skip
# A spoonful's size: a heaped or rounded one holds about half again a level one's volume.
SPOON_SIZES: Final = {"heaped": 1.5, "heaping": 1.5, "rounded": 1.5, "generous": 1.5,
                      "level": 1.0, "flat": 1.0}  # fmt: skip
# A spoonful by weight, for a text that weighs what the other spoons out ("Two heaped
# tablespoons of Epsom salt in the tub is plenty" against "at least 300 g of Epsom
# salt", "a heaped teaspoon of the oat powder" against "at least 30 g": decision 0141).
# A powder or a syrup weighs 0.4 (oat flour) to 1.5 (honey) grams a millilitre: the
# heaviest where a text calls the spoonful enough, the lightest where it sets a floor.
SPOON_GRAMS: Final = {"teaspoon": 5.0, "teaspoons": 5.0, "tsp": 5.0, "tablespoon": 15.0,
                      "tablespoons": 15.0, "tbsp": 15.0}  # fmt: skip
_HEAVIEST_G_PER_ML: Final = 1.5
_LIGHTEST_G_PER_ML: Final = 0.4


def spoon_mg(unit: str, *, high: bool) -> float:
    """A level spoonful named by ``unit`` in milligrams: its heaviest or its lightest."""
    return SPOON_GRAMS[unit] * (_HEAVIEST_G_PER_ML if high else _LIGHTEST_G_PER_ML) * 1000.0


# Times a week for "every <word>" and words of their own.
EVERY_WORD: Final = {"day": 7.0, "night": 7.0, "evening": 7.0, "morning": 7.0, "week": 1.0,
                     "fortnight": 0.5, "year": 1 / 52, "spring": 1 / 52, "summer": 1 / 52,
                     "autumn": 1 / 52, "winter": 1 / 52, "fall": 1 / 52,
                     "month": 0.25,
                     # "one 60 ml ORS ice lolly every hour" (decision 0146)
                     "hour": 168.0,
                     # a school term, three a year (decision 0144)
                     "term": 3 / 52}  # fmt: skip
OFTEN_WORDS: Final = {"daily": 7.0, "nightly": 7.0, "weekly": 1.0, "fortnightly": 0.5,
                      "monthly": 0.25}  # fmt: skip
# Times a week for "every <number> <unit>": "every 48 hours", "every 3 days".
EVERY_UNIT: Final = {"minute": 10080.0, "minutes": 10080.0, "mins": 10080.0,
                     "hour": 168.0, "hours": 168.0, "day": 7.0, "days": 7.0, "night": 7.0,
                     "nights": 7.0, "week": 1.0, "weeks": 1.0, "fortnight": 0.5,
                     "month": 0.25, "months": 0.25, "year": 1 / 52,
                     "years": 1 / 52}  # fmt: skip
# "once", "twice" and counts of vague size before "a week": "a few nights a week".
ONCE_TWICE: Final = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
VAGUE: Final = {"few": 3.0, "couple": 2.0, "several": 4.0}
# What a count of times a week may count: "3 times", "a few nights", "2 sessions".
TIMES_NOUNS: Final = frozenset({"times", "time", "nights", "days", "sessions", "evenings",
                                "mornings", "classes", "visits"})  # fmt: skip
# Occasions a count may number too, one word of kind between ("4 consecutive milkings
# each week", "one milking a week", "2 short walks a day"); "sit-down" is read in its
# three tokens (`_occasion_at`).
OCCASIONS: Final = frozenset({"session", "class", "visit", "treatment", "treatments",
                              "application", "applications", "dose", "doses", "walk",
                              "walks", "bath", "baths", "wash", "washes", "rinse", "rinses",
                              "lesson", "lessons", "round", "rounds", "milking", "milkings",
                              "workout", "workouts", "swim", "swims", "feed", "feeds",
                              "shift", "shifts", "collection", "collections",
                              # a contact of a case worker's ("two contacts per week",
                              # "a phone call every other week": decision 0132)
                              "contact", "contacts", "call", "calls", "check-in",
                              # a part of the day ("one morning a week": decision 0132)
                              "morning", "mornings", "evening", "evenings", "afternoon",
                              "afternoons",
                              "appointment", "appointments", "consultation",
                              "consultations", "meeting", "meetings",
                              # "one draft knocked out in a single half-hour chat" (0143)
                              "chat", "chats",
                              # coats of a finish ("two full coats", "one decent coat"),
                              # quizzes in class (decision 0130)
                              "coat", "coats", "layer", "layers", "quiz", "quizzes",
                              # a service's runs ("one bus an hour": decision 0129)
                              "bus", "buses", "train", "trains", "departure",
                              "departures", "run", "runs", "trip", "trips",
                              # a go, a pass of a roller ("one go with the roller": 0141)
                              "go", "goes", "pass", "passes",
                              # meals ("three free lunches a week is plenty": 0141)
                              "meal", "meals", "lunch", "lunches", "breakfast",
                              "breakfasts", "dinner", "dinners", "supper", "suppers",
                              # a short break in lessons ("two active breaks every school
                              # day": decision 0145)
                              "break", "breaks"})  # fmt: skip
PER_WORDS: Final = frozenset({"a", "an", "per", "each", "every"})
PER_UNIT: Final = {"hour": 168.0, "day": 7.0, "night": 7.0, "week": 1.0, "fortnight": 0.5,
                   "month": 0.25, "year": 1 / 52,
                   # a school term of 13 weeks ("a couple of outdoor lessons a term": 0140)
                   "term": 1 / 13,
                   # a season comes once a year ("twice each summer": decision 0141)
                   "summer": 1 / 52, "winter": 1 / 52, "season": 1 / 52}  # fmt: skip

# Units of length, in centimetres (`nli_lengths`).
LENGTH_CM: Final = {"cm": 1.0, "centimetre": 1.0, "centimetres": 1.0, "centimeter": 1.0,
                    "centimeters": 1.0, "mm": 0.1, "millimetre": 0.1, "millimetres": 0.1,
                    "inch": 2.54, "inches": 2.54, "foot": 30.48, "feet": 30.48,
                    "m": 100.0, "metre": 100.0, "metres": 100.0}  # fmt: skip
# Units of area, in square metres (`nli_lengths.per_area`): a unit of one word, and the
# unit of length after "square".
AREA_M2: Final = {"m2": 1.0, "hectare": 1e4, "hectares": 1e4, "ha": 1e4,
                  "acre": 4046.86, "acres": 4046.86}  # fmt: skip
SQUARED_M2: Final = {"metre": 1.0, "metres": 1.0, "meter": 1.0, "meters": 1.0, "m": 1.0,
                     "foot": 0.0929, "feet": 0.0929, "yard": 0.8361,
                     "yards": 0.8361}  # fmt: skip


# A unit by its other names, on `nli_numbers.stem` forms ("15 kilos a hectare" against "at
# least 40 kg ... per hectare": decision 0137).
_UNIT_NAMES: Final = {"kilo": "kg", "kilogram": "kg", "kgs": "kg", "gram": "g",
                      "litr": "l", "liter": "l", "millilitr": "ml", "milliliter": "ml",
                      "tonn": "t",
                      # "40 km per week" and "Ten kilometres a week" (decision 0143)
                      "kilometr": "km", "kilometer": "km"}  # fmt: skip


def unit_key(word: str) -> str:
    """One key for a unit however it is named (`_UNIT_NAMES`)."""
    stemmed = stem(word)
    return _UNIT_NAMES.get(stemmed, stemmed)
