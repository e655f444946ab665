"""Advice a claim may be: a dose, a contraindication, the reader's own case, a
practitioner's rule (issue 12; decisions 0097, 0099, 0103, 0105).

The claim rules (``claims.py``) drop advice to the reader ("Ask your pharmacist",
"Look for ..."), but some advice is the finding a facet needs and a source can support
or refute: how a medicine or a device is used (a dose, a time, a rate), who must not use
it, what the reader may do in a case the sentence names, and a practitioner's own rule
for the cases it names. ``main_clause`` finds what follows an opening condition, where
such an instruction often starts.
"""

from __future__ import annotations

import re
from typing import Final

from lyra.pipelines.evidence.leftovers import MONTHS_PATTERN, NUMBER_WORDS

# An instruction that states a dose or a time ("Take the antibiotic at least 2 hours
# before zinc", "Stop taking the lozenges after 7 days", "Take 2 tablets every 4 hours",
# "take the probiotic at least two hours after your antibiotic dose") is how a medicine
# is used, the finding the dosage facet needs and a label or another source can
# contradict, not advice to the reader.
DOSING_INSTRUCTION: Final = re.compile(
    # not an offer ("Use our app for 30 days free"); a guideline's opening "Offer
    # atorvastatin 20 mg once a day" is a dose (decision 0105)
    r"^(?!.*\b(?:our|free|trial|subscri\w*|orders?)\b)(?!.+\boffers?\b)"
    # what to try for ("Try to wear your hearing aids at least 8 hours a day")
    r"(?:(?:try|aim|remember|be\s+sure)\s+to\s+)?"
    r"(?:take|stop|start|use|give|continue|repeat|wait|dissolve|apply|chew|swallow|"
    # a device's or a habit's use ("Wear the aids for 8 hours a day", "Run the purifier
    # for 30 minutes before bedtime", "Aim for 150 minutes a week": decision 0103)
    r"wear|run|keep|stand|walk|drink|eat|limit|aim\s+for|"
    # a practice's rate or timing ("Sow the blend between mid-August and the end of
    # September", "drill cereal rye at 60 kg/ha"; decision 0099)
    r"sow|plant|drill|spread|spray|graze|mow|feed|fit|replace|kill|terminate|offer|prescribe|"
    # a setting ("Set the heating to come on about 30 minutes before you get up")
    r"set|turn|program|schedule|lower|"
    # a size to choose ("choose a blanket that weighs around 10 percent of your body
    # weight": decision 0113)
    r"choose|pick|select)\b"
    # a size and at most two words before its unit ("one small glass", "2 large cups")
    rf"(?:.*?\b(?:\d+(?:[.,]\d+)?|one|{NUMBER_WORDS})(?:\s*(?:to|or|-|\u2013)\s*\d+(?:[.,]\d+)?)?"
    r"(?:\s+(?:small|large|full|level|heaped|standard|big))?\s*"
    r"(?:mg|mcg|\u00b5g|g|kg|iu|ml|units?|tablets?|capsules?|lozenges?|drops?|doses?|hours?|"
    r"days?|weeks?|months?|years?|minutes?|ha|hectares?|acres?|cm|mm|litres?|liters?|"
    r"portions?|servings?|cups?|glass(?:es)?|times?|sessions?|steps?|"
    r"degrees?|\u00b0\s?[cf]|(?:%|percent|per\s+cent)\s+of\s+(?:your\s+|their\s+|the\s+)?"
    r"body\s*weight)(?!\w)"
    # with a meal or by a date ("Take with a meal containing some fat")
    r"|(?:\s+[\w-]+){0,5}?\s+(?:with|after|before|between|by|in)\s+(?:(?:a|the|your)\s+)?"
    rf"(?:meals?|food|breakfast|lunch|dinner|supper|bedtime|{MONTHS_PATTERN}|mid-\w+|"
    r"(?:first|second|third|last|early|late)\s+(?:week|half|days?)))",
    re.IGNORECASE,
)
# A prohibition that names who or what it is for is a contraindication, the finding a
# reader of the population and safety facets needs ("Do not take melatonin if you have
# epilepsy", "Never give aspirin to children under 16", "Do not use Saccharomyces
# boulardii in people with a central venous catheter"), not advice: a source can
# support or refute it. A bare limit ("Never take more than 10 mg") stays advice.
CONTRAINDICATION: Final = re.compile(
    # a guideline's "Do not offer arthroscopic partial meniscectomy as first-line
    # treatment for ..." speaks to prescribers, never to the reader (decision 0099)
    r"^(?:(?:do not|don't|never)\s+(?:routinely\s+)?(?:offer|prescribe)\b"
    # a clinician's own rule ("I would not start sleep restriction in anyone who has had
    # a seizure": decision 0103)
    r"|(?:do not|don't|never|you (?:should|must) (?:not|never)|"
    r"I(?:\s+would|'d|\s+will)?\s+(?:not|never))\s+(?:take|use|give|combine|"
    # an exercise or a habit in a case ("Do not do pelvic floor exercises while the
    # catheter is still in": decision 0120)
    r"mix|prescribe|offer|recommend|start|do|begin|perform|wear|drink|eat|lift)\b"
    r"(?!\s+more\b).*\b(?:if you (?:have|are|take|had|were)|"
    r"while (?:you (?:are|have|still)|(?:the|your|a|an) [\w-]+(?: [\w-]+)? (?:is|are) still)|"
    # "do not fit them on children under three years old" (decision 0110)
    r"(?:to|in|for|on) (?:children|people|patients|women|men|adults|infants|babies|anyone)|"
    r"during pregnancy|while (?:pregnant|breastfeeding)|with (?:alcohol|warfarin|"
    r"[a-z]+(?:ine|ol|am|ide|ate|in))\b)"
    # a guideline's recommendation to prescribers for the people it names ("Consider an
    # intra-articular corticosteroid injection as a short-term adjunct for people with
    # moderate to severe knee pain") and its limit on what they give ("do not give more
    # than three corticosteroid injections into the same knee in any 12-month period";
    # decision 0107)
    r"|(?:consider|offer)\s+(?:an?\s+|the\s+)?[\w-]+(?:\s+[\w-]+){0,9}?\s+(?:for|to)\s+"
    r"(?:people|patients|adults|children|women|men|anyone|those|older|younger)\b"
    r"|(?:do not|don't|never)\s+(?:give|offer|prescribe|administer|inject)\s+more\s+than\s+"
    rf"(?:\d+|one|{NUMBER_WORDS})\b)",
    re.IGNORECASE,
)


