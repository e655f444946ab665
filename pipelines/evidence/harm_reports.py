"""Harm a writer reports: what a treatment brought on them, and what a practitioner
counts among the people they see (decisions 0106, 0107).

A writer's own story is no claim unless it measures a change or reports harm
(`claims.informativeness`, decision 0099): "my daughter came out in a blotchy rash on
day 5 of the course" and "I had a nosebleed that lasted nearly forty minutes and ended
up at the emergency department" are the safety reports a researcher collects; "I've had
an aching left knee for about four months" is the complaint the writer came with, and
"the headaches went away" relief. A practitioner's "About one in five of my patients on
aspirin mention indigestion or heartburn" is a count, not a story of their own.
"""

from __future__ import annotations

import re
from typing import Final

from lyra.pipelines.evidence.claim_frames import WRITERS_ESTIMATE
from lyra.pipelines.evidence.claim_signals import NUMBER

SYMPTOM = re.compile(
    r"\b(?:rash(?:es)?|diarrh(?:o)?ea|nausea|nauseous|vomit(?:ed|ing)?|headaches?|dizz(?:y|iness)|"
    # "my stomach has gone, queasy within the hour" (decision 0142)
    r"queas(?:y|iness)|"
    r"wooz(?:y|iness)|light-?headed(?:ness)?|"
    r"drows(?:y|iness)|groggy|zonked|itch(?:ed|y|ing)|ached|aching|cramps|bloat(?:ed|ing)|"
    r"constipated|"
    r"palpitations|swollen|bruis(?:es?|ed|ing)|bleeding|bleeds?|nosebleeds?|heartburn|"
    r"indigestion|fainted|flush(?:ed|ing)|went\s+(?:bright\s+)?red|"
    # what a practice of the mind can bring on (decision 0127)
    r"panic(?:ky|ked|\s+attacks?)|dissociat(?:ed|ion|ive)|spaced[- ]out|flashbacks?|"
    r"nightmares?|sting(?:ing|s)?|burning|tingl(?:ing|y)|"
    # and leave one in tears ("left me in floods of tears": decision 0137)
    r"tearful(?:ness)?|in\s+(?:floods\s+of\s+)?tears|emotionally\s+(?:drained|wrung\s+out)|"
    # what a strap or a brace can press on ("pins and needles in our fingers", "went numb":
    # decision 0132)
    r"pins\s+and\s+needles|numb(?:ness)?|"
    # what skin and airways show ("red raw skin ..., some of them cracked and weeping",
    # "started sneezing and itching")
    r"(?:red\s+)?raw\s+skin|cracked\s+and\s+weeping|blister(?:s|ed|ing)?|"
    # "ended up with raw sore patches where the bandage dug in" (decision 0135)
    r"sore(?:s|ness)?|"
    r"sneez(?:e|es|ed|ing)|wheez(?:e|es|ed|ing|y)|"
    # a pain a count names ("jaw pain bad enough that they gave up": decision 0127)
    r"(?:jaw|joint|muscle|tooth|back|neck|chest|leg|knee|hip|shoulder|stomach)\s+pain)\b",
    re.IGNORECASE,
)
# what a treatment brought on, not the complaint the writer came with ("I've had an
# aching left knee for about four months" is the condition)
TREATMENT_BROUGHT = re.compile(
    r"\b(?:gave|made|left)\s+(?:me|him|her|us|them)\b|\b(?:came|broke)\s+out\s+in\b|"
    r"\bfor\s+the\s+first\s+(?:\w+\s+)?(?:days?|weeks?|months?|fortnight)\b|"
    r"\bon\s+(?:the|it|them|this)\b(?:\s+(?:course|antibiotics?|tablets?|pills?|drugs?|"
    r"medication|medicine|treatment))?|\bsince\s+(?:starting|taking|I\s+started)\b|"
    r"\bafter\s+(?:starting|taking|the\s+first\s+dose)\b|\bside[- ]effects?\b|"
    # what followed each treatment ("the deep bruised ache for a couple of days afterwards
    # happened after nearly every session I had": decision 0131)
    r"\bafter\s+(?:nearly\s+|almost\s+|pretty\s+much\s+)?(?:every|each)\s+(?:single\s+)?"
    r"(?:session|treatment|appointment|visit|injection|dose|jab|application)\b|"
    # "I started VitaFlow alongside my aspirin in March and within three weeks I had
    # bruises all over my shins" (decision 0107)
    r"\b(?:started|began)\b[^.;]{0,80}?\b(?:within|after)\s+(?:a|an|\w+)\s+(?:days?|weeks?|"
    r"months?)\b|"
    # harm that took the writer to hospital ("I had a nosebleed that lasted nearly
    # forty minutes and ended up at the emergency department")
    r"\bended\s+up\s+(?:in|at)\s+(?:the\s+)?(?:hospital|A&E|emergency|ICU|intensive\s+care)",
    re.IGNORECASE,
)
# a practitioner's count of the people they see ("About one in five of my patients on
# aspirin mention indigestion or heartburn": decision 0107) is no story of their own
PRACTITIONERS_COUNT = re.compile(
    # when, first ("before the Act, roughly one in two of my remanded clients lost either a
    # job or a tenancy": decision 0108), and what kind of client, between
    r"^(?:(?:before|after|since|until|during|in)\b[^,]{0,40},\s+)?"
    r"(?:[\w-]+\s+){0,4}?(?:of\s+)?(?:my|our)\s+(?:own\s+)?(?:[\w-]+\s+)?(?:patients|clients|"
    r"customers|members|pupils|students|residents|tenants)\b"
    # "Of the 37 patients I've started on LDN in the last two years, 14 are still taking it"
    r"|^of\s+the\s+\d[\d,]*\s+(?:[\w-]+\s+)?(?:patients|clients|customers|members|pupils|"
    r"students|residents|tenants)\s+(?:I|we)(?:'ve|\s+have)?\s+\w+",
    re.IGNORECASE,
)
# a symptom that went is an own story of relief, not of harm
EASED = re.compile(
    r"\b(?:went\s+away|cleared(?:\s+up)?|eased|disappeared|stopped|settled|improved|gone)\b",
    re.IGNORECASE,
)


