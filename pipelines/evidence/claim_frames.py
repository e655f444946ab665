"""A sentence's frame and the statement inside it, for the claim rules (``claims.py``).

Issue 12 (decisions 0091 onwards). Writers rarely state a finding bare: a structured
abstract puts a label before it ("RESULTS:"), a news report a dateline, a transcript its
speaker; a forum poster frames it as their own experience ("I was told that ..."), a
reviewer as a verdict ("no better than placebo"), a journalist as what an expert said.
This module reads those frames:

- :func:`without_lead_label`: the sentence after its label or dateline;
- :func:`own_statement`, :func:`stated_part`: what a writer's or speaker's frame states
  ("I'm completely convinced that ...": the part after "that");
- :data:`VERDICT`, :data:`EXPERT_QUOTED`, :data:`CHANGED_FROM_TO`: the shapes of a verdict,
  a quoted expert and a change from one value to another, which make a sentence a claim;
- :func:`states_preference`, :func:`states_a_value`: a reader's preference (no claim) and a
  labelled value (a claim).

``leftovers`` keeps what pages leave between findings and the English lexicon.
"""

from __future__ import annotations

import re
from typing import Final

from lyra.pipelines.evidence.leftovers import NUMBER_WORDS, title_case

# An FAQ's label before a question or its answer ("A: Fires are rarer in ..."), a
# structured abstract's before a section ("RESULTS: Among 12,345 participants ..."), and
# a news report's dateline ("PHILADELPHIA \u2014 ", "NEW YORK, March 3 \u2014 ").
_LEAD_LABEL = re.compile(
    r"^(?:Q|A|Question|Answer|(?i:(?:main |key )?(?:results?|findings)|conclusions?|facts?|"
    r"interpretation|bottom line|background|methods?|design))\s*[:\u2014]\s*(?=\S)"
    # a notice's label before a sentence ("Important: If you currently receive ...")
    r"|^(?i:important|note|warning|caution):\s+(?=[A-Z\"\u201c])"
    r"|^[A-Z][A-Z .'-]+(?:, [A-Z][a-z]+\.? \d{1,2})? \u2014 (?=\S)"
    # a speaker in a transcript ("DR. PATEL: Intermittent fasting leads to ...")
    r"|^(?:[A-Z][A-Z'.-]*\s){0,3}[A-Z][A-Z'.-]+:\s+(?=[A-Z\"\u201c])"
)


# A transcript's timestamp ("[11:38] DR. OKAFOR: ...") and a guideline's paragraph
# number ("1.3.2 Do not use ..."; not a figure: "2.5 Million people ...") before it.
_TIMESTAMP = re.compile(
    # or a pros-and-cons list's tick or cross ("\u2717 Full-face helmets trap heat ...")
    r"^(?:[\[(]?(?:\d{1,2}:)?\d{1,2}:\d{2}[\])]?|[\u2713\u2714\u2717\u2718\u2611\u2612\u2705\u274c])"
    r"\s+(?=\S)"
)
_PARAGRAPH_NUMBER = re.compile(
    r"^\d{1,2}(?:\.\d{1,2}){1,3}\.?\s+(?=[A-Z][a-z])(?!(?:Million|Billion|Thousand|Per)\b)"
)


def without_lead_label(sentence: str) -> str:
    """``sentence`` without a label or dateline before what it states (decision 0090),
    nor a timestamp or a paragraph number (decision 0098)."""
    sentence = _PARAGRAPH_NUMBER.sub("", _TIMESTAMP.sub("", sentence, count=1), count=1)
    return _LEAD_LABEL.sub("", sentence)


# A condition on the reader's own case after a statement ("Paracetamol is the first
# choice of painkiller if you are pregnant", "... raises the risk of bleeding if you
# take warfarin"): it names whom the statement is about; it advises no one.
_READERS_CASE = re.compile(
    r"(?<=\w)\s+(?:if|unless|when|while|once)\s+(?:you|you're|you've|your)\b.*$",
    re.IGNORECASE | re.DOTALL,
)
# Which option comes first: a recommendation in other words.
_PREFERENCE = re.compile(
    r"\b(?:first[- ](?:choice|line)|(?:treatment|drug) of choice|preferred (?:option|"
    r"choice|treatment|drug|medicine|painkiller))\b",
    re.IGNORECASE,
)


# Where a sentence's own statement ends and a clause explaining it begins ("TDD improves
# maintainability, because a failing test tells you what you broke": the "you" of the
# explanation is no advice).
_EXPLAINING_CLAUSE = re.compile(
    r",?\s+\b(?:because|since|so that|which|while|although|though|whereas)\b"
    r"|,\s+(?:taken|mixed|dissolved|swallowed)\b",  # how a dose is taken
    re.IGNORECASE,
)


