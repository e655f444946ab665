"""The signals the claim rules score a sentence by (`claims.informativeness`): an effect
or a relation, a recommendation or a warning, a number and its unit, a comparison, a hedge
(issue 12 item 3). Patterns only; moved out of `claims` to keep it under STYLE's size.
"""

from __future__ import annotations

import re

from lyra.pipelines.evidence.leftovers import NUMBER_WORDS

# Numbers as reports write them out ("two to three years", "about half of", "a quarter
# of the cost", "twice as likely"); "one" is left out (a pronoun as often as a number).
NUMBER = re.compile(rf"\d|\b(?:{NUMBER_WORDS})\b", re.IGNORECASE)
# What makes a sentence informative (issue 12 item 3): an effect or relation between
# things, a number (better with its unit), a comparison, a hedge. Every form of each verb.
EFFECT = re.compile(
    r"\b(rais|lower|reduc|increas|decreas|caus|prevent|improv|worsen|remov|contain|"
    r"develop|block|protect|inhibit|trigger|slow|boost|damag|harm|benefit|carr|affect|"
    r"extend|shorten|doubl|halv|cut|eliminat|produc|lead|result|link|associat|correlat|"
    r"predict|kill|cur|treat|relie|aggravat|elevat|depress|stimulat|suppress|induc|"
    r"accelerat|delay|interact|bind|activat|absorb|metaboli[sz]|excret|clear|exceed|"
    r"halt|rever[st]|protect|promot|impair|enhanc|diminish|lessen|exacerbat|mitigat|"
    r"chang|alter|modif|influenc|shift|drop|help|ris|gain|depend|return|"
    # what courts, laws and rules do to a practice (the legal researcher's findings)
    r"prohibit|allow|overturn|enforc|restrict|invalidat|overrul|"
    # gains and losses as studies of schools, firms and patients report them
    r"recover|widen|narrow|persist|declin|struggl|worsen|outperform|underperform|"
    # what a measure, a device or an attack does (security, engineering, policy findings)
    r"stop|provid|expos|compromis|bypass|intercept|exploit|detect|breach|outweigh|sav|"
    # "knocks the flood peak down far more than ..." (decision 0123)
    r"knock|"
    # what drives a decline or a change (a causal question's findings: "Poor nutrition
    # weakens colonies", "losses reflect beekeeping practices")
    r"weaken|strengthen|reflect|attribut|explain|contribut|threaten|spread|undermin|"
    r"disrupt|endanger|deplet|destroy|involv|differ|reward|interfer)"
    r"(e|es|ed|ing|s|y|ies|ied|ion|ions|tion|tions|ped|ping|ence|ences)?\b"
    # irregular forms no stem catches ("levels rose"), lower case only ("Rose hips")
    r"|\b(?-i:rose|risen|fell|fallen|falls?|falling|grew|grown|led|shrank|shrunk|keeps|kept|ban|bans|banned|"
    r"banning|permits|permitted|permitting|upheld|upholds?|ruled|struck down|strikes? down|"
    r"lost|lose|loses|losing|offset|offsets|unaffected|unchanged|set aside|sets aside|"
    r"vacated|vacates|caught|catches|captured|captures|driven|drove|"
    # one thing beating another ("biochar has beaten compost for yield": decision 0109)
    r"beaten|beats|outyield(?:s|ed)?)\b"
    # a share and what weighs more ("accounts for 15 percent", "frequency matters more
    # to riders than price"): as phrases, since "account" and "matter" are nouns too
    r"|\b(?:accounts?|accounted) for\b|\bmatter(?:s|ed)? (?:more|less|most|little)\b"
    # where a change came from ("Most of the fall came from reformulation")
    r"|\b(?:came|comes|stems?|stemmed) from\b|\bdue to\b"
    # back where it started ("the number of people dying because of drink is right back
    # where it was before the floor price came in": decision 0130)
    r"|\b(?:is|are|was|were|gone|got|came|come)\s+(?:right\s+|straight\s+|all\s+the\s+"
    r"way\s+)?back\s+(?:where|to\s+where|up|down|to\s+(?:pre\b|previous|former|normal|"
    r"baseline|the\s+same|its|their))\b"
    # no change, as a stressed equality ("they take just as long to get there", "took
    # just as many tumbles": decision 0131)
    r"|\b(?:just|exactly|every\s+bit|equally)\s+as\s+(?:many|much|long|likely|often)\b"
    # the same yield from both ("I lifted roughly the same weight of spuds from both":
    # decision 0132)
    r"|\bthe\s+same\s+(?:weight|amount|number|yield|crop|quantity|tonnage)\s+of\s+"
    r"(?:[\w-]+\s+){1,3}?(?:from|off|out\s+of|on|in)\s+(?:both|each)\b"
    # how something fared ("active managers did better in small caps")
    r"|\b(?:did|do|does|fared|fares|performed|performs) (?:better|worse|well|poorly|best|"
    r"worst|more for|less for)\b"
    # a change for better or worse ("response times haven't got any worse": 0103)
    r"|\b(?:got|gets|get|getting|gotten|became|become|becomes|grew|grown) (?:any |much |a lot |"
    r"no |even )?(?:better|worse)\b"
    # who bears a cost ("Middle- and higher-income households ... pay the bulk of the
    # charge revenue", "low-income households ... end up paying the most": 0107)
    r"|\b(?:pay|pays|paid|paying|bear|bears|bore|bearing)\s+(?:the\s+)?(?:bulk|most|"
    r"majority|brunt|lion's\s+share|least|more|less)\b"
    # a price ("Our ultrasound-guided steroid injection costs 245 crowns", "cost roughly
    # three times as much": decision 0107)
    # ("cutting class sizes costs the taxpayer more than 2,400 crowns per child")
    r"|\bcosts?\s+(?:[a-z]+\s+){0,4}?(?:[$\u00a3\u20ac\u00a5]\s*)?\d"
    r"|\bcosts?\s+(?:[a-z]+\s+){0,2}?(?:twice|three\s+times|four\s+times|half|double)\b"
    # the noun of a relation ("had no effect on", "the effect of")
    r"|\beffects?\s+(?:on|of)\b|\bno (?:significant )?differences? (?:in|between)\b",
    re.IGNORECASE,
)
# A recommendation or a warning is a finding too, and the one a reader of the safety and
# population facets needs ("People with sarcoidosis should not take vitamin D", "is
# contraindicated in", "should be avoided"): it counts as much as an effect.
RECOMMENDATION = re.compile(
    r"\bneeds? \d|"
    r"\b(should|must|ought to|needs? (to|a|an|the|at least|more|less)|needed|requires?|"
    r"required|"
    r"(is|are) (not )?(recommended|advised)|"
    r"recommends?|advises?|avoid(s|ed)?|contraindicated|unsuitable|not suitable|"
    # what may be combined with what ("can be taken with paracetamol")
    r"(can|may|could)( safely)? (not )?be (taken|used|given|combined|mixed)|"
    # advice as speech gives it, with an amount of time after it ("you want the tape on
    # for three to five days"; not "if you want to try it", "where you want it", "trees
    # you want to keep": decision 0130)
    # where a thing is worth doing ("It's really only worth doing where you've got deep
    # peat": decision 0130)
    r"worth (?:doing|using|trying) (?:where|when|if|on|in|unless)\b(?![^.;]*\?)|"
    # who or what a thing is not for ("they're not for a short trial that turns on whether
    # you believe one witness": decision 0136)
    r"(?:is|are|'re|\u2019re|'s|\u2019s)\s+not\s+(?:really\s+|meant\s+)?for\s+(?:a|an|the|anyone|"
    r"everyone|people|children|kids|those|someone|every)\b|"
    r"(?<!\bif )(?<!\bwhere )you(?:'ll| will)? (?:really )?want (?:the|it|them|to)"
    r"(?=[^.;]{0,60}?\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+"
    r"(?:minutes?|hours?|days?|weeks?|months?|times?|sessions?|coats?)\b))\b",
    re.IGNORECASE,
)
# The same relations in Japanese (the other language the product reads).
JA_EFFECT = re.compile(
    r"(低下|上昇|増加|減少|改善|悪化|抑制|予防|引き起こ|関連|関係|効果|影響|減ら|増や|下げ|"
    r"上げ|含[むまみ]|除去|軽減|促進|阻害|延長|短縮|防[ぐげ]|高め|低め|死亡|発症|副作用)"
)
COPULA = re.compile(r"\b(is|are|was|were|has|have|had|can|may|might|could)\b", re.IGNORECASE)
NUMBER_UNIT = re.compile(
    rf"(?:\d|\b(?:{NUMBER_WORDS}))\s*(?:(?:thousand|million|billion|trillion)\s+)?"
    r"(%|per ?cent|percent|hours?|minutes?|days?|weeks?|months?|years?|mg|µg|mcg|g|kg|"
    r"(?:milli|micro|kilo)?grams?|"
    r"ml|l|mmol|mmhg|iu|cups?|times|fold|doses?|servings?|units?|patients|participants|"
    r"people|adults|deaths|cases|dollars|euros|pounds|yen|cents|db|dba|decibels|kwh)\b|\d\s*%|"
    r"[$€£¥]\s*\d|"
    # a rate in a currency the pattern does not name ("2,400 crowns per child")
    r"\d[\d,.]*\s+[a-z]+\s+per\s+[a-z]+",
    re.IGNORECASE,
)
COMPARISON = re.compile(
    r"\b(than|compared|comparison|versus|vs|higher|lower|more|less|fewer|greater|smaller|"
    r"faster|slower|longer|shorter|better|worse|switching|instead of|rather than|similar to|"
    # alike in two groups ("was similar in women and men": decision 0108)
    r"similar (?:in|for|among|between)|"
    r"as much as|"
    # a stressed equality whose comparison was named before ("they take just as long to
    # get there": decision 0131)
    r"(?:just|exactly|every\s+bit|equally)\s+as\s+\w+|"
    # an equality: "as effective as", "the same wellbeing lift as" (decision 0105)
    r"as\s+\w+\s+as|the\s+same(?:\s+[\w-]+){0,2}\s+as)\b",
    re.IGNORECASE,
)
HEDGE = re.compile(
    r"\b(may|might|could|suggests?|suggested|likely|unlikely|probably|possibly|appears? to)\b",
    re.IGNORECASE,
)