# a share of the people in a group the writer sees or belongs to, anywhere in the
# sentence: "about one in four people in my Tuesday group had sore knees", "in my
# patients it's something like six in every hundred" (decision 0114)
_SHARE = (
    r"(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:in|out\s+of)\s+"
    r"(?:every\s+)?\w+"
    # "about a third of our group ended up with panicky ... feelings" (decision 0127)
    r"|(?:a|one)\s+(?:third|quarter|fifth|tenth)|half|\d+(?:\.\d+)?\s*(?:%|per\s*cent|percent))"
)
_WRITERS_GROUP = (
    r"(?:my|our)\s+(?:own\s+)?(?:[\w'\u2019-]+\s+){0,2}?(?:group|groups|class|classes|clinic|club|"
    # a child's school year ("the kids in my son's year": decision 0132)
    r"year|form|"
    r"practice|ward|caseload|patients|clients|members|pupils|students|customers|cases|"
    # a school's year groups and children ("9 out of 26 of my Year 3s": decision 0115)
    r"kids|children|year\s+\d{1,2}s|"
    # those the writer works beside ("about a third of my shift have admitted they've
    # hung back ...": decision 0131)
    r"shift|team|crew|squad|colleagues|workmates|"
    # what the writer grows or keeps ("about one in three of my oaks were too floppy to
    # hold themselves up once the tubes came off": decision 0132)
    r"trees|oaks|saplings|whips|seedlings|plants|hedges|hives|colonies|fields|plots|beds)\b"
)
COUNTED_AMONG = re.compile(
    rf"\b{_SHARE}\s+(?:[\w-]+\s+){{0,3}}?(?:in|of|among|on|at)\s+{_WRITERS_GROUP}"
    # a poster's share of the animals they keep, opening the sentence ("honestly
    # about a third of the heifers came out of it with red raw skin")
    rf"|^(?:(?:honestly|tbh|frankly|basically|literally)\s+)?(?:about\s+|roughly\s+|"
    rf"around\s+|nearly\s+|almost\s+|easily\s+|maybe\s+)?{_SHARE}\s+(?:of\s+)?the\s+"
    r"(?:[\w-]+\s+)?(?:heifers|cows|calves|ewes|lambs|sheep|animals|dogs|cats|horses|hens|"
    r"bullocks|steers|bulls|cattle|pigs|sows|goats|"
    r"birds|herd|flock)\b"
    # the writer's group as "us", or what the writer is called out to ("roughly one in
    # four of us reported itchy skin"; "about one in five of the green roofs I get called
    # out to have leaked")
    # "Three of the five of us in my flat who tried the WarmWell patches", "Three of us
    # from my leg club ended up with raw sore patches" (decision 0135)
    # "Three of the five people in my office who bought e-bikes" (decision 0136)
    r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:of|out\s+of)\s+the\s+"
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+[\w-]+\s+"
    r"(?:in|at|on|from)\s+(?:my|our)\b"
    r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:(?:of|out\s+of)\s+(?:the\s+)?"
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)\s+)?of\s+us\b"
    rf"|\b{_SHARE}\s+of\s+(?:us\b|the\s+(?:[\w-]+\s+){{1,3}}?(?:I|we)(?:'ve|\u2019ve)?\s+"
    r"(?:\w+\s+)?"
    r"(?:see|saw|get|got|inspect|inspected|survey|surveyed|visit|visited|treat|treated|"
    r"fit|fitted|install|installed|look\s+after|work\s+on|"
    # "roughly four in ten of the people I start on a light box come back ..." (0124)
    r"start|started|put|prescribe|prescribed|refer|referred|care\s+for|work\s+with|"
    # "about one in three of the topped-up lofts I've been up into this winter" (0128)
    r"been\s+(?:up|out|in)\s+(?:into|to|in)|"
    # "about a third of the conferences I've sat in with an advocate present" (0132)
    r"sat\s+in(?:\s+on)?|been\s+to|attended|chaired|handled|dealt\s+with|supported)\b)"
    # a share of what the writer sent or handled, the noun before them ("about one in
    # every ten reminder texts we sent was going to a number the patient had given up":
    # decision 0135)
    rf"|\b{_SHARE}\s+(?:[\w-]+\s+){{1,3}}?(?:I|we)\s+(?:sent|sold|posted|fitted|installed|"
    r"treated|saw|checked|tested|issued|ran|laid|dug|planted|handled|booked)\b"
    # those who come to the writer ("roughly a third of the people on benefits who come
    # to us with a day fine have fallen into arrears on it": decision 0131)
    rf"|\b{_SHARE}\s+of\s+the\s+(?:[\w-]+\s+){{1,6}}?who\s+(?:come|came)\s+to\s+(?:us|me)\b"
    # the writer's own count of a set of theirs, restated as a share ("on 9 of those 22
    # fields, so about 4 in 10, we've had to go back in with extra pellets": 0124)
    rf"|\b\d[\d,]*\s+(?:of|out\s+of)\s+(?:those|these|our|my)\s+\d[\d,]*\s+[\w-]+"
    rf"(?:\s+\w+){{0,3}}?\s*,\s*(?:so\s+|that's\s+|which\s+is\s+)?(?:about\s+|roughly\s+|"
    rf"around\s+|nearly\s+|almost\s+|over\s+)?{_SHARE}"
    rf"|\b(?:in|among)\s+{_WRITERS_GROUP}[^.;]{{0,40}}?\b{_SHARE}"
    # the answers to a poll or survey of the writer's own ("I put a poll on the village
    # page and 31 of the 96 people who answered ... said they'd found ticks": 0123)
    r"|\b\d[\d,]*\s+(?:of|out\s+of)\s+(?:the\s+)?\d[\d,]*\s+(?:[\w-]+\s+){0,2}?"
    r"(?:people|respondents|parents|members|residents|users|readers|owners|patients|"
    r"customers|neighbours|neighbors|households|families)\s+(?:who|that)\s+(?:answered|"
    r"responded|replied|took\s+part|filled|completed|voted|returned)\b"
    # the writer's own count "out of" a group of theirs ("Out of the nine of us in my
    # Tuesday knee class who got fitted with these braces, three ended up having to
    # stop": decision 0129)
    r"|^out\s+of\s+(?:the\s+|our\s+|my\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty)\s+(?:of\s+us\b|[\w-]+\s+(?:I|we)\b)"
    r"[^.;]{0,80}?,\s*(?:about\s+|roughly\s+|only\s+|just\s+)?(?:\d+|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\b"
    # a count of occasions or things with the noun inside it ("on roughly one run in
    # three after midnight I end up dealing with a punch-up", "the cows ended up
    # squashing roughly one nest in three": decision 0129); no year after "in"
    r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|\d{1,3})\s+[a-z][\w-]*\s+in\s+"
    r"(?:every\s+)?(?:two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|a\s+hundred|"
    r"\d{1,3}(?:,\d{3})*)\b(?![,.]?\d)"
    # the speaker's own estimate of how often ("I'd say roughly one session in five ended
    # with somebody at the first-aid box": decision 0125)
    rf"|{WRITERS_ESTIMATE}\s+(?:that\s+)?(?:roughly\s+|about\s+|"
    r"around\s+|something\s+like\s+|maybe\s+|probably\s+|at\s+least\s+)?(?:(?:one|two|three|"
    r"four|five|six|seven|eight|nine|ten|\d+)\s+(?:[\w-]+\s+)?(?:in|out\s+of)\s+(?:every\s+)?\w+"
    r"|\d+(?:\.\d+)?\s*(?:%|per\s*cent|percent)|(?:a|one)\s+(?:third|quarter|half|fifth|tenth)\b)",
    re.IGNORECASE,
)