# What a thing lets "you" do is said of the thing, not to the reader ("Thermostatic
# radiator valves let you heat only the rooms you actually use"; decision 0099).
_WHAT_IT_LETS_YOU_DO = re.compile(
    r"\b(?:lets?|allows?|helps?|enables?)\s+you\b.*?(?=[,;.]|$)"
    # anyone's "you" after a superlative ("the single biggest improvement you can make to
    # a dog's coat": decision 0109)
    r"|(?<=\s)(?=(?:best|biggest|greatest|largest|worst|only)\s)"
    r"(?:[\w-]+\s+){1,3}?you\s+(?:can|could)\s+\w+",
    re.IGNORECASE,
)


def own_statement(text: str) -> str:
    """What `text` itself states: before a clause explaining it, and without a closing
    condition on the reader's case ("... if you are pregnant", decision 0096). A
    statement that speaks to the reader elsewhere keeps its "you"."""
    text = _READERS_CASE.sub("", _EXPLAINING_CLAUSE.split(text, maxsplit=1)[0])
    return _WHAT_IT_LETS_YOU_DO.sub("", text)


def states_preference(text: str) -> bool:
    """True when `text` names an option as the first choice (decision 0096)."""
    return _PREFERENCE.search(text) is not None


# A verdict on the thing asked about ("heat pumps work efficiently in cold climates",
# "melatonin is effective for jet lag", "is not safe"): the direct answer to an
# efficacy or safety question, and what its contradictions negate.
VERDICT: Final = re.compile(
    r"\bwork(?:s|ed)?\s+(?:well|efficiently|better|best|poorly|as well|just as|for|in|"
    r"against)\b"
    r"|\b(effective|ineffective|effectively|ineffectively|efficient|inefficient|efficiently|"
    r"inefficiently|safe|unsafe|beneficial|harmful|useful|useless|reliable|unreliable|"
    r"dangerous|toxic|suits?|suited|enforceable|unenforceable|lawful|unlawful|illegal|"
    r"void|liable|constitutional|unconstitutional|permissible|impermissible|exempt|"
    r"eligible|ineligible|entitled|mandatory)\b"
    # how often a harm comes ("Nausea and headaches are common in the first week")
    # ("It is genuinely rare for clients to tell us they felt pushed into a deal": 0110)
    r"|\b(?:is|are|was|were|be)\s+(?:(?:very|quite|fairly|more|less|most|least|\w+ly)\s+)?"
    r"(?:common|uncommon|rare|frequent|infrequent)\b"
    # that a harm or an event comes at all ("Fainting can occur after vaccination")
    r"|\b(?:can|may|might|could|does|do|did|often|rarely|sometimes)\s+(?:not\s+)?"
    r"(?:occur|happen)\b|\b(?:occurs|occurred|happens|happened)\b"
    # that harms were reported ("There are case reports of bacteraemia in ...") and whom
    # they come to ("Some people notice mild bloating ..."; decision 0098)
    r"|\bthere\s+(?:are|were|have\s+been|has\s+been)\s+(?:\w+\s+){0,2}(?:case\s+)?"
    r"reports?\s+of\b"
    r"|\b(?:some|many|most|few|a few)\s+(?:people|patients|users|women|men|children|"
    r"adults)\s+(?:notice|experience|get|develop|report|feel)\b"
    # what harms there were ("side effects were mostly mild digestive complaints") and
    # what pays its way ("Grazing the rye ... paid for the seed"; decision 0099)
    r"|\b(?:side[- ]effects?|adverse\s+(?:effects?|events?|reactions?))\s+(?:were|was|are|"
    r"is|included?|included|ranged)\b"
    r"|\bpa(?:y|ys|id)\s+(?:for\s+(?:itself|themselves|the\s+\w+)|(?:it|them)?\s*back|off)\b"
    # the largest of a measured thing ("Tenants ... showed the largest relative savings
    # of any group"; decision 0099)
    r"|\bthe\s+(?:largest|biggest|smallest|greatest|highest|lowest|strongest|weakest)\s+"
    r"(?:\w+\s+)?(?:savings?|reductions?|gains?|benefits?|effects?|falls?|drops?|rises?|"
    r"increases?|decreases?|improvements?|risks?|costs?)\b"
    # an effect that vanishes, fat that burns ("appears to disappear almost entirely in
    # people who ...", "burns no more fat than ...")
    r"|\b(?:disappears?|disappeared|vanish(?:es|ed)?|burns?\s+(?:\w+\s+){0,3}(?:fat|calories))\b"
    # what did not change, what a harm comes from, who gains more (decision 0100)
    r"|\b(?:held|holds?|remained|remains?|stayed|stays?)\s+(?:broadly\s+|largely\s+)?"
    r"(?:steady|stable|flat|level|constant|unchanged|the\s+same)\b"
    r"|\btrace[sd]?\s+back\s+to\b|\battributable\s+to\b"
    # a quantified difference ("rent for only about nine per cent less than ...")
    rf"|\b(?:\d+(?:[.,]\d+)?|{NUMBER_WORDS})\s*(?:%|per\s?cent|percent)\s+(?:less|more|lower|"
    r"higher|cheaper|fewer|greater|smaller|larger|below|above)\b"
    r"|\bgain(?:s|ed)?\s+(?:\w+\s+)?(?:more|less|most|least|little|nothing|much)\s+from\b"
    # a null result in words ("make no real difference to what a household spends")
    r"|\b(?:makes?|made|making)\s+(?:\w+\s+)?(?:no|little|any|a)\s+(?:\w+\s+)?(?:difference|dent)\b"
    # or against the other group ("were really no better off than people who didn't
    # wear anything at all", "ended up no less agitated than ...": decision 0126)
    r"|\bno\s+(?:better|worse)(?:\s+off)?\s+than\b"
    r"|\bno\s+(?:more|less)\s+[a-z]+\s+than\b"
    # "had pretty much the same number of breeding pairs as the farms that hadn't",
    # "lost their homes at almost exactly the same rate as ..." (decision 0127)
    r"|\bthe\s+same\s+(?:number|rate|share|proportion|percentage|amount|weight)\s+"
    r"(?:of\s+(?:\w+\s+){1,6}?)?as\b"
    # a ranking among options ("... is the most important thing to do if ...")
    r"|\bthe\s+(?:single\s+)?(?:most|least)\s+(?:important|effective|common|useful|"
    r"reliable|frequent|serious|likely|dangerous|successful)\b",
    re.IGNORECASE,
)
# Around what a sentence states (decision 0097): a lead-in that only announces it
# ("Also worth knowing, ...", "One tip from me: ..."), the writer's aside after it
# (", so I always suggest patches first", ", that's what my adviser set me up with")
# and a frame that reports it to the writer ("the pharmacist told me that ...").
_LEAD_IN = re.compile(
    # "That means because the medicine stays inside the joint, it will not ..." (0107)
    r"^(?:that|this)\s+means\s+(?:that\s+)?(?=because\b|even\b|if\b)"
    r"|^(?:also|plus|and)?\s*(?:(?:it's|it is)\s+)?(?:(?:well\s+)?worth (?:knowing|noting|"
    r"remembering)|good to know|(?:one|a|my) (?:tip|thing)(?: from me)?|fyi|btw)\s*[,:]\s*"
    # "And when she's older, it's worth knowing that condoms reduce ..."
    r"|^(?:and|but|also|so)?,?\s*(?:(?:when|once|if|as)\b[^,]{0,60},\s*)?(?:it's|it is)\s+"
    r"(?:well\s+)?(?:worth (?:knowing|noting|remembering)|good to know|important to "
    r"(?:know|remember|note))\s+that\s+"
    # "But the reality is, from where my members stand, missed court dates have roughly
    # doubled ...", "But the figure published in the Treasury accounts is that fine income
    # from the sections was about 19 million crowns" (decision 0108)
    r"|^(?:but|and|so)?,?\s*the\s+(?:reality|truth|fact|point)\s+is,?\s+(?:that\s+)?"
    r"|^(?:but|and|so)?,?\s*the\s+(?:figures?|numbers?|data|record|accounts?)\b[^.!?]{0,80}?"
    r"\b(?:is|are|was|were|shows?|showed)\s+that\s+"
    # a body or a person named in the sentence before ("It noted that in the LOFIB trial
    # the proportion of people who responded ... was similar in women and men", "He
    # points out that ..."); "They found that ..." leans on a study named before and
    # keeps its penalty
    r"|^(?:it|he|she)\s+(?:also\s+)?(?:noted|said|found|reported|concluded|observed|"
    r"added|stressed|warned|points?\s+out|pointed\s+out)\s+that\s+"
    # a source named by its kind ("Their report, published last month, found that wheat
    # ... yields ... were statistically no different ...": decision 0124)
    r"|^(?:their|its|this|that|these|those)\s+(?:[\w-]+\s+){0,2}?(?:report|study|review|"
    r"analysis|trial|survey|audit|evaluation|paper|data|figures|results|findings)"
    r"(?:\s*,[^,.;]{1,60},)?\s+(?:also\s+)?(?:found|finds|showed|shows|concluded|concludes|"
    r"reported|reports|suggested|suggests)\s+that\s+"
    # who the speaker is, before what they state ("I do a lot of our encampment outreach
    # calendar, and for my clients who are living on the street, the texts do next to
    # nothing ...": decision 0124)
    r"|^I\s+(?:do|run|lead|manage|coordinate|handle|organi[sz]e|cover)\s+[^,.;]{3,60},\s+and\s+"
    # a survey or poll of the writer's own, before what it found ("Our PTA did a quick
    # survey after Christmas and roughly a third of parents said ...": decision 0132)
    r"|^(?:(?:but|and|so)\s+)?(?:we|I|our\s+[\w'\u2019-]+(?:\s+[\w-]+)?)\s+(?:did|ran|put\s+up|"
    r"put\s+out|carried\s+out|sent\s+(?:out|round))\s+(?:a|an|our\s+own)\s+(?:quick\s+|"
    r"little\s+|short\s+|informal\s+)?(?:survey|poll|questionnaire|straw\s+poll|show\s+of\s+"
    r"hands)\b[^,.;:]{0,40}?\s+and\s+(?=(?:\w+\s+){0,2}(?:a|one|two|\d+|half|most|many)\b)"
    # "When I did a quick show of hands after lesson four, roughly a third of the class
    # said ..." (decision 0132)
    r"|^(?:(?:but|and|so)\s+)?when\s+(?:we|I)\s+(?:did|ran|took|held|put\s+out)\s+(?:a|an)\s+"
    r"(?:quick\s+|little\s+|short\s+|informal\s+)?(?:survey|poll|questionnaire|straw\s+poll|"
    r"show\s+of\s+hands)\b[^,.;:]{0,40},\s+(?=(?:\w+\s+){0,2}(?:a|one|two|\d+|half|most|many)\b)"
    # how long the speaker has done the work, before their estimate ("But I've done this
    # a long time and I'd say - for most parents, two meetings ... is plenty": 0132)
    r"|^(?:(?:but|and|so)\s+)?I(?:'ve|\u2019ve|\s+have)\s+(?:done|been\s+doing|worked|"
    r"taught|practised|practiced|run)\b[^,.;:]{0,50}?\b(?:a\s+long\s+time|years|decades)"
    r"(?:\s+now)?,?\s+and\s+(?:I(?:'d|\u2019d|\s+would)\s+(?:say|tell\s+you)\s*[-\u2013\u2014:,]?\s*)?"
    r"(?=\S+(?:\s+\S+){5})",
    re.IGNORECASE,
)
_ASIDE_MIN_HEAD_WORDS = 5
_WRITERS_ASIDE = re.compile(
    r",\s+(?:so|and|but|which is why|that's|that is)\s+(?:what\s+|why\s+)?"
    r"(?:I|I'm|I've|my|me|we)\b.*$"
    # a comma splice of the writer's ("40mg once a day is plenty, I could tell it was
    # working inside a week": decision 0132)
    # the writer's own sense of it only: "I do my exercises", "I would have expected",
    # "I have had the conversation forty times" after a comma are statements of their own
    r"|,\s+I\s+(?:could|can)\s+(?:tell|see|feel)\b.*$",
    re.DOTALL,
)
# The writer's own estimate ("I'd say roughly one session in five ended with somebody at
# the first-aid box": decision 0125), as a pattern the claim and stance rules share; in
# an aside, the aside is the statement ("I kept a log for the first full year ..., and
# I'd say ...").
WRITERS_ESTIMATE: Final = r"\bI(?:'d|\s+would)\s+(?:say|estimate|guess)\b"
_WRITERS_ESTIMATE = re.compile(WRITERS_ESTIMATE, re.IGNORECASE)
_TOLD_THE_WRITER = re.compile(
    r"^.{0,80}?\b(?:told|tells|assured|advised|reminded)\s+(?:me|us)\s+(?:that\s+|"
    # without the "that": "My midwife told me magnesium is perfectly safe ..." (0102)
    r"(?=(?:\S+\s+){1,3}(?:is|are|was|were|can|does|do|will|would|has|have|should)\b))"
    # what the writer's or a relative's doctor said ("After the second one, my mum's
    # geriatrician said statins make falls more likely ...": decision 0105)
    r"|^.{0,60}?\b(?:my|our)\s+(?:\w+['\u2019]s\s+)?(?:GP|doctor|consultant|geriatrician|"
    r"cardiologist|nurse|pharmacist|midwife|surgeon|specialist|physio\w*|dentist)\s+"
    r"(?:said|says|thinks|reckons|believes)\s+(?:that\s+)?"
    # "He said parents should not give ...", "She added that ..."
    r"|^(?:he|she|they)\s+(?:said|says|added|adds|explained|explains|noted|notes|warned|"
    r"warns|stressed|stresses|argued|argues)\s+(?:that\s+)?",
    re.IGNORECASE | re.DOTALL,
)
# The speaker's candour framing what a sentence states ("If I'm honest, riboflavin has
# about the same level of evidence ..."; decision 0102).
_CANDOUR = re.compile(
    r"^(?:if\s+I'm\s+honest|if\s+I\s+am\s+honest|to\s+be\s+(?:honest|fair|frank|clear)|honestly|"
    r"frankly|in\s+fairness|for\s+what\s+it's\s+worth|as\s+I\s+see\s+it|"
    # "I want to be clear, our response times ... haven't got any worse" (decision 0103)
    r"(?:I\s+want\s+to|let\s+me)\s+be\s+(?:clear|honest|frank)|I\s+(?:have|must)\s+say|"
    r"(?:I'm\s+)?not\s+going\s+to\s+lie|truth\s+be\s+told|in\s+all\s+honesty)\s*,\s*",
    re.IGNORECASE,
)
# Advice to the reader after what a sentence states: ", so check the running costs
# before you buy", ", so you can take it alongside your usual prescriptions" (0102).
_READERS_ASIDE = re.compile(
    r",\s+so\s+(?:you\b|(?:check|make\s+sure|remember|ask|talk|speak)\b).*$",
    re.IGNORECASE | re.DOTALL,
)
# A quotation said by a study's author, a doctor or a researcher ("\"Unlike topiramate,
# magnesium has not been linked to memory problems,\" said lead author Dr ..."): where it
# states an effect, a finding and not an opinion reported (decision 0102).
EXPERT_QUOTED = re.compile(
    r"^[\"\u201c]([^\"\u201d]{10,})[\"\u201d],?\s+(?:\w+\s+){0,4}?(?:said|says|told|adds|"
    r"added|explains|explained)\s+(?:the\s+)?(?:lead\s+|senior\s+|study\s+)?"
    r"(?:author|Dr|Prof|researcher)"
)
# The writer's own change, measured from one value to another ("I went from about 10
# migraine days a month to 5 or 6"): a finding of the writer's own (decision 0102).
# A change the writer measured (decision 0099): from one value to another, one value
# instead of another ("now takes 22 minutes instead of 8"), down or up by a size ("down
# by about a third"), in digits or words (decision 0103).
_VALUE = rf"(?:\d|(?:one|{NUMBER_WORDS})\b)"
# a value with its currency before it ("Cr 6,200", "$2,100") or after what was done
# ("from managing a 10-minute walk to a 40-minute walk")
_FROM_VALUE = (
    # hedges and bounds, two at most ("to just under 16", "to more than forty"), a word
    # after the article ("from a constant 7 out of 10": decision 0108)
    r"(?:(?:about|around|just|only|roughly|nearly|almost|under|over|(?:more|less|fewer)\s+than)"
    r"\s+){0,2}(?:\w+ing\s+)?(?:(?:a|an)\s+(?:[a-z]+\s+)?)?"
    r"(?:(?-i:[A-Z][a-z]?)\s?|[$\u00a3\u20ac])?"
)
CHANGED_FROM_TO = re.compile(
    rf"\bfrom\s+{_FROM_VALUE}{_VALUE}(?:[^.;]|\.(?=\d)){{0,40}}?\bto\s+{_FROM_VALUE}{_VALUE}"
    # "3 migraines this month instead of my usual 8" (decision 0106)
    rf"|\d[^.;,]{{0,30}}?\binstead\s+of\s+(?:(?:my|our|his|her|their|the)\s+)?"
    rf"(?:(?:usual|normal|typical|average)\s+)?{_VALUE}"
    # "I drew my baton twice, against nine times in the six months before" (0106)
    rf"|,\s+(?:against|compared\s+with|versus)\s+{_VALUE}[^.;,]{{0,40}}?"
    r"\b(?:before|earlier|previously|last\s+(?:year|month|week|winter|summer))\b"
    r"|\b(?:down|up)\s+by\s+(?:about\s+|around\s+|nearly\s+|almost\s+|roughly\s+)?"
    rf"(?:a\s+|an\s+)?{_VALUE}"
    # "an extra forty minutes of sleep", "it adds roughly six hours to my week" (0105)
    rf"|\ban\s+extra\s+{_VALUE}|\badds?\s+(?:about\s+|around\s+|roughly\s+|nearly\s+)?{_VALUE}"
    # "my blood sugar went up to 17.4 mmol/l", "the third one only gave me about three
    # weeks of relief compared to roughly two months from the first" (0107)
    rf"|\b(?:went|shot|jumped|climbed)\s+(?:up\s+|down\s+)?to\s+(?:about\s+|around\s+)?{_VALUE}"
    rf"|{_VALUE}[^.;]{{0,50}}?\bcompared\s+(?:to|with)\s+(?:\w+\s+){{0,2}}?{_VALUE}"
    # "we used to bring home about 15 bags a week and now it's one or two" (0107)
    rf"|\bused\s+to\b[^.;]{{0,60}}?{_VALUE}[^.;]{{0,40}}?\bnow\b[^.;]{{0,30}}?{_VALUE}",
    re.IGNORECASE,
)
# The writer's frame around what a sentence states (decision 0099): a lead-in that ends
# in a colon ("My answer, from what I have seen over the years: removing the torn flap
# ... does not hasten arthritis"), an opening that says where or from whom the writer
# has it ("At the practice where I still consult, ...", "The way my surgeon explained
# that trial to me, ...", "Her point, backed up by the studies she showed me, was that
# ..."), and the writer's own records as its source ("..., roughly one patient in a
# thousand in my own records"). The writer's own story has no such frame ("After I
# stopped, the headaches went away") and stays out.
_FIRST_PERSON_WORD = r"(?:I|[Mm]y|[Mm]e)"
# a writer's lead-in before a colon, theirs or their team's ("Our data do not support
# this: in the schools we surveyed, ...": decision 0103)
_WRITERS_WORD = r"(?:I|[Mm]y|[Mm]e|[Ww]e|[Oo]ur|[Uu]s)"
_WRITERS_FRAME = re.compile(
    rf"^(?:[^:.!?]{{0,80}}\b{_WRITERS_WORD}\b[^:.!?]{{0,80}}:\s+(?=\S+(?:\s+\S+){{5}})"
    r"|(?i:(?:but|and|so|still|yet|now),?\s+)?"
    rf"(?i:at|in|from|as|on|the\s+way)\b[^,.!?]{{0,80}}\b{_FIRST_PERSON_WORD}\b[^,.!?]{{0,60}},\s+"
    # "The independent studies I've read show ...", "Everything I read afterwards
    # suggests that ..." (decision 0100)
    # the writer's own analysis as the opening ("When I fit a simple count model with
    # beach fixed effects ..., the coastal survey data show no measurable change ...")
    r"|(?i:when|once|after|if)\s+(?:I|we)\s+(?i:fit|fitted|run|ran|re-?ran|analy[sz]ed?|"
    r"model(?:l?ed)?|adjust(?:ed)?|control(?:led)?|crunch(?:ed)?|compare[d]?|look(?:ed)?\s+at)"
    r"\b[^.!?]{0,120}?,\s+(?=\S+(?:\s+\S+){5})"
    r"|[^.!?]{0,60}\bI(?:'ve|\s+have)?\s+(?:read|seen)(?:\s+\w+){0,2}?\s+"
    r"(?:show|suggest|find|found|say)s?\s+(?:that\s+)?"
    # a source's conclusion ("Its conclusion was that pulse ingredients ... pose no known
    # cardiac risk ...": decision 0109)
    # what the writer adds to back a frame before it up ("In my experience, and the
    # reading I've done backs it up, the three percent hypertonic rinse does ...": 0113)
    r"|(?i:and|as)\s+[^,.!?]{0,60}\b(?:I|I've|I'm|[Mm]y|[Mm]e)\b[^,.!?]{0,40}?\s+"
    r"(?i:backs?|bears?)\s+(?i:it|this|that)\s+(?i:up|out),\s+"
    r"|(?i:her|his|their|its|the)\s+(?i:point|view|argument|message|advice|conclusions?|"
    r"verdict|finding)\b[^.!?]{0,80}?"
    r"\b(?:was|is)\s+that\s+)",
    re.DOTALL,
)
_WRITERS_RECORDS = re.compile(
    r"\s+(?:in|from)\s+[Mm]y\s+(?:own\s+)?(?:records|audit|figures|data|series|clinic|practice)"
    r"(?=[.,;]|$)"
    # what a practitioner sees ("Roughly half of the neck complaints I assess in ...")
    r"|\s+(?:that\s+)?(?:I|we)\s+(?:assess|see|treat|examine|review|diagnose|audit)(?=\s+(?:in|at|among|from)\b)"
)