# A sentence that opens with what the writers found ("We find no statistically
# significant effect of ...", "Our survey found that parents spend ...") states a
# finding, whatever method words follow it (decision 0102).
FINDING_OPENS = re.compile(
    # "Our estimate, when you load in health care ..., is closer to sixty-one thousand
    # dollars per person per year": an estimate given, not made (decision 0114)
    r"^our\s+(?:own\s+|best\s+|central\s+)?(?:estimates?|figures?|calculations?)\b"
    r"(?=[^.;]{0,120}?\b(?:is|are|was|were|comes?|came|puts?)\b)|"
    r"^(?:we|our(?:\W+\w+){0,3}?\W+(?:survey|study|studies|data|analysis|review|results|"
    # "Our own quarterly survey of members, backed by payroll data ..., shows that"
    r"research|trial|figures|counts|audit|records)(?:\W+\w+){0,12}?)\W+"
    r"(?:(?:also|further)\s+)?(?:find|finds|found|show|shows|showed|observed|concluded?|"
    # "Our analysis suggests that a further 60 sections ... could prevent ..." (0108)
    r"confirmed?|suggests?|suggested|indicates?|indicated|(?:estimates?|estimated)\s+that)\b",
    re.IGNORECASE,
)
# The writer as the one who looked and found nothing: "I can find no sign that menu
# prices rose any faster than inflation" is a finding, not the writer's story (0104).
WRITER_FINDS_NONE = re.compile(
    r"^(?:\w+,\s+)?I\s+(?:can|could|have|did)?\s*(?:not\s+)?(?:find|found|see|saw|seen)\s+"
    r"(?:no|any)\s+(?:sign|evidence|trace|indication)s?\s+(?:that|of)\b",
    re.IGNORECASE,
)