def practitioners_count(text: str) -> bool:
    """True when ``text`` opens on a count of the people its writer sees ("About one in
    five of my patients ...", "Roughly a third of our members ..."), or gives a share of
    a group of theirs ("about one in four people in my Tuesday group had sore knees",
    "one in four of us", "one in five of the roofs I get called out to")."""
    return PRACTITIONERS_COUNT.match(text) is not None or COUNTED_AMONG.search(text) is not None


def reports_harm(text: str, *, own_story: bool, counted: bool) -> bool:
    """True when ``text`` reports harm: the writer's own (``own_story``) symptom that a
    treatment brought on and that has not gone, or a symptom with a number in a
    practitioner's count (``counted``)."""
    symptom = SYMPTOM.search(text) is not None
    if own_story:
        return symptom and TREATMENT_BROUGHT.search(text) is not None and not EASED.search(text)
    return counted and symptom and NUMBER.search(text) is not None


# How often a witness saw a thing happen, told in words (decision 0134): "Nearly every
# time I peeled one off the skin underneath was angry red", "locked me out almost every
# other morning", "chewed ... the loose string cables along pretty much every row", "had
# the same sore marks every single morning", "nearly everyone on my drink-drive course
# said theirs did the same", "two others in my shingles support group had the very same
# rash", "the other three men in his bay", "well over half ended up eating each other",
# "Half the people I referred ... were still waiting". A witness's count is a finding
# another source can contradict, as a practitioner's share is (`COUNTED_AMONG`).
_FEW = r"(?:two|three|four|five|six|seven|eight|nine|ten|a\s+few|several|\d+)"
_DID = (
    r"(?:were|was|had|ended|got|came|went|did|fell|gave|needed|stopped|"
    # how they felt ("Half my form felt dizzy and woozy after the session": decision 0143)
    r"felt|"
    # what they told the witness ("half the people on our allotment WhatsApp say the same
    # has happened to them": decision 0135)
    r"say|said|told|reported|complained|"
    # what has befallen them ("half the kids on our lane have been stung": decision 0137)
    r"have\s+been|has\s+been|have\s+had|has\s+had)"
)
# a share in words ("roughly a third of the drippers on every row were gunked up")
_FRACTION = (
    r"(?:half|(?:a|one)\s+(?:third|quarter|fifth|tenth)|two[- ]thirds|three[- ]quarters"
    # "Three out of four farms on our lane" (decision 0140)
    rf"|{_FEW}\s+(?:out\s+)?of\s+(?:every\s+)?{_FEW})"
)
_NUMBER_WORD = (
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:thir|four|fif|six"
    r"|seven|eigh|nine)teen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|a\s+hundred)"
)
WITNESS_FREQUENCY = re.compile(
    # how often, or of whom ("Nearly every child in my daughter's class ... got picked on":
    # decision 0135)
    r"\b(?:nearly|almost|pretty\s+much|practically|virtually|just\s+about|near\s+enough)"
    r"\s+every\s+"
    r"(?:single\s+|other\s+)?(?:time|morning|night|evening|day|week|row|lesson|session|round|"
    # "near enough every pass" of a roller (decision 0141)
    r"shift|run|visit|one|bed|field|tunnel|plant|patient|walk|ride|trip|pass|cycle|"
    r"child|kid|pupil|student|family|household|tenant|customer|client|person|parent|"
    r"neighbour|driver|house|home|flat|garden|pond|case|"
    # "at pretty much every handover" (decision 0146)
    r"handover|meeting|hearing|appointment)\b"
    # each of the witness's own occasions ("I co-facilitated eight of the StandUp sessions
    # ... and in every single one at least two or three people had to leave the room":
    # decision 0146)
    r"|\b(?:in|at|on|after)\s+every\s+single\s+one\b"
    # every one of those the witness knows or sits among ("Every tenant I know on Denholme
    # Road got a rent rise letter", "every family in our support group")
    r"|\bevery\s+(?:single\s+)?[\w-]+\s+(?:[\w-]+\s+)?(?:(?:I|we)\s+(?:know|knew|spoke\s+to|"
    # "Pretty much every letting agent I rang" (decision 0140)
    r"talked\s+to|asked|met|worked\s+with|rang|phoned|called|contacted|tried|visited)\b"
    r"|(?:in|on|at)\s+(?:my|our)\b)"
    # "we had 23 of our 180 cows get their switch wound into the bristles" (decision 0143)
    r"|\b\d[\d,]*\s+of\s+(?:our|my)\s+\d[\d,]*\s+[a-z][\w-]*"
    # in words ("the voles ringbarked nine of my twenty-six trees": decision 0144)
    rf"|\b{_NUMBER_WORD}\s+of\s+(?:our|my)\s+{_NUMBER_WORD}\s+[a-z][\w-]*"
    # "Three of the five jobs I reported on the app last winter were marked as completed"
    # (decision 0141)
    rf"|^{_FEW}\s+of\s+the\s+{_FEW}\s+[\w-]+\s+(?:I|we)\s+[a-z]+ed\b"
    # "Nearly every jury view I organised in twenty-two years at the court set the trial
    # back" (decision 0141)
    # (opening the sentence: not "the bruised ache came after nearly every match I played")
    r"|^(?:nearly|almost|pretty\s+much|practically|virtually|just\s+about|near\s+enough)"
    r"\s+every\s+[\w-]+\s+(?:[\w-]+\s+)?(?:I|we)\s+[a-z]+ed\b"
    # "Every single bed I mulched with raw fleece went into a hard felt mat" (0140)
    r"|\bevery\s+single\s+[\w-]+\s+(?:I|we)\s+[a-z]+ed\b"
    # "everyone on my floor had ..." (decision 0140)
    r"|\b(?:everyone|everybody)\s+(?:in|on|at)\s+(?:my|our)\b"
    r"|\bevery\s+single\s+(?:time|morning|night|evening|day|week|lesson|session|shift"
    # "every single cycle" of chemotherapy (decision 0141); "four or five kids in tears
    # every single Friday" (decision 0144)
    r"|cycle|dose|visit|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    # all but a few of those in the witness's own place ("almost every panel below head
    # height in my room": decision 0136)
    r"|\b(?:nearly|almost|pretty\s+much|practically|virtually|just\s+about)\s+every\s+"
    r"[\w-]+\s+(?:[\w-]+\s+){0,4}?(?:in|on|at)\s+(?:my|our|his|her|their)\b"
    r"|\b(?:nearly|almost|practically|virtually|pretty\s+much|just\s+about)\s+(?:everyone|everybody|"
    r"all\s+of\s+(?:us|them))\b"
    rf"|\b{_FEW}\s+others?\s+(?:in|on|at|from)\s+(?:my|our|his|her|their)\b"
    # "two other mums at our clinic said exactly the same happened" (decision 0135)
    rf"|\b{_FEW}\s+other\s+[\w-]+\s+(?:in|on|at|from)\s+(?:my|our|his|her|their)\b"
    # whenever a thing comes ("Every time the sleet comes in sideways my ewes pile into
    # the lee of the hawthorn row")
    r"|^every\s+(?:single\s+)?time\s+(?:the|a|it|we|I|they|there|my|our)\b"
    # "whenever the dog's in, half the jury box and me are sniffing" (decision 0142)
    r"|\bwhenever\s+(?:the|a|it|we|I|they|there|my|our)\b"
    rf"|\bthe\s+other\s+{_FEW}\s+(?:[\w-]+\s+){{0,2}}?(?:in|on|at)\s+(?:my|our|his|her|their)\b"
    rf"|\b(?:well\s+over|over|about|nearly|almost|more\s+than)\s+half\s+{_DID}\b"
    # of the witness's own ("wasps had moved into well over half of them", "loads of the
    # other mums and dads at the school gate told me": decision 0137)
    r"|\b(?:well\s+over|over|nearly|almost|more\s+than)\s+half\s+of\s+(?:them|my|our)\b"
    r"|\b(?:loads|lots|most|plenty)\s+of\s+the\s+other\s+(?:[\w'-]+\s+){1,8}?"
    r"(?:told|said|say|says)\b"
    # "at my support group nearly every woman there said the same had happened to them",
    # "most days of the week" (decision 0145)
    r"|\b(?:nearly|almost|pretty\s+much|practically|virtually|just\s+about)\s+every\s+"
    r"[\w-]+\s+there\s+(?:said|told|had|say|says)\b"
    r"|\bmost\s+(?:days|nights|mornings|evenings|weeks|sessions|shifts)\s+of\s+the\s+"
    r"(?:week|month|year|term)\b"
    # "loads of her mates had the same thing happen to them" (decision 0145)
    r"|\b(?:loads|lots)\s+of\s+(?:my|our|her|his|their)\s+[\w'-]+\s+(?:had|got|told|said"
    r"|were|went)\b"
    rf"|\b{_FRACTION}\s+(?:of\s+)?(?:the|my|our)\s+(?:[\w'-]+\s+){{0,10}}?{_DID}\b"
    # of those the witness handles as their work ("I send back about half the
    # plain-English sheets I check": decision 0145)
    rf"|\b{_FRACTION}\s+(?:of\s+)?the\s+(?:[\w'-]+\s+){{0,4}}?(?:I|we)\s+(?:check|see|review"
    r"|mark|handle|read|inspect|audit|process|get|treat|assess"
    # those the witness sat with or cared for ("at least half the old dears I sat with on
    # the ward": decision 0146)
    r"|sat\s+with|sit\s+with|looked\s+after|look\s+after|cared\s+for|care\s+for|nursed"
    r"|visited|visit|taught|teach|coached|coach|worked\s+with|work\s+with)\b"
    # so many of the few the witness has had ("Three of the four llamas we've had turned
    # on the lambs": decision 0146)
    rf"|\b{_FEW}\s+(?:out\s+)?of\s+the\s+{_FEW}\s+[\w'-]+\s+(?:we|i)(?:'ve|\s+have)?\s+"
    r"(?:had|kept|owned|bought|used|tried|put\s+in|planted)\b"
    # so many of those in the witness's place, one or two words describing them ("four of
    # the six English teachers in our department went hoarse"), and so many of those the
    # witness counted just before ("the link froze or cut out on four of them"): 0147
    rf"|\b{_FEW}\s+of\s+the\s+{_FEW}\s+(?:[\w'-]+\s+){{0,2}}?[a-z]+s\s+(?:in|on|at)\s+"
    r"(?:my|our)\b"
    rf"|\b(?:on|had|lost|took|killed)\s+{_FEW}\s+of\s+them\b"
    # of the witness's own stock, whatever befell it ("about half my tank loads of compost
    # tea clogged the nozzles": decision 0144)
    rf"|\b{_FRACTION}\s+(?:of\s+)?(?:my|our)\s+(?:[\w'-]+\s+){{0,6}}?[a-z]{{3,}}ed\b"
    # so many of those in the witness's place ("Three out of four farms on our lane that
    # sowed rattle lost nearly half their hay": decision 0140)
    rf"|\b{_FRACTION}\s+[\w-]+\s+(?:in|on|at|along|round)\s+(?:my|our)\b"
    # year after year, and said to be no rarity ("Three winters running I've found roe
    # caught up in ... our deer netting, ..., so it's not some once-in-a-blue-moon thing":
    # decision 0138)
    rf"|\b{_FEW}\s+(?:winters|summers|springs|autumns|years|seasons|times|weeks)\s+running\b"
    # "Most lunchtimes I'm tipping half the free-lunch trays into the slop bin" (0141)
    r"|\b(?:most|many)\s+(?:days|nights|mornings|evenings|afternoons|lunchtimes|weeks"
    r"|weekends|sessions|shifts|lessons|runs|visits)\s+(?:I|we)\b"
    # "Week in, week out we see people who never got a single email" (decision 0139)
    r"|\b(?:week|month|day|year)\s+in,?\s+(?:week|month|day|year)\s+out\b"
    # "Half the ladies in my sheltered housing block tried that xylitol gum" (0140)
    r"|\bhalf\s+the\s+[\w-]+\s+(?:in|on|at)\s+(?:my|our)\b"
    # "Out of the five runs of woven willow I put in on our syndicate water, only one ever
    # sprouted" (decision 0140)
    rf"|\bout\s+of\s+the\s+{_FEW}\s+[\w-]+\s+(?:[\w-]+\s+){{0,6}}?(?:I|we)\s"
    # "loads of the kids in my daughter's Year 4 class ..., not just one or two" (0140)
    r"|\b(?:loads|lots)\s+of\s+the\s+[\w-]+\s+(?:in|on|at)\s+(?:my|our)\b"
    r"|\bnot\s+just\s+(?:one|1)\s+or\s+(?:two|2)\b"
    r"|\bnot\s+(?:some\s+|a\s+|just\s+a\s+)?(?:once-in-a-blue-moon|one-off|freak|rare)\s+"
    r"(?:thing|event|case|problem|occurrence)\b",
    re.IGNORECASE,
)
# A witness's own two groups alike, one that had the thing and one that had none
# (decision 0134): "my lambs off the solar site weighed up no different from the ones on
# the ordinary grass", "were every bit as confused by day three as the ones who slept
# with nothing on", "came off their bikes just about as often as the kids at the school
# down the road", "you honestly couldn't tell them apart", "weren't a penny better off a
# year later than families at the practices down the road".
WITNESS_ALIKE = re.compile(
    r"\bno\s+different\s+(?:from|to|than)\s+the\s+ones?\b"
    # as much as the other group, or as in the other place or time ("felt about as much
    # better as the ones with the real hot ones", "every bit as bad as in Castle Ward
    # across the river": decision 0135)
    r"|\b(?:every\s+bit|just|exactly|just\s+about|about|roughly|pretty\s+much|more\s+or\s+less)"
    r"\s+as\s+[\w-]+\s+(?:[\w-]+\s+){0,8}?as\s+(?:the\s+(?:ones?|kids|children|people|families|"
    r"patients|pupils|others)\b|(?:in|at|on|under|with|before|back)\s)"
    # no quicker or better than before, or than the others ("my ulcer closed up no quicker
    # than it did years ago with just a plain dressing": decision 0135)
    r"|\bno\s+(?:quicker|faster|slower|sooner|better|worse|more|less|fewer|higher|lower|"
    r"clearer)\s+(?:[\w-]+\s+){0,4}?than\s+(?:(?:it|they|I|we|she|he)\s+(?:did|had|was|were|"
    r"used\s+to)\b|the\s+(?:ones?|kids|children|people|families|patients|pupils|others)\b)"
    # "my tomatoes weighed out about the same as they did under the old sprinkler guns"
    r"|\b(?:about|roughly|pretty\s+much|much|exactly|near\s+enough|more\s+or\s+less)\s+the\s+"
    r"same\s+as\s+(?:they|it|we|I|she|he)\s+(?:did|had|were|was|used\s+to)\b"
    # than the witness's own group ("the folk who'd been told to wait a year for their place
    # were no lonelier than those of us swapping hours": decision 0142)
    r"|\bno\s+[a-z]{3,}er\s+(?:[\w-]+\s+){0,4}?than\s+(?:those\s+of\s+us|the\s+rest\s+of\s+us)\b"
    # the witness's own two set side by side ("when we compared the two, the greenery made
    # no real difference to how well the kids concentrated": decision 0142)
    r"|\bcompared\s+(?:the\s+two|them|both)\b[^.;]{0,40}?\bno\s+(?:real\s+|great\s+|big\s+)?"
    r"difference\b"
    r"|\b(?:could|can)(?:n't|n\u2019t|\s+not)\s+(?:honestly\s+|really\s+)?tell\s+(?:them|the\s+two"
    r"(?:\s+\w+)?)\s+apart\b"
    r"|\bbetter\s+off\s+(?:[\w-]+\s+){0,4}?than\s+(?:the\s+)?(?:families|people|ones|those|kids|"
    r"patients|households)\b",
    re.IGNORECASE,
)