# A speaker's own advice or conviction framing what it states ("My advice is to take the
# probiotic at least two hours after ...", "it's why I'm firm that critically ill
# patients ... should not be given probiotics"; decision 0098).
_SPEAKERS_FRAME = re.compile(
    # after a lead-in that ends in a colon ("Forget the ten-minute dip the official
    # guidelines talk about: in my experience anything under half an hour ...": 0109)
    r"^(?:[^:.!?]{0,90}:\s+)?.{0,60}?\b(?:my\s+(?:advice|recommendation|suggestion|rule)\s+is\s+(?:to|that)|"
    # "My own view is that if you're over eighty-five ..., you should not ..." (0105)
    r"my\s+(?:own\s+|personal\s+)?(?:view|opinion|position|belief|reading|impression|sense|"
    r"rule\s+of\s+thumb|"
    # with what it rests on between ("My view, based on the household expenditure survey
    # and our own diary study, is that ...": decision 0107)
    r"take)(?:\s*,[^,]{1,100},)?\s+is\s+that|"
    # a conviction ("I have no doubt that aspirin clearly lowers ...": decision 0107)
    r"I(?:\s+have|'ve)\s+(?:no|little)\s+doubt\s+that|"
    # what a practitioner tells the people they see, the plain answer they give ("I tell
    # parents that mastoiditis ... happens in fewer than 1 in 4,000 children", "the honest
    # answer is that cameras seem to help some forces ..."; decision 0106)
    r"I\s+(?:always\s+|usually\s+|often\s+)?(?:tell|remind|warn)\s+(?:my\s+)?(?:parents|"
    r"patients|clients|families|people|readers|listeners|students|customers|members)\s+that|"
    r"the\s+(?:honest|short|simple|plain)\s+answer\s+is\s+that|"
    # a practitioner's frame ("In my experience, cover crops do pay ...", "For most fields
    # we suggest you drill ..."; decision 0099)
    # (not after the word of enough it qualifies: "... once a month is plenty in my
    # experience, and ...": decision 0142)
    r"(?<!plenty )(?<!enough )in\s+my\s+(?:experience|practice|view|opinion|clinic)\s*,?|"
    r"we\s+(?:would\s+|generally\s+|usually\s+)?(?:suggest|recommend|advise)(?:\s+that)?"
    r"(?:\s+you)?|"
    r"I(?:'m|\s+am)\s+(?:(?:completely|absolutely|totally|fully|quite|now)\s+)?"
    r"(?:firm|clear|confident|convinced|certain)\s+that|"
    # a concession before what the writer holds, and where they have it from ("I know
    # some people get nervous about amounts, but from everything I've read you can
    # safely take up to 3 grams ...", "I know the guild people say otherwise, but
    # biochar has beaten compost ...": decision 0109)
    r"I\s+(?:know|realise|realize|accept|understand|appreciate)\b[^.;:]{0,80}?,\s+but"
    r"(?:\s+(?:from|based\s+on)\s+(?:everything|all|what)\s+I(?:'ve|\s+have)\s+"
    r"(?:read|seen|heard)\s*,?)?|"
    # an estimate or a view the speaker keeps stating ("By my estimate, ...", "it's why
    # I keep saying that ..."; decision 0100)
    r"by\s+(?:my|our)\s+(?:own\s+)?(?:estimate|reckoning|count|calculations?|numbers|figures)\s*,?|"
    r"I\s+(?:keep\s+saying|(?:have\s+|'ve\s+)?always\s+(?:said|say)|would\s+argue)\s+that|"
    r"I'd\s+argue\s+that|"
    # an estimate ("In my own clinic I'd estimate something like one patient in five has
    # a noticeable flare": decision 0107)
    r"I(?:'d|\s+would)\s+(?:estimate|guess|reckon)(?:\s+that)?|"
    r"I(?:'d|\s+would)?\s+(?:always\s+|strongly\s+)?(?:recommend|advise)\s+that|"
    # a court's finding and what the parties agreed ("On the whole of the evidence, I
    # find that ...", "It was common ground that ...")
    r"(?:I|we)\s+(?:find|accept|am\s+satisfied|are\s+satisfied)\s+that|"
    r"it\s+(?:is|was)\s+(?:common\s+ground|agreed|accepted|not\s+disputed|undisputed)\s+that|"
    # a rule's name before it ("Use the two-finger rule: there should be ...")
    r"^(?:use|follow|apply|try)\s+the\s+[\w\s-]{1,30}?(?:rule|test|check)\s*:)\s+",
    re.IGNORECASE | re.DOTALL,
)