# An opening condition or time ("If the pain is getting worse after day three, give us a
# call"): what follows its comma is the sentence's main clause.
_OPENING_CLAUSE = re.compile(
    r"^(?:(?:if|when|whenever|unless|once|after|before|until|while)\b[^,]{2,150}"
    r"|in the meantime|meanwhile|for now|until then"
    # what an instruction is for ("For best performance, replace the filter ...")
    # ("For the full recovery effect, wear your tights continuously for 24 hours": 0113)
    r"|for (?:the )?(?:best|optimal|optimum|maximum|full|greatest|biggest)(?: [a-z-]+)? "
    r"(?:results?|performance|effect|protection|benefits?)"
    r"|to get the (?:most|best) (?:out of|from) [^,]{2,60}"
    # whom a guideline's instruction is for ("For people over 75 starting a statin, offer
    # atorvastatin 20 mg once a day": decision 0105)
    r"|for (?:people|adults|children|patients|women|men|anyone|those)\b[^,]{2,120}"
    r"),\s*(?:then\s+)?",
    re.IGNORECASE,
)


def main_clause(text: str) -> str:
    """What follows an opening condition's comma ("" when `text` opens with none)."""
    match = _OPENING_CLAUSE.match(text)
    return text[match.end() :] if match else ""


# Whose case a sentence speaks to (decision 0097). A caution for the reader's own case
# ("If you have had a heart attack in the last 4 weeks, speak to your GP before using
# nicotine patches", "If you are breastfeeding, it is best to hold off on patches",
# "Talk to us before using X if you are pregnant") or what the reader may do in it
# ("You can use nicotine patches while you are breastfeeding", "you can use a patch and
# a mouth spray at the same time") names who may use what, and how: the finding the
# population and dosage facets need, which a source can support or refute.
_READERS_OWN_CASE = re.compile(
    r"^(?:if|when|while)\s+(?:you|you're|you've)\b[^,]{2,150},\s*", re.IGNORECASE
)
_ASK_FIRST = (
    r"(?:speak|talk|check)\s+(?:to|with)\s+(?:\w+\s+){0,3}(?:GP|doctor|pharmacist|midwife|"
    r"nurse|dentist|adviser|advisor|specialist|prescriber|health visitor|us|team)\b"
    r"[^.]*\bbefore\b"
)
_CAUTION = re.compile(
    rf"^(?:{_ASK_FIRST}|it(?:'s| is)\s+(?:best|better|safest|safer|wise|advisable|"
    r"important)\s+(?:not\s+)?to\b|do not\b|don't\b|never\b|avoid\b|skip\b|hold off\b|"
    r"you\s+(?:should|must)\s+(?:not|never)\b|you\s+shouldn't\b|"
    r"steer clear\b|stay away\b)",
    re.IGNORECASE,
)
_CAUTION_FOR_A_CASE = re.compile(
    rf"^(?:{_ASK_FIRST}|(?:it(?:['\u2019]s|\s+is)\s+)?(?:well\s+)?worth\s+(?:discussing|considering|"
    r"trying|asking\s+about|talking\s+about)\b)"
    r".*\bif\s+you(?:'re|'ve)?\s+(?:are|have|had|take|were|\w+ing)\b",
    re.IGNORECASE,
)
_PERMISSION = re.compile(
    r"(?:^|,\s*)you\s+can\s+(?:safely\s+|still\s+)?(?:use|take|have|keep using|carry on "
    r"using|continue)\b.*\b(?:while|if|when|during|at the same time|together|alongside)\b",
    re.IGNORECASE,
)