# Any two groups alike, one of them plain (decision 0136; read by `nli_alike` against a
# trial's lead over its control arm, on lower-case tokens joined by spaces).
# Two groups alike: "as often as", "every bit as good as", "the same time as", "the same
# at both", "no better than", "no more grain ... than", "near enough identical". Not
# after a word that makes it a difference or a bound ("not as often as", "twice as
# many as", "nearly as good as", "no more than 4 grams").
TWO_GROUPS_ALIKE: Final = re.compile(
    r"(?<!\bnot )(?<!\bnowhere near )(?<!\bnearly )(?<!\balmost )(?<!\btwice )"
    r"(?<!\bhalf )(?<!\btimes )(?<!\bleast )"
    r"\bas (?:often|much|many|well|good|fast|quickly|soon|long|high|low|likely|bad|badly"
    r"|far)(?: to be \w+)? as\b(?! (?:possible|ever|usual|before|needed|necessary|you|we"
    r"|they|i)\b)"
    # not a manner ("in the same way as any other honey")
    r"|(?<!\bnot )\bthe same (?!way\b)(?:\w+ ){0,3}?(?:as|at both|in both)\b"
    # hedged, the groups named before ("lined up the folk who got the e-bike money
    # against the ones still sitting on the waiting list, their cars were clocking pretty
    # much the same mileage")
    r"|\b(?:pretty much|more or less|near enough|roughly|about) the same\b"
    # "both were the same shade of pea soup" (decision 0138)
    r"|\bboth (?:\w+ ){1,2}?(?:just |exactly |pretty much |about )?the same\b"
    # at one time or pace ("both of them had gone in the same week"), or nothing between
    # them ("there was nothing to choose between the two rows": decision 0139)
    r"|\bboth (?:of (?:them|us|the \w+) )?(?:\w+ ){0,3}?(?:in|at|on|by|within) the same\b"
    r"|\bnothing to choose between\b"
    # level with the other ("the teamwork scores came out dead level with the floor that
    # kept its own named desks": decision 0146)
    r"|\b(?:dead |about |pretty much |near enough |more or less )?level with\b"
    r"|\bneck and neck\b|\bon a par with\b"
    # the groups named before, their figures "came out the same, give or take" (0148)
    r"|\bcame out (?:exactly |just )?the same\b"
    # any likeness stressed ("every bit as mucky as Castleworth's")
    # ("had just as many rows still dragging on a year later as the streets where ...":
    # decision 0144)
    r"|\b(?:every bit|just) as \S+ (?:\S+ ){0,8}?as\b(?! (?:possible|ever|usual|before"
    r"|needed|necessary|you|we|they|i)\b)"
    # hedged, so many of a thing as the other ("having a drink on about as many days as
    # the ones on plain old probation": decision 0146), or still so many ("still picking up
    # as many ticks as next door": decision 0147)
    r"|\b(?:about|roughly|pretty much|near enough|still(?: \w+){0,2}) as (?:many|much) \S+ "
    r"(?:\S+ ){0,3}?as\b"
    r"(?! (?:possible|ever|usual|before|needed|necessary|you|we|they|i)\b)"
    # alike whichever way it went ("my legs were every bit as sore either way": 0144)
    r"|\b(?:every bit|just|exactly|equally) as \S+ (?:either way|both ways|whichever)\b"
    r"|\bthe same either way\b"
    # as many off both ("I picked just as many courgettes off both": decision 0147)
    r"|\b(?:every bit|just|exactly) as (?:many|much) (?:\S+ ){0,3}?(?:off|from|in|on|at|with) "
    r"both\b"
    r"|\bno (?:better|worse|quicker|faster|sooner|higher|lower|different)\b"
    # any other comparative of two groups, not a bound or a time ("the tiddlers were no
    # thicker in the grass than out on the bare patch"; not "no longer than 10 days", "no
    # later than": decision 0137)
    r"|\bno (?!longer\b|later\b|earlier\b|greater\b|fewer\b|other\b|never\b|under\b|over\b)"
    r"[a-z]{3,}er (?:[\w']+ ){0,8}?than\b(?! \S*\d)(?! (?:a|an|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|half|a few)\b)"
    # denied in other words ("weren't getting out of the house any more often than", "didn't
    # end up any less bothered by the heaviness than": decision 0137)
    # ("didn't settle to their work one bit better than": decision 0138)
    # ("don't get sorted out a day sooner than the old paper claims": decision 0139)
    # ("the laid stretch never had any more dormice in it than": decision 0140)
    r"|(?:n't|\bnot|\bnever) (?:\w+ ){0,6}?(?:any|one bit|a bit|a jot|a day|a week|a minute"
    r"|an hour) (?:more|less|better|worse"
    # past a second thing denied ("didn't file any more often, or stick with their cases
    # any longer, than the people who paid the full sixty-five dollars": decision 0144)
    r"|quicker|faster|sooner|happier|healthier|fitter|fewer)\b(?: [\w,]+){0,9}? than\b"
    r"|\bno (?:more|less|fewer) (?!than \S*\d)(?!than (?:a|an|one|two|three|four|five|six"
    r"|seven|eight|nine|ten|half|a few)\b)"
    # outcomes, not how a placebo looked ("identical placebo capsules", "looked identical")
    r"|(?<!\blooked )(?<!\blook )(?<!\blooks )(?<!\blooking )(?<!\bthat )"
    r"\b(?:identical|indistinguishable)\b(?! (?:\w+ )?(?:placebo|sham|dummy|capsules?"
    r"|tablets?|patch|patches|looking)\b)(?!-)"
    # "made no real difference to people's headaches compared with a plain look-alike
    # oil" (decision 0140)
    r"|\bno (?:real |actual |noticeable )?difference (?:[\w']+ ){0,6}?compared (?:with|to)\b"
    # "when we compared the two , the greenery made no real difference" (decision 0142)
    r"|\bcompared (?:the two|them|both) (?:\S+ ){0,8}?no (?:real |actual |noticeable )?"
    r"difference\b"
    # "you couldn't tell the two halves apart for flowers" (decision 0140)
    r"|\b(?:could|can) ?n't (?:\w+ )?tell (?:them|the (?:two|2)(?: \w+)?|the \w+) apart\b"
    # "you couldn't tell one lot of spuds from the other" (decision 0143)
    r"|\b(?:could|can) ?n't (?:\w+ )?tell (?:one|the one|this) (?:[\w']+ ){0,4}?from the other\b"
    # "by Easter you couldn't tell who'd had what" (decision 0143)
    r"|\b(?:could|can) ?n't (?:\w+ )?tell who ?'?d? (?:had|got|done) (?:what|which)\b"
    # "come August you honestly couldn't tell which was which" (decision 0148)
    r"|\b(?:could|can) ?n't (?:\w+ )?tell which (?:was|is) which\b",
    re.IGNORECASE,
)
# The plain group, in a witness's words: those who "just" went on, whom "nobody" treated,
# with "no ... at all", a "dummy", the "plain" or "usual" kind, the "waiting list", the
# way it was "back when".
PLAIN_GROUP: Final = re.compile(
    r"\b(?:who|that|which|whose)(?: \w+){0,2} (?:just|only|simply)\b"
    r"|\b(?:the landlord|they|we|you|i)(?:'d|'ve)? just\b"
    # "when I'd only been brushing my teeth" (decision 0147)
    r"|\b(?:they|we|you|i)(?:'d|'ve| had| have) only (?:been|used|had|done)\b"
    r"|\bnobody\b|\bno ?one\b"
    r"|\bno \w+(?: \w+)? at all\b"
    r"|\bnever\b|\b(?:went|go|goes|gone|did|do|managed) without\b"
    r"|\bwithout (?:one|it|them|any)\b"
    r"|\b(?:dummy|plain|usual|ordinary|normal|untreated|untouched|placebo|sham|control)\b"
    r"|\bwaiting list\b|\bback when\b|\bthe rest of us\b"
    # "six weeks of just sitting on the sofa", "the rows I still spray", "the set next door
    # who had nothing on their walls", "the people who paid the full sixty-five dollars"
    # (decision 0144)
    r"|\bjust (?:sitting|resting|lying|sat|rested|lay)\b"
    # "the ones whose landlords went straight to court" (decision 0144)
    r"|\b(?:went|go|goes|gone|going) straight (?:to|into|in|ahead)\b"
    r"|\bthe \w+ (?:i|we|they) still \w+"
    r"|\bhad nothing (?:on|in|up)\b"
    r"|\bpaid (?:the )?full\b"
    # "the folks still waiting for their turn in the queue" (decision 0142)
    r"|\bstill waiting\b|\b(?:told|asked|made) to wait\b"
    # "the ones working alone", "let the other half crack on by themselves" (0142)
    r"|\b(?:working|worked|work|left) alone\b|\bby themselves\b"
    # "the lot I'd left out on the field with a ring feeder" (decision 0143)
    r"|\bleft (?:them |it )?out (?:on|in) the (?:field|grass|paddock|hill|open)\b"
    # "the ones who came in on their own" (decision 0143)
    r"|\b(?:came|come|went|go|turned up|showed up)(?: in| along)? on (?:their|his|her) own\b"
    # "the other getting nothing but the hosepipe", "the wings next door that still queue
    # for the landing phone" (decision 0145)
    r"|\b(?:who|that|which) still (?:queue|queued|use|used|rely|relied|do|did|walk|walked"
    r"|wait|waited|travel|travelled)\b"
    r"|\b(?:getting|got|gets|get|given|had|having|on|with) nothing but\b"
    # "my other tunnel where the tomatoes grew on their own" (decision 0145)
    r"|\b(?:grew|grow|grown|growing|planted|stood|sat|kept|ran|lived) on (?:their|its) own\b"
    # "bales in one, nothing in the other", "the ones sat with empty hands" (decision 0138)
    r"|\bnothing in the other\b|\bempty ?-? ?hand(?:s|ed)\b"
    # "the ones I just left alone", those "who kept their old short dinner break"
    # (decision 0138)
    r"|\bleft (?:(?:it|them) )?(?:(?:completely|entirely|totally|well|quite) )?alone\b"
    # "the ones we told to leave their mouths alone" (decision 0143)
    r"|\b(?:leave|leaving) (?:their|its|his|her|the|them|it) (?:\w+ )?alone\b"
    # "put nothing at all on the one on my right", "left the other half bare", "than the
    # old paper claims" (decision 0139)
    r"|\bnothing (?:\w+ )?at all\b"
    # "left the other half as it was" (decision 0140), "left the rest bare" (0147)
    r"|\bleft (?:the other (?:\w+ )?|the rest |them |it )?(?:bare|as (?:it|they) (?:was|were))\b"
    # "left the bottom ones as they were", "the ones I left open to the sky", "who just
    # left the blister open to the air" (decision 0148)
    r"|\bleft the (?:\w+ ){1,2}?as (?:it|they) (?:was|were)\b"
    r"|\bleft (?:(?:it|them|the \w+) )?open to the (?:air|sky|elements|weather)\b"
    # "left the other half as we always do" (decision 0143)
    r"|\bleft (?:the other (?:\w+ )?|them |it )?as (?:we|i|they) (?:always|usually|normally) "
    r"(?:do|did|have)\b"
    # "left the one beside it bare", "the nights we left it switched off" (decision 0142)
    r"|\bleft the (?:one|field|plot|bed|half|row|side) (?:\w+ ){0,3}?bare\b"
    r"|\bleft (?:it|them) (?:switched |turned )?off\b"
    r"|\bthan the old\b"
    # "the class across the corridor had bare windowsills" (decision 0142)
    r"|\bbare (?:windowsills?|walls?|shelves|soil|ground|earth)\b"
    r"|\bkept (?:their|the|its|our|his|her) (?:old|usual|normal|same|own)\b"
    # what they were using already ("the ones who stay in the nappies their parents were
    # already using": decision 0146)
    r"|\b(?:were|was|had been) already (?:using|doing|taking|giving|on)\b"
    # the times before it came ("the springs before we ever had him": decision 0146)
    r"|\bbefore (?:we|i|they|you) (?:ever )?(?:had|got) (?:him|her|it|them|one|any)\b"
    # those who had not the thing ("the kids who'd had a volunteer mentor were being
    # reconvicted at pretty much the same rate as the kids who hadn't": decision 0137)
    r"|\bwho (?:hadn't|hasn't|haven't|didn't|don't|doesn't|weren't|wasn't|had not|did not"
    r"|have not|were not)\b"
    # those still taken the old way ("the ones we still put in the van": decision 0137)
    r"|\bones? (?:(?:we|they|you) )?still\b"
    # those who stayed as they were ("the ones who stayed sat round the boardroom
    # table": decision 0139)
    r"|\bwho stayed (?:sat|seated|put|indoors|inside|at home|behind)\b"
    # "the lot who stayed in court with the photo bundle" (decision 0141)
    r"|\bwho stayed (?:in|at) (?:court|class|school|the office|the classroom|their classrooms"
    r"|base|the depot)\b"
    # "a pretend version", "the bit my husband dug over the old-fashioned way", "the
    # streets where the council still leaves it a fortnight" (decision 0139)
    r"|\bpretend\b|\bthe (?:old ?-? ?fashioned|old|usual|normal) way\b"
    r"|\bwhere (?:the \w+ |they |we |it )?still\b"
    # "the classes where teachers were still marking every book by hand" (decision 0148)
    r"|\bwhere \w+ (?:were|was|are|is) still\b"
    # "the ones who said no thanks and skipped it" (decision 0141)
    r"|\bwho (?:said no|turned (?:it|them) down|skipped (?:it|them))\b"
    # "the wards where officers just went straight in" (decision 0140)
    r"|\bwhere (?:the )?[\w']+ just\b"
    # "the parks where the council had carted all the old wood away" (decision 0140)
    r"|\b(?:carted|cleared|hauled|taken|tidied|stripped) (?:\w+ ){0,4}?away\b",
    re.IGNORECASE,
)


def alike_with_a_plain_group(text: str) -> bool:
    """Two groups alike, one of them plain (`TWO_GROUPS_ALIKE`, `PLAIN_GROUP`)."""
    return TWO_GROUPS_ALIKE.search(text) is not None and PLAIN_GROUP.search(text) is not None


def witnessed(text: str) -> bool:
    """True when ``text`` tells how often a witness saw a thing happen, or two of the
    witness's groups alike (`WITNESS_FREQUENCY`, `WITNESS_ALIKE`, or any equality with a
    plain group: "went home at more or less the same time as the ones who just got
    oxygen", decision 0136)."""
    return (
        WITNESS_FREQUENCY.search(text) is not None
        or WITNESS_ALIKE.search(text) is not None
        or alike_with_a_plain_group(text)
    )