# "growers ... rarely get enough growth": a base form after how often is a verb.
FREQUENCY_ADVERBS: Final = frozenset(
    ("rarely", "seldom", "often", "usually", "always", "never", "sometimes", "generally",
     "typically", "normally", "commonly", "frequently")
)  # fmt: skip


# A list item that gives a thing's value after its name, with no verb ("Barrier
# construction: about £1,150 per metre, including foundations and installation";
# decision 0099): a name of up to five words and no number ("Figure 2: ..." is a
# caption), then a value holding a number, eight words or more in all.
_LABELLED_VALUE = re.compile(r"^[A-Za-z][A-Za-z\s'-]{2,50}:\s+[^:]*?\d")


def states_a_value(text: str) -> bool:
    """True when `text` is a thing's name and its value (a number) after a colon."""
    head = text.split(":", 1)[0]
    return (
        bool(_LABELLED_VALUE.match(text))
        and len(head.split()) <= 5
        and len(text.split()) >= 8
        and not title_case(text)  # a title ("Honey Bee Health: Annual Colony Loss Report 2023")
    )


# A frame that only hedges what follows ("It appears that green tea burns ...") and an
# aside of the writer's in parentheses ("(a 100-bag box costs me about $12)").
_HEDGING_FRAME = re.compile(
    r"^it\s+(?:appears|seems|turns\s+out|is\s+(?:likely|possible|clear|probable))\s+that\s+"
    # a speaker's estimate ("I'd say one field in five of our clients' direct-drilled
    # wheat got redrilled", "She reckoned about one in four of the people on her caseload
    # had ...": decision 0113)
    # "I think the levy here in Brennick has taken more commuter cars off the road than
    # Elvan's charge ever did" (decision 0114)
    # "But I'd say one morning a week on a short loop ... is plenty" (decision 0132)
    r"|^(?:(?:but|and|so),?\s+)?(?:I(?:'d|\u2019d|\s+would)\s+(?:say|estimate|guess)|"
    r"(?:I|she|he|they)\s+(?:reckon(?:s|ed)?|"
    r"estimated?|estimates|think|thinks|thought|believe|believes|suspect|suspects))\s+"
    r"(?:that\s+)?(?=\S+(?:\s+\S+){5})",
    re.IGNORECASE,
)
# the writer's experience inserted between commas ("hyaluronic acid injections cost
# roughly three times as much and, in my experience, give slower ... relief": 0107)
_WRITERS_INSERT = re.compile(
    r",\s*in\s+my\s+(?:own\s+)?(?:experience|view|opinion)\s*,\s*", re.IGNORECASE
)
_WRITERS_PARENTHESIS = re.compile(r"\s*\([^()]*\b(?:I|me|my|I'm|I've)\b[^()]*\)")