# A practitioner's own rule for the cases it names ("I always recommend camera-enforced
# filters rather than planters on any route the fire service relies on"): the
# recommendation, not the writer's story (decision 0103). With no case named ("I always
# suggest patches or gum first") it stays the writer's story.
PRACTITIONER_ADVISES: Final = re.compile(
    r"^I(?:\s+would|'d)?(?:\s+(?:always|usually|generally|strongly|now|still|routinely|"
    r"normally|tend\s+to))*\s+(?:recommend|advise|suggest)\b(?!\s+(?:you|that\s+you)\b)"
    r".*?\b(?:for|in|on|to|with)\s+(?:any|anyone|anybody|everyone|people|patients|clients|"
    r"children|adults|women|men|those|all|every|most)\b"
    # where a speaker would start a group, a dose ("For most adults I'd start somewhere
    # between 5 and 7 percent of body weight and only go heavier if ...": decision 0113)
    r"|^[\"\u201c]?(?:[Ff]or\s+(?:most\s+|many\s+|all\s+)?[a-z-]+(?:\s+[a-z-]+)?,?\s+)?"
    r"I(?:\s+would|'d)\s+(?:usually\s+|generally\s+|always\s+)?(?:start|begin|aim)\b"
    r"(?:\s+\w+){0,2}?\s+(?:at|with|on|between|around|from)\s+(?:about\s+|around\s+)?\d"
)