# "It" that stands for nothing before it: the time a thing takes ("It can take several
# weeks for the brain to adjust", "It usually takes 4 to 6 weeks to work"), a judgement
# of what follows ("It is safe to take magnesium in pregnancy", "It is unclear whether
# zinc shortens colds", "It is estimated that ..."), a cleft naming who ("It is older
# women who benefit most"). Such a sentence leans on nothing before it (decision 0103).
_IT_IS = r"it(?:'s|\u2019s|\s+is|\s+was|\s+isn't|\s+wasn't|\s+remains|\s+seems|\s+appears)"
IMPERSONAL_IT = re.compile(
    r"^(?:(?:but|and|so|however|also|still|yet),?\s+)?(?:"
    r"it\s+(?:(?:can|may|might|could|will|would|does|did|often|usually|typically|"
    r"generally|normally|commonly|only|also)\s+){0,2}(?:take|takes|took)\s+"
    r"(?:(?:about|around|roughly|up\s+to|at\s+least|only|several|a\s+few|many|some)\s+)?"
    r"(?:\d|a\b|an\b|one\b|two\b|three\b|four\b|five\b|six\b|eight\b|ten\b|twelve\b|"
    r"weeks?\b|months?\b|days?\b|years?\b|hours?\b|time\b|longer\b|a\s+while\b)"
    rf"|{_IT_IS}\s+(?:not\s+|now\s+|generally\s+|usually\s+|perfectly\s+|completely\s+|"
    r"entirely\s+|quite\s+|very\s+|still\s+|also\s+)*"
    r"(?:safe|unsafe|dangerous|risky|harmful|important|essential|vital|possible|impossible|"
    r"unclear|uncertain|clear|known|unknown|thought|believed|estimated|reported|"
    r"recommended|advised|advisable|best|wise|unwise|common|rare|normal|unusual|true|"
    r"worth)\s+(?:for\s+[^,.;:]{1,40}?\s+)?(?:to\s+\w+|that\b|whether\b|if\b)"
    rf"|{_IT_IS}\s+(?:not\s+|only\s+|mainly\s+|mostly\s+|especially\s+|"
    r"particularly\s+)?(?:[\w-]+\s+){1,4}?(?:who|whose)\b"
    # where it is worth doing: "It's really only worth doing where you've got deep peat"
    rf"|{_IT_IS}\s+(?:(?:really|only|just|not|mainly)\s+){{0,2}}worth\s+(?:doing|using|"
    r"trying)\s+(?:where|when|if|on|in|for|unless)\b"
    # whom a thing is for, "it" standing for the thing the page is about: "It's for adults
    # caught with a small amount of a drug for their own personal use" (decision 0127)
    rf"|{_IT_IS}\s+(?:(?:only|really|mainly|mostly|just|strictly|not|never)\s+){{0,2}}"
    r"(?:(?:meant|intended|designed|aimed|suitable|licensed|approved)\s+)?(?:for|at)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:adults|people|patients|children|kids|women|men|anyone|anybody|"
    r"those|residents|families|households|pupils|students|users|teenagers|offenders|"
    r"drivers|workers|employees|homes|houses|flats)\s+(?:who|whose|with|without|caught|"
    # who qualifies, not an audience ("It is intended for young people, their families,
    # victims and professionals" is a leaflet's)
    r"aged|over|under|that|living|on|in|at)\b"
    r")",
    re.IGNORECASE,
)
# A quoted speaker's report of their own research, in a news story that named them just
# before ("Dr Hugh Carrow, who runs long-term tillage plots ..., said"): "'Our long-term
# plots at Halloway didn't close the yield gap until the eighth harvest after we stopped
# ploughing,' he said." The quote is the finding, as an author's is (decisions 0102,
# 0114); group 1 is the quote.
RESEARCH_QUOTED = re.compile(
    # "'When we looked at our own cases, people we diverted into treatment court were
    # rearrested more often ...,' Voss said": a clause of up to five words may come first
    r"^[\"\u201c]((?:[\w']+\s+){0,5}?(?:our|my)\s+(?:[\w-]+\s+){0,3}?(?:plots?|trials?|"
    r"study|studies|data|analysis|results|figures|research|survey|evaluation|measurements|"
    r"records|cohort|sample|experiments?|fields?|clinic|patients|cases)\b[^\"\u201d]{10,})"
    r"[\"\u201d],?\s+(?:he|she|they|(?-i:[A-Z])[\w'-]+)\s+(?:said|says|told|adds|added|"
    r"explains|explained)\b",
    re.IGNORECASE,
)
# The writer's research team or own analysis: "When my team took the council's own
# monitor readings and corrected them for weather ..., there's no statistically
# significant difference in nitrogen dioxide" is a finding, not the writer's story
# (decision 0114).
RESEARCH_FIRST_PERSON = re.compile(
    # not "my survey": "My survey is small and probably tilted towards schools with a
    # grievance" is the writer's caveat
    r"\b(?:my|our)\s+(?:own\s+)?(?:research\s+)?(?:team|team's|lab|lab's|research\s+group)\b"
    # the trials a speaker ran ("in the trials I've run it's about one in five people":
    # decision 0115)
    r"|\b(?:trials?|studies|study|experiments?)\s+(?:that\s+)?(?:I|we)(?:'ve|\s+have)?\s+"
    r"(?:run|ran|led|conducted|done|did)\b",
    re.IGNORECASE,
)
# A list item's own lead-in before a colon, in lower case ("the big surprise for me:
# roughly one in four of us reported itchy skin, red marks or numb toes"): the statement
# is what follows it (decision 0115).
LIST_LEAD_IN = re.compile(r"^[a-z][^:;.!?\d]{2,40}:\s+(?=[\w\"\u201c])")
# What a scheme pays the reader, at a rate: "you receive $750 per month for 24
# consecutive months" states the amount as a dose is stated (decision 0115).
AMOUNT_PAID = re.compile(
    r"^(?:[^,]{0,80},\s*)?you\s+(?:will\s+|would\s+)?(?:receive|get|be\s+paid|are\s+paid)\s+"
    r"(?:up\s+to\s+|about\s+|around\s+)?[$\u00a3\u20ac]\s?\d[\d,.]*\s*(?:a|per|each|every)\s+"
    r"(?:day|week|fortnight|month|quarter|year)\b",
    re.IGNORECASE,
)
# A dose or a course stated, not ordered: "is 5 mg about half an hour before bed", "The
# standard course is five sessions, spaced a week apart" (decision 0115).
DOSE_STATED = re.compile(
    r"\b(?:\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten)\s*"
    r"(?:mg|mcg|\u00b5g|g|iu|ml|units?|tablets?|capsules?|sessions?|treatments?|doses?)\b"
    r"[^.;]{0,40}?\b(?:before\s+(?:bed|bedtime|sleep|meals?)|at\s+bedtime|"
    r"(?:a|one|two|three)\s+weeks?\s+apart|(?:a|per|each|every)\s+(?:day|night|week)|"
    r"daily|weekly|nightly|once|twice)\b",
    re.IGNORECASE,
)
# A frame that only says a plain answer follows: "And the honest picture is that ...",
# "The short answer is ..." (decision 0115).
PLAIN_ANSWER_FRAME = re.compile(
    r"^(?:(?:and|but|so)\s+)?(?:the\s+)?(?:honest|short|simple|plain|real)\s+"
    r"(?:picture|answer|version|truth|story)\s+is\s+(?:that\s+)?(?=\S+(?:\s+\S+){5})"
    # what a source's data showed, told as a story before a colon ("But the institute's
    # food diaries told a flatter story over time: by the following spring ...": 0125)
    r"|^(?:(?:and|but|so)\s+)?[^:;.!?]{3,90}?\b(?:told|tells|tell|painted|paints|paint|gave|"
    r"gives|give)\s+a\s+(?:[\w-]+\s+){0,2}?(?:story|picture)(?:\s+(?:over\s+time|overall|"
    r"in\s+the\s+end|in\s+practice))?\s*:\s*(?=\S+(?:\s+\S+){5})"
    # what a study found, told as "what we found": "What we found was that, once you take
    # out the small studies, the kids who learned an instrument were no better at maths
    # ..." (decision 0133)
    r"|^(?:(?:and|but|so)\s+)?what\s+(?:we|they)\s+(?:found|saw)\s+(?:was|is)\s+(?:that\b)?"
    r"\s*,?\s*(?=\S+(?:\s+\S+){5})"
    # a speaker's promise of candour, to the listener ("To be straight with you, my lambs
    # off the solar site weighed up no different ...": decision 0134)
    r"|^(?:(?:and|but|so)\s+)?to\s+be\s+(?:straight|honest|fair|frank)\s+with\s+you,?\s+"
    r"(?=\S+(?:\s+\S+){5})"
    # "I'll be straight with you, the springs we had the llama out ..." (decision 0146)
    r"|^(?:(?:and|but|so)\s+)?I(?:'ll|\s+will)\s+be\s+(?:straight|honest|frank)\s+with\s+you,?\s+"
    r"(?=\S+(?:\s+\S+){5})"
    # "Truth is, at least half the old dears I sat with ...", "Between you and me, a sail
    # over the bench corner ... is plenty" (decision 0146)
    r"|^(?:(?:and|but|so)\s+)?(?:(?:the\s+)?truth\s+is|between\s+you\s+and\s+me),?\s+"
    r"(?=\S+(?:\s+\S+){5})",
    re.IGNORECASE,
)
# "you" of anyone, not the reader addressed: "two-thirds of the gain you get from
# one-to-one sessions" (decision 0115).
GENERIC_YOU = re.compile(
    r"\b(?:the|a|an)\s+(?:[\w-]+\s+){1,2}?you(?:'d)?\s+(?:would\s+)?(?:get|see|find|need)\b"
    # anyone who looked could not tell the two apart ("come August you honestly couldn't
    # tell which was which": decision 0148)
    r"|\byou\s+(?:\w+\s+)?(?:couldn't|could\s+not|can't|cannot|wouldn't)\s+tell\b",
    re.IGNORECASE,
)
# An opening that has the reader look at the figures, not act: "If you just look at
# whether the counts went up at all at six months, traffic ... went up at 17 of the 40
# schools" (decision 0115).
READER_LOOKS = re.compile(
    r"^(?:if\s+you\s+(?:just\s+|only\s+|simply\s+)?(?:look|compare|count|check|add|go\s+by|"
    r"take\s+(?:the|all|only))"
    # a time the reader is taken to ("Once you get past the first eighteen months or so,
    # the number of people dying because of drink is right back where it was": 0130)
    r"|(?:once|by\s+the\s+time)\s+you(?:'re|\s+are|\s+get|\s+go)\s+(?:past|beyond|to)"
    # studies the reader sets aside ("once you take out the small studies, the kids who
    # learned an instrument were no better at maths ...": decision 0133)
    r"|(?:if|once|when)\s+you\s+(?:just\s+|only\s+)?(?:(?:take|strip|leave|set)\s+(?:out|aside)|"
    r"exclude|discount|adjust\s+for|allow\s+for|control\s+for))\b",
    re.IGNORECASE,
)