# A reporter's short frame before a quotation, ending in a colon: "She put it bluntly:
# "When we finally went through our records ..."" (decision 0135). The quotation is the
# statement; "She" names the speaker, it leans on no sentence before.
_FRAME_BEFORE_QUOTE = re.compile(
    r"^[^:\"\u201c.!?;]{3,60}:\s*(?=[\"\u201c])"
    # a longer one that ends in its speaker's word ("Denise Harrow, 58, who has lived on
    # the close for 22 years, said: \"Half the families ...": decision 0144)
    r"|^[^:\"\u201c.!?;]{3,160}\b(?:said|says|told\s+\w+|added|explained|recalled)\s*:\s*"
    r"(?=[\"\u201c])"
)
# a quotation that runs on past its first sentence opens with a mark the sentence never
# closes: "She said: \"Three of the five jobs I reported ... near the flat." (decision 0142)
_QUOTE_RUNS_ON = re.compile(r"^[\"\u201c](?=[^\"\u201d]*$)")


def stated_part(text: str) -> str:
    """The part of `text` whose statement its claim rules score."""
    text = _QUOTE_RUNS_ON.sub("", _FRAME_BEFORE_QUOTE.sub("", text, count=1), count=1)
    # an inserted "in my experience" is no frame of what stands before it
    text = _SPEAKERS_FRAME.sub("", _WRITERS_INSERT.sub(" ", text), count=1)
    text = _LEAD_IN.sub("", text, count=1)
    text = _TOLD_THE_WRITER.sub("", _CANDOUR.sub("", text, count=1), count=1)
    # a frame within a frame ("But here's my honest experience: in the organisations I've
    # worked with, a nine-day fortnight gives ...": decision 0105)
    text = _WRITERS_FRAME.sub("", _WRITERS_FRAME.sub("", text, count=1), count=1)
    text = _WRITERS_RECORDS.sub("", text)
    text = _WRITERS_PARENTHESIS.sub("", _HEDGING_FRAME.sub("", text, count=1))
    # an aside after a statement, not a statement after a short aside ("I was sceptical,
    # but my night wakings went from five or six a night down to one or two": 0103)
    # an aside that measures a change is the statement ("..., and my cholesterol went
    # from 4.2 to 6.1 within a year": decision 0106)
    aside = _WRITERS_ASIDE.search(text)
    head = text[: aside.start()] if aside else text
    if (
        aside
        and len(head.split()) >= _ASIDE_MIN_HEAD_WORDS
        and not CHANGED_FROM_TO.search(aside.group())
        and not _WRITERS_ESTIMATE.search(aside.group())
    ):
        text = head
    return _READERS_ASIDE.sub("", text, count=1)