# A practitioner's own practice, as a rule of theirs (decision 0123): the dose they give
# for the cases named or out of habit ("So for anyone with moderate or severe croup, I
# still give 0.6 milligrams per kilo of dexamethasone"), or what they ask of their
# patients ("These days, I don't ask my AF patients to give up coffee"). A dose with
# neither a case nor a habit ("I give my son 5 ml every night") stays the writer's story.
_DOSE_UNIT = (
    r"(?:mg|mcg|\u00b5g|g|iu|ml|milligrams?|micrograms?|grams?|millilitres?|milliliters?|"
    r"units?|tablets?|capsules?|puffs?|drops?|sprays?)"
)
_HABIT = r"(?:still|always|usually|generally|routinely|normally|typically|now|tend\s+to)"
_GIVES = (
    r"(?:give|prescribe|use|start\s+(?:[\w-]+\s+){0,2}?on|put\s+(?:[\w-]+\s+){0,2}?on)\s+"
    r"(?:[\w-]+\s+){0,3}?(?:about\s+|around\s+|up\s+to\s+)?\d+(?:\.\d+)?\s*" + _DOSE_UNIT + r"\b"
)
# Enough, said of an amount: "is plenty", "gives me plenty of time".
_PLENTY = (
    r"(?:(?:is|are|was|were|'s)\s+(?:plenty|enough|sufficient|ample)|(?:gives?|gave|leaves?|"
    r"left)\s+(?:me|us)\s+(?:plenty\s+of|enough)\s+time)"
)
# The people or cases a practitioner sees: "most of my patients", "these cases", "most of
# the herds I go on to", "the older people I see".
_SEEN_NOUNS = (
    r"(?:patients|clients|parents|families|members|customers|pupils|students|cases|jobs|"
    r"people|children|kids|adults|herds|farms|flocks|animals|dogs|horses|schools|classes|"
    r"homes|households|sites|gardens)"
)
_THOSE_I_SEE = (
    r"(?:(?:most|many|all|nearly\s+all|almost\s+all)\s+(?:of\s+)?)?(?:(?:my|our|these|those)"
    rf"\s+(?:[\w-]+\s+){{0,2}}?{_SEEN_NOUNS}\b|the\s+(?:[\w-]+\s+){{0,2}}?{_SEEN_NOUNS}\s+"
    r"(?:I|we)\s+(?:see|treat|visit|teach|advise|support|work\s+with|look\s+after|"
    r"care\s+for|deal\s+with|go\s+(?:on\s+|out\s+)?to)\b)"
)
PRACTITIONER_PRACTICE: Final = re.compile(
    # the cases named before it
    r"^(?:(?:and|but|so)\s+)?(?:for|in)\s+(?:any|anyone|anybody|everyone|most|all|every|"
    r"people|patients|children|adults|women|men|those|babies|infants|kids)\b[^,.;]{0,80},\s*"
    rf"I(?:\s+(?:would|'d))?(?:\s+{_HABIT})*\s+{_GIVES}"
    # out of habit
    rf"|^(?:[^,.;]{{0,40}},\s*)?I(?:\s+(?:would|'d))?(?:\s+{_HABIT})+\s+{_GIVES}"
    # what they ask of their patients
    r"|^(?:[^,.;]{0,40},\s*)?I(?:\s+(?:don't|do\s+not|never|no\s+longer|always|usually|now|"
    r"still|routinely|generally))*\s+(?:ask|tell|advise|encourage|urge|get)\s+(?:my|our)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:patients|clients|parents|families|members|customers)\s+to\b"
    # the least they find works for the people or cases they see: "Weekly changes are
    # plenty for most of my patients", "getting the file the morning of the hearing gives
    # me plenty of time for most of these cases" (decision 0127)
    # "Two per cent, one milking a week, and that's plenty for most of the herds I go on
    # to", "For most of the older people I see, five minutes once a day ... is plenty"
    rf"|^(?:[^,.;]{{0,40}},\s*){{0,2}}[^,.;]{{1,80}}?\b{_PLENTY}\s+for\s+{_THOSE_I_SEE}"
    rf"|^for\s+{_THOSE_I_SEE}\s*,\s*[^.;]{{1,120}}?\b(?:is|are|was|were|'s)\s+(?:plenty|"
    r"enough|sufficient|ample)\b"
    # a rule of the writer's own institution: "In our force the camera goes off when we
    # take a first account from a rape victim unless she or he agrees to be filmed"
    # (decision 0127)
    r"|^in\s+(?:our|my)\s+(?:force|unit|ward|practice|clinic|service|trust|school|team|"
    r"department|hospital|court|surgery|council)\b,?\s+[^.;]{0,120}?\b(?:when|whenever|"
    r"unless|only|always|never)\b",
    re.IGNORECASE,
)
_CLINICIAN = (
    r"(?:doctor|gp|cardiologist|consultant|specialist|physio|physiotherapist|nurse|midwife|"
    r"pharmacist|dentist|surgeon|paediatrician|pediatrician|vet|dietitian|dietician|"
    r"neurologist|rheumatologist|dermatologist|oncologist|urologist|gynaecologist|"
    r"health\s+visitor|optician|podiatrist)"
)
# A clinician's advice the writer reports for a case it names ("when I was first
# diagnosed my cardiologist told me that with a diagnosed arrhythmia I should cut out
# caffeine completely", "my vascular nurse said I can't start the supervised walking
# group until the ulcer on my heel has healed"): the advice, not the writer's story
# (decision 0123). Without a case ("My GP said I should rest for a week") it stays the
# writer's story (decision 0105).
_OBLIGED = (
    r"(?:should|shouldn't|must|mustn't|ought\s+to|need\s+to|needed\s+to|have\s+to|had\s+to|"
    r"would\s+have\s+to|can't|cannot|could\s+not|couldn't|wasn't\s+to|weren't\s+to)"
)
REPORTED_ADVICE: Final = re.compile(
    rf"\b(?:my|our|her|his|their|the)\s+(?:[\w-]+\s+)?{_CLINICIAN}\s+(?:(?:told|advised|warned|"
    rf"instructed)\s+(?:me|us|him|her|them)\s+(?:to\b|(?:that\s+)?[^.;]{{0,80}}?\b{_OBLIGED}\b)"
    # "my vascular nurse said I can't start the supervised walking group until ..."
    rf"|(?:said|says)\s+(?:that\s+)?(?:I|we|he|she|they)\s+{_OBLIGED}\b"
    # "the stoma nurse said gum was a no-go for me because it just glues itself to the
    # plate" (decision 0124)
    r"|(?:said|says)\s+(?:that\s+)?[^.;]{1,60}?\b(?:was|is|were|are)\s+(?:a\s+)?(?:no-go|"
    r"off[-\s]limits|out\s+of\s+the\s+question|not\s+(?:safe|suitable|advisable|an\s+option))"
    r"\s+for\s+(?:me|us|him|her|them)\b"
    # a clinician's refusal in a case ("My GP was very upfront: she wouldn't inject my
    # shoulder while my HbA1c was over 75": decision 0125)
    r"|(?:[^.;:]{0,30}:\s*|said\s+(?:that\s+)?)?(?:she|he|they)?\s*(?:wouldn't|won't|would\s+not|"
    r"will\s+not|refused\s+to|declined\s+to)\s+(?:inject|operate|prescribe|give|treat|start|"
    r"offer|refer|put|do|let)\b)",
    re.IGNORECASE,
)
_A_CASE = re.compile(r"\b(?:with|until|unless|if|because|since|while|after|before|given)\s")


def reports_advice(text: str) -> bool:
    """True when ``text`` reports a clinician's advice for a case it names
    (`REPORTED_ADVICE`)."""
    advice = REPORTED_ADVICE.search(text)
    return advice is not None and _A_CASE.search(text, advice.start()) is not None


# what a treatment does or not even in the reader's case ("it will not affect your
# blood sugar, even if you have diabetes": decision 0107)
_EVEN_IN_A_CASE = re.compile(
    r",\s*even\s+(?:if|when)\s+you(?:'re|'ve)?\s+(?:are|have|had|take|were)\b", re.IGNORECASE
)


def speaks_to_a_case(text: str) -> bool:
    """True when `text` cautions, reassures or permits the reader in a case it names."""
    opening = _READERS_OWN_CASE.match(text)
    if opening and _CAUTION.match(text[opening.end() :]):
        return True
    return bool(
        _CAUTION_FOR_A_CASE.match(text) or _PERMISSION.search(text) or _EVEN_IN_A_CASE.search(text)
    )
