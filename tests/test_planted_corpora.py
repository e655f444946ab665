"""Planted corpora on other questions: every fact on every facet is a claim (issue 12).

Ten corpora written so that the claim and stance rules are not only measured on the
corpus they were developed on (examples/corpus): tests/corpora/vitamin_d,
tests/corpora/melatonin (medicine: vitamin D and fractures; melatonin for insomnia) and
tests/corpora/zinc_colds (medicine: zinc lozenges for colds, with tables, FAQs and comments),
tests/corpora/heat_pumps, tests/corpora/four_day_week, tests/corpora/electric_cars,
tests/corpora/non_competes and tests/corpora/honeybees (other fields: heat pumps in cold
climates; the four-day work week; electric cars' lifetime emissions; the law on
non-compete agreements; what is causing honey bee colony losses, a question of causes
with an agency report as a PDF) and tests/corpora/sugar_taxes (public health policy:
whether sugar taxes reduce consumption, with a structured abstract, an encyclopedia
article with citations and a statistical bulletin) and tests/corpora/e_scooters (road
safety: shared e-scooters and injuries, with a press release, a forum thread, a
company's page with a specification table, footnotes and council minutes as plain
text); later ones on creatine, fasting and statins, and tests/corpora/dental_pain (a
comparison question, ibuprofen or paracetamol after wisdom tooth removal, written
blind, with a forum thread whose replies trafilatura dropped, decision 0096) and
tests/corpora/nicotine_patches (nicotine patches and pregnancy, written blind, with a
trial abstract as a PDF and forum replies that part paragraphs with <br><br>, decision
0097) and tests/corpora/hpv_vaccine ("How well does ...", written blind, with an
encyclopedia article, a two-column PDF, a product leaflet's frequency table, answers
and nested replies, decision 0097) and tests/corpora/probiotics (written blind: a
structured abstract, a GRADE summary-of-findings table with a two-row header, a decision
aid, a podcast transcript with timestamps, a plain-text guideline with numbered
paragraphs, a slide deck as a PDF, a newsletter e-mail and a Word-exported leaflet,
decision 0098) and tests/corpora/helmets (written blind: a live blog, a buying guide
with pros and cons, a myths-and-facts table, a two-column paper as a PDF, a court
judgment, an infographic, a Markdown brief with footnotes and an
insurer's FAQ, decision 0098) and tests/corpora/fish_oil and tests/corpora/cover_crops
(written blind: a Q&A page with comments, a systematic review, an accordion FAQ, a
pharmacy monograph whose directions and warnings stand in <aside> boxes, a numbered
social-media thread, a Markdown handout, a magazine interview and a plain-text digest;
an extension fact sheet with "Quick facts" and "Tip" boxes, a forum thread whose
replies quote earlier posts, a statistical release, a seed company's product page, a
poster abstract, a glossary, podcast show notes and a plain-text trial report; decision
0099) and tests/corpora/knee_surgery and tests/corpora/smart_thermostats (written blind:
old-school HTML of <br>-parted lines in a layout table, a printable guideline, a nested
discussion thread, a news article with a key-takeaways box, a leaflet whose text stands
in <span>s and whose gallery captions state findings, a plain-text e-mail thread with
quoted replies, a timeline, Markdown with front matter; a comparison grid of <div>s,
stat cards, a microdata FAQ, a slide deck, a magazine review, a guidance page with
callouts, a radio phone-in transcript and a hobbyist's Markdown post; decision 0099) and
tests/corpora/green_tea and tests/corpora/noise_barriers (written blind in ordinary page
shapes, their facts phrased as writers vary them: hedges, frames, asides, labelled
values; decision 0099).
One search of each question: every planted fact
(efficacy, safety, dosage or sizing, who it is for and against, comparison with
alternatives) becomes a claim, and the contradictions the rules can see are refuted by
a source other than the claim's own. What no rule finds today is listed in each corpus's README.txt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import ray

from lyra.actors.orchestrator import Orchestrator
from tests.conftest import finished_search, make_settings

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("ray_session")]

CORPORA = Path(__file__).parent / "corpora"


@dataclass(frozen=True)
class Planted:
    question: str
    domains: frozenset[str]
    # a piece of each planted fact's claim text
    facts: tuple[str, ...]
    # (a piece of the claim, the domain whose fragment must refute it)
    refuted: tuple[tuple[str, str], ...]


PLANTED = {
    "vitamin_d": Planted(
        question="Does vitamin D supplementation prevent fractures in older adults?",
        domains=frozenset(
            (
                "ods.nih.gov",
                "trials.example",
                "bonehealth.example",
                "dailynews.example",
                "pharmacist.example",
                "nice.org.uk",
            )
        ),
        facts=(
            "vitamin D at 800 IU or more reduced hip fractures by 30 percent",
            "reduced hip fractures by 43 percent",
            "did not reduce hip fractures in people aged 65 and older",
            "had no effect on the risk of fracture",
            "lowered the risk of any fracture by 12 percent",
            "had 15 percent more falls than women given placebo",
            "Fractures were also 26 percent more frequent",
            "Too much vitamin D causes hypercalcaemia",
            "raised the risk of kidney stones by 17 percent",
            "safe for the kidneys and do not cause kidney stones",
            "Thiazide diuretics taken with vitamin D and calcium",
            "The recommended daily intake of vitamin D for adults over 70 is 800 IU",
            "The recommended daily intake of vitamin D for adults over 70 is 400 IU",
            "The tolerable upper intake level for adults is 4,000 IU per day",
            "Take vitamin D with a meal that contains some fat",
            "reduced the number of falls in women over 70",
            "People with sarcoidosis or other granulomatous diseases should not",
            "Residents of nursing homes benefit most from supplements",
            "not recommended for fracture prevention in healthy adults",
            "Bisphosphonates such as alendronate reduce hip fractures",
            "Vitamin D3 (colecalciferol) raises blood levels more than",
            "Vitamin D drops are cheaper than most prescription medicines",
        ),
        refuted=(
            ("did not reduce hip fractures in people aged 65", "ods.nih.gov"),
            ("reduced hip fractures by 30 percent", "bonehealth.example"),
            ("adults over 70 is 800 IU", "pharmacist.example"),
            ("adults over 70 is 400 IU", "ods.nih.gov"),
            ("safe for the kidneys", "dailynews.example"),
            ("had 15 percent more falls", "bonehealth.example"),
            ("reduced the number of falls", "trials.example"),
            ("lowered the risk of any fracture by 12 percent", "dailynews.example"),
            ("had no effect on the risk of fracture", "bonehealth.example"),
        ),
    ),
    "melatonin": Planted(
        question="Does melatonin help adults with insomnia sleep better?",
        domains=frozenset(
            (
                "sleepfoundation.example",
                "pharmacyguide.example",
                "clinicaltrials.example",
                "healthnews.example",
                "nhs.uk",
                "sleepclinic.example",
            )
        ),
        facts=(
            "shortened the time needed to fall asleep by 7 minutes",
            "Total sleep time increased by 8 minutes",
            "Melatonin works best for people whose sleep problems come from a delayed body",
            "Doses above 5 mg do not improve sleep more than lower doses",
            "common side effects of melatonin are headache, dizziness and daytime drowsiness",
            "licensed prolonged-release tablet for adults over 55 contains 2 mg",
            "Melatonin taken with fluvoxamine reaches blood levels up to 17 times higher",
            "People taking warfarin should talk to their doctor",
            "Melatonin does not cause dependence",
            "Pregnant or breastfeeding women should not take melatonin",
            "Melatonin improved sleep quality in 26 percent of patients",
            "Adverse events were no more frequent with melatonin than with placebo",
            "zolpidem shortened the time to fall asleep by 22 minutes",
            "The authors concluded that melatonin helps older adults with insomnia sleep",
            "actual melatonin content ranged from 74 percent to 347 percent",
            "rose by 530 percent between 2012 and 2021",
            "does not help adults with chronic insomnia fall asleep faster",
            "linked to a higher risk of heart failure",
            "Melatonin is a prescription-only medicine in the UK",
            "Melatonin is used to treat insomnia in adults aged 55 and over",
            "Do not take melatonin if you have an autoimmune disease",
            "Melatonin does cause dependence when it is taken every night",
            "The usual dose is 2 mg taken 1 to 2 hours before bedtime",
            "Cognitive behavioural therapy for insomnia (CBT-I) works better than sleeping",
            "Melatonin is less effective than zolpidem for falling asleep",
            "Avoid driving for 5 hours after taking melatonin",
            "did not improve sleep quality in adults over 55 compared with placebo",
            "Melatonin doses for children should not exceed 3 mg",
        ),
        refuted=(
            ("improved sleep quality in 26 percent of patients", "sleepclinic.example"),
            ("did not improve sleep quality in adults over 55", "clinicaltrials.example"),
            ("Melatonin does not cause dependence", "nhs.uk"),
            ("The usual dose is 2 mg taken 1 to 2 hours", "sleepfoundation.example"),
        ),
    ),
    "four_day_week": Planted(
        question="Does a four-day work week improve productivity?",
        domains=frozenset(
            (
                "worktrials.example",
                "hrmagazine.example",
                "economics.example",
                "businessnews.example",
                "gov.example",
                "employerforum.example",
            )
        ),
        facts=(
            "61 companies with 2,900 employees took part in a six-month trial",
            "Revenue stayed broadly the same over the trial period, rising by 1.4 percent",
            "staff leaving the participating companies fell by 57 percent",
            "Of the 61 companies, 56 continued with the four-day week",
            "Employees reported 71 percent lower levels of burnout",
            "does not suit firms whose customers expect service five or six days a week",
            "left employees more tired than a standard week",
            "rotating the day off keeps the office open all week",
            "spent between 5 and 10 percent more on overtime",
            "Knowledge workers gain the most",
            "Output per hour rose by 8 percent",
            "total output fell by 12 percent in manufacturing firms",
            "Productivity gains were larger in small firms",
            "less effective than flexible working hours for reducing sick leave",
            "did not improve productivity in their teams",
            "Staff turnover was unchanged",
            "Customer complaints rose by 15 percent",
            "right to request flexible working from their first day",
            "must consider a request within two months",
            "Employers should not reduce pay when working hours are cut",
            "needs the employee's consent",
            "Burnout returned to its earlier level within a year",
            "Most successful schemes settle on 32 hours",
        ),
        refuted=(
            ("did not improve productivity in their teams", "economics.example"),
            ("Staff turnover was unchanged", "worktrials.example"),
            (
                "The number of staff leaving the participating companies fell by 57 percent",
                "businessnews.example",
            ),
        ),
    ),
    "electric_cars": Planted(
        question="Do electric cars have lower lifetime carbon emissions than petrol cars?",
        domains=frozenset(
            (
                "energyagency.example",
                "autoreview.example",
                "greencars.example",
                "cityplanning.example",
                "batterylab.example",
                "motoringforum.example",
            )
        ),
        facts=(
            "emits about 60 percent less carbon dioxide than a comparable petrol car",
            "roughly 60 percent lower lifetime carbon emissions",
            "electric cars emit less carbon dioxide over their lifetime",
            "do not have lower lifetime emissions than petrol cars",
            "A 60 kWh battery adds about 4 tonnes of carbon dioxide",
            "pays back the extra emissions from its battery after about 2 years",
            "the lifecycle advantage of an electric car shrinks to about 20 percent",
            "not more likely to catch fire than petrol cars",
            "Electric cars are more likely to catch fire than petrol cars",
            "Fires are rarer in electric cars than in petrol cars",
            "batteries last about 15 years before they need to be replaced",
            "batteries last about 15 years, longer than the average car",
            "last only about 8 years",
            "loses about 20 percent of its driving range",
            "loses about 40 percent of its range",
            "Drivers who cover long distances every year gain the most",
            "less suitable for people who cannot charge at home",
            "costs about 10 percent less than a petrol car",
            "Plug-in hybrids emit about 40 percent less carbon dioxide",
            "lower lifetime emissions than a plug-in hybrid",
            "electric vans reduce local air pollution",
            "kept about 85 percent of their capacity after 200,000 kilometres",
            "Fast charging every day speeds up battery ageing",
            "Recycling recovers more than 90 percent of the lithium",
        ),
        refuted=(
            ("do not have lower lifetime emissions than petrol cars", "autoreview.example"),
            ("roughly 60 percent lower lifetime carbon emissions", "motoringforum.example"),
            ("not more likely to catch fire than petrol cars", "greencars.example"),
            ("Electric cars are more likely to catch fire than petrol", "energyagency.example"),
            ("batteries last about 15 years before they need", "greencars.example"),
            ("last only about 8 years", "autoreview.example"),
            ("loses about 40 percent of its range", "greencars.example"),
            ("loses about 20 percent of its driving range", "motoringforum.example"),
        ),
    ),
    "zinc_colds": Planted(
        question="Do zinc lozenges shorten the common cold?",
        domains=frozenset(
            (
                "healthagency.example",
                "coldresearch.example",
                "trialsreport.example",
                "pharmacyfaq.example",
                "wellnessblog.example",
                "familydoctor.example",
            )
        ),
        facts=(
            "zinc acetate lozenges shortened colds in adults by 33 percent",
            "zinc acetate lozenges did not shorten colds compared with placebo",
            "Zinc did not reduce the severity of sore throat",
            "Colds lasted 33 percent fewer days with zinc acetate lozenges",
            "Zinc acetate and zinc gluconate lozenges were equally effective",
            "Lozenges containing citric acid or tartaric acid bind the zinc",
            "Zinc lozenges may shorten a cold by a day or two in adults",
            "Taking zinc every day does not prevent colds in healthy adults",
            "Nausea was reported by 21 percent of the zinc group",
            "The most common side effects of zinc lozenges are a bad taste",
            "Taking 150 mg of zinc a day for several months can cause copper deficiency",
            "Zinc nasal gels and sprays have caused a lasting loss of the sense of smell",
            "Zinc nasal sprays do not cause any loss of smell",
            "tolerable upper intake level of zinc for adults is 40 mg a day",
            "upper intake level of zinc for adults is 100 mg a day",
            "used a total daily dose of at least 75 mg of zinc",
            "Dissolve one lozenge slowly in the mouth every 2 to 3 hours",
            "Stop taking zinc lozenges after 7 days",
            "Adult men: the recommended amount is 11 mg",
            "Lozenges only help when they are started within 24 hours",
            "Zinc lozenges still work when they are started within 72 hours",
            "Zinc lozenges are not recommended for children under 12",
            "Zinc lozenges are safe for children of all ages",
            "Zinc reduces the absorption of quinolone and tetracycline antibiotics",
            "Take the antibiotic at least 2 hours before",
            "Zinc lozenges can be taken with paracetamol or ibuprofen",
            "People who take antibiotics, penicillamine or diuretics should ask a pharmacist",
            "Vitamin C taken after a cold starts does not shorten it",
            "Echinacea did not shorten colds in a trial of 719 patients",
        ),
        refuted=(
            ("shortened colds in adults by 33 percent", "trialsreport.example"),
            ("did not shorten colds compared with placebo", "coldresearch.example"),
            ("caused a lasting loss of the sense of smell", "wellnessblog.example"),
            ("do not cause any loss of smell", "healthagency.example"),
            ("for adults is 40 mg a day", "wellnessblog.example"),
            ("for adults is 100 mg a day", "healthagency.example"),
            ("started within 24 hours", "pharmacyfaq.example"),
            ("started within 72 hours", "coldresearch.example"),
            ("not recommended for children under 12", "wellnessblog.example"),
            ("safe for children of all ages", "familydoctor.example"),
        ),
    ),
    "honeybees": Planted(
        question="What is causing honey bee colony losses?",
        domains=frozenset(
            (
                "agriculture.gov.example",
                "beeresearch.example",
                "croptech.example",
                "beekeepers.example",
                "sciencenews.example",
                "encyclopedia.example",
            )
        ),
        facts=(
            "lost 48 percent of their managed honey bee colonies between April 2022",
            "lost 48 percent of their colonies in the year to April 2023",
            "colony losses in the United States were about 30 percent in 2022 to 2023",
            "Winter losses alone were 37 percent",
            "Varroa destructor is the leading cause of colony loss",
            "Varroa mites are the single greatest threat to managed honey bees",
            "Varroa mites spread deformed wing virus",
            "Poor nutrition weakens colonies",
            "Neonicotinoid pesticides impair the ability of foraging honey bees",
            "Neonicotinoids at field-realistic doses do not harm honey bee colonies",
            "two to three times more likely to fail to return to the hive",
            "Residues of at least one pesticide were found in 98 percent of wax samples",
            "Wild bumble bees are more sensitive to neonicotinoids than honey bees",
            "ban on outdoor use of three neonicotinoids has not improved bee health",
            "has been rare since 2010",
            "Colony collapse disorder is still the main reason",
            "Reports of CCD peaked in the winter of 2006 to 2007",
            "kills about 90 percent of the mites",
            "Oxalic acid kills only about 50 percent of the mites",
            "usually die within two to three years",
            "The number of managed honey bee colonies worldwide has risen by 45 percent",
            "high losses reflect beekeeping practices",
            "Honey bee losses are driven by several stresses acting together",
            "Beekeepers should check mite levels at least once a month",
        ),
        refuted=(
            ("lost 48 percent of their managed honey bee colonies", "croptech.example"),
            ("lost 48 percent of their colonies in the year", "croptech.example"),
            ("about 30 percent in 2022 to 2023", "agriculture.gov.example"),
            ("Neonicotinoid pesticides impair the ability", "croptech.example"),
            ("do not harm honey bee colonies", "agriculture.gov.example"),
            ("kills about 90 percent of the mites", "beekeepers.example"),
            ("Oxalic acid kills only about 50 percent", "beeresearch.example"),
        ),
    ),
    "non_competes": Planted(
        question="Are non-compete agreements enforceable against employees?",
        domains=frozenset(
            (
                "lawreview.example",
                "employmentlawyer.example",
                "economics.example",
                "courtnews.example",
                "hrblog.example",
                "gov.example",
            )
        ),
        facts=(
            "California bans non-compete agreements for almost all employees",
            "courts enforce a non-compete only if it is reasonable in duration",
            "Courts usually uphold non-competes of up to two years",
            "About 18 percent of American workers are bound by a non-compete",
            "a non-compete signed after hiring needs new consideration",
            "Courts usually strike down non-competes longer than one year",
            "refused to enforce non-competes against employees who were laid off",
            "An employer can seek an injunction and damages",
            "lower workers' wages by about 4 percent on average",
            "When Oregon banned non-competes for hourly workers in 2008",
            "Non-competes reduce job mobility",
            "The effects on wages are largest for workers without a college degree",
            "invest more in training their staff",
            "adopted a rule that would have banned most non-compete clauses",
            "set aside the rule in August 2024",
            "About 40 percent of American workers are bound by a non-compete",
            "Existing agreements with senior executives would have remained enforceable",
            "The FTC rule took effect in September 2024",
            "Non-compete agreements have no measurable effect on wages",
            "Non-solicitation and confidentiality agreements protect client relationships",
            "must pay garden leave of at least 50 percent of salary",
            "Several states ban non-competes for low-wage workers",
            "a non-compete is void for employees earning 75,000 dollars a year or less",
            "Minnesota banned almost all new non-compete agreements from July 2023",
        ),
        refuted=(
            ("Courts usually uphold non-competes of up to two years", "employmentlawyer.example"),
            ("Courts usually strike down non-competes longer than one year", "lawreview.example"),
            ("About 18 percent of American workers", "courtnews.example"),
            ("About 40 percent of American workers", "lawreview.example"),
            ("lower workers' wages by about 4 percent", "hrblog.example"),
            ("have no measurable effect on wages", "economics.example"),
            ("The FTC rule took effect in September 2024", "courtnews.example"),
        ),
    ),
    "heat_pumps": Planted(
        question="Do heat pumps reduce household heating costs in cold climates?",
        domains=frozenset(
            (
                "energy.gov",
                "heatpumpblog.example",
                "consumerreport.example",
                "installer.example",
                "engineering.example",
                "citynews.example",
            )
        ),
        facts=(
            "keep working at outdoor temperatures as low as minus 25",
            "delivers about 3 units of heat for every unit of electricity",
            "1.8 units of heat per unit of electricity at minus 15",
            "cut their annual heating bills by 35 percent",
            "needs backup resistance heating",
            "stop working below minus 5 degrees",
            "heating bills rise by 20 percent",
            "quieter than most window air conditioners",
            "costs between 12,000 and 18,000 dollars",
            "Ground-source heat pumps cost about twice as much",
            "rarely save money by switching",
            "needed defrosting several times a day",
            "should be sized to cover the full heating load",
            "not suitable for a heat pump until the insulation",
            "R-32 used in many new heat pumps is mildly flammable",
            "Heat pumps need a dedicated electrical circuit",
            "supplied 90 percent of the heating demand",
            "efficiency of the heat pumps was 2.6 units",
            "60 percent less carbon dioxide",
            "peak winter electricity demand would double",
            "only when the house is well insulated",
            "but not compared with cheap natural gas",
        ),
        refuted=(
            ("heating bills rise by 20 percent", "energy.gov"),
            ("cut their annual heating bills by 35 percent", "heatpumpblog.example"),
            ("1.8 units of heat per unit of electricity", "engineering.example"),
            ("stop working below minus 5 degrees", "engineering.example"),
        ),
    ),
    "sugar_taxes": Planted(
        question="Do sugar taxes reduce sugary drink consumption?",
        domains=frozenset(
            (
                "globalhealth.example",
                "encyclopedia.example",
                "nutritionjournal.example",
                "taxpayersforum.example",
                "citynews.example",
                "statsoffice.example",
            )
        ),
        facts=(
            "Sugary drinks are the largest source of added sugar",
            "More than 100 countries and cities now tax sugary drinks",
            "raises the price of sugary drinks by 20 percent can lower consumption",
            "recommends taxes that raise the retail price of sugary drinks by at least 20",
            "Drinking sugary drinks raises the risk of type 2 diabetes",
            "The UK Soft Drinks Industry Levy took effect in April 2018",
            "sugar content of soft drinks sold in the UK fell by 29 percent",
            "Most of the fall came from manufacturers reformulating their drinks",
            "Critics argue that sugar taxes are regressive",
            "Mexico introduced an excise tax of one peso per litre",
            "Purchases of taxed beverages fell by 7.6 percent",
            "The largest reductions, 11.7 percent, were among the poorest households",
            "Purchases of untaxed beverages, mainly bottled water, rose by 2.1 percent",
            "Purchases of taxed beverages did not fall in Mexico",
            "The sugar in soft drinks sold in the UK fell by only 10 percent",
            "pay four times as much of their income in soda tax",
            "The UK Soft Drinks Industry Levy took effect in 2016",
            "The levy has not reduced obesity in children",
            "The beverage tax in Philadelphia cost 1,200 jobs",
            "tax of 1.5 cents per ounce on sweetened drinks took effect in January 2017",
            "Sales of taxed drinks in the city fell by 38 percent",
            "About a quarter of the drop was offset by shoppers buying drinks",
            "City data show no jobs were lost because of the tax",
            "The tax raised $77 million in its first year",
            "The levy raised \u00a3334 million",
            "Manufacturers cut the sugar in more than half of the drinks",
            "Obesity in children aged 10 to 11 fell by 8 percent",
            "tooth extraction because of decay fell by 12 percent",
            "fell by 34 percent between 2015 and 2019",
        ),
        refuted=(
            ("took effect in April 2018", "taxpayersforum.example"),
            ("took effect in 2016", "encyclopedia.example"),
            ("fell by 29 percent", "taxpayersforum.example"),
            ("fell by only 10 percent", "encyclopedia.example"),
            ("Purchases of taxed beverages fell by 7.6 percent", "taxpayersforum.example"),
            ("did not fall in Mexico", "nutritionjournal.example"),
            ("Obesity in children aged 10 to 11 fell by 8 percent", "taxpayersforum.example"),
            ("The levy has not reduced obesity in children", "statsoffice.example"),
        ),
    ),
    "e_scooters": Planted(
        question="Do shared e-scooters increase injuries in cities?",
        domains=frozenset(
            (
                "hospitalnews.example",
                "ridersforum.example",
                "transportagency.example",
                "scootco.example",
                "injuryjournal.example",
                "citycouncil.example",
            )
        ),
        facts=(
            "injuries at the University Hospital emergency department tripled",
            "Head injuries made up 38 percent of all e-scooter injuries",
            "Helmet use cut head injuries by 40 percent",
            "Helmets do not reduce head injuries on scooters",
            "The speed limit for shared e-scooters is 20 km/h",
            "Riders must be at least 16 years old",
            "pedestrians made up 9 percent of the people injured",
            "Most e-scooter crashes involve no other vehicle",
            "The shared e-scooter scheme began in 2018 with 500 scooters",
            "Parking zones became compulsory in the city centre",
            "E-scooter: A standing scooter with an electric motor",
            "Our scooters are the safest in the industry, with 1 injury per 100,000 trips",
            "Alcohol was involved in fewer than 5 percent of injuries",
            "Every scooter is checked by a mechanic at least once a week",
            "suffered about 20 injuries per 100,000 trips",
            "Alcohol was involved in 28 percent of rider injuries, most of them at night.",
            "Riders on their first trip were eight times more likely to be injured",
            "Lowering the speed limit from 25 to 20 km/h was followed by a 25 percent fall",
            "so the true rate is probably higher",
            "The shared e-scooter scheme began in 2019 with 300 scooters.",
            "the council lowered the speed limit for shared e-scooters to 15 km/h in 2023",
            "Officers reported 412 injuries to riders and 38 injuries to pedestrians",
            "complaints about scooters parked on pavements fell by 60 percent",
        ),
        refuted=(
            ("about 20 injuries per 100,000 trips", "scootco.example"),
            ("with 1 injury per 100,000 trips", "injuryjournal.example"),
            ("Helmet use cut head injuries by 40 percent", "ridersforum.example"),
            ("Helmets do not reduce head injuries", "hospitalnews.example"),
            ("The speed limit for shared e-scooters is 20 km/h", "citycouncil.example"),
            ("to 15 km/h in 2023", "transportagency.example"),
            ("scheme began in 2018", "citycouncil.example"),
            ("scheme began in 2019", "transportagency.example"),
            ("Alcohol was involved in 28 percent", "scootco.example"),
            ("Alcohol was involved in fewer than 5 percent", "injuryjournal.example"),
        ),
    ),
    "creatine": Planted(
        question="Does creatine supplementation improve muscle strength, and is it safe?",
        domains=frozenset(
            (
                "sportsmed.example",
                "kidneycare.example",
                "supplementshop.example",
                "agingresearch.example",
                "liftingforum.example",
                "nutritionagency.example",
            )
        ),
        facts=(
            "increases muscle strength more than resistance training alone, by about 8 percent",
            "it does not improve endurance performance in events lasting longer than 30",
            "Creatine does not harm kidney function in healthy adults",
            "Creatine hydrochloride is not absorbed better than creatine monohydrate",
            "Vegetarians start with lower creatine stores",
            "The recommended maintenance dose is 3 to 5 grams a day",
            "the daily amount is 20 grams, split into four doses",
            "weight gain of 1 to 2 kilograms in the first week",
            "People with kidney disease should not take creatine without medical advice",
            "Creatine supplements damage the kidneys of healthy adults",
            "A blood creatinine test can read up to 20 percent higher",
            "Creatine raises the level of creatinine in the blood",
            "People with chronic kidney disease, diabetes or high blood pressure should avoid",
            "Creatine hydrochloride is absorbed better than creatine monohydrate, so",
            "The recommended maintenance dose is 10 grams a day",
            "No loading phase is needed with creatine HCl",
            "increased leg strength in adults over 65 by 12 percent",
            "Creatine taken without exercise did not increase muscle mass in older adults",
            "found no difference in kidney function between the two groups",
            "Creatine causes hair loss.",
            "creatine raised DHT, the hormone linked to baldness, by 56 percent",
            "creatine does not improve strength in adults over 65",
            "Creatine supplements improve strength and power during short, intense exercise",
            "Creatine does not cause hair loss",
            "cause stomach cramps and diarrhoea when more than 10 grams are taken at once",
            "Creatine is not recommended for people under 18",
            "Meat and fish provide about 1 to 2 grams of creatine a day",
            "About 95 percent of the body's creatine is stored in skeletal muscle",
        ),
        refuted=(
            ("Creatine does not harm kidney function", "kidneycare.example"),
            ("Creatine supplements damage the kidneys", "sportsmed.example"),
            ("maintenance dose is 3 to 5 grams a day", "supplementshop.example"),
            ("maintenance dose is 10 grams a day", "sportsmed.example"),
            ("is not absorbed better than creatine monohydrate", "supplementshop.example"),
            ("is absorbed better than creatine monohydrate, so", "sportsmed.example"),
            ("increased leg strength in adults over 65", "liftingforum.example"),
            ("creatine does not improve strength in adults over 65", "agingresearch.example"),
            ("Creatine causes hair loss.", "nutritionagency.example"),
            ("Creatine does not cause hair loss", "liftingforum.example"),
        ),
    ),
    "fasting": Planted(
        question="Is intermittent fasting effective and safe for weight loss?",
        domains=frozenset(
            (
                "healthpodcast.example",
                "dietclinic.example",
                "obesityreview.example",
                "fastingblog.example",
                "nutritionguide.example",
                "dailyherald.example",
            )
        ),
        facts=(
            "Intermittent fasting leads to about the same weight loss as cutting calories",
            "Intermittent fasting does not slow the metabolism more than daily calorie",
            "People with type 1 diabetes should not fast without close medical supervision",
            "limit themselves to 500 calories a day on the other two days",
            "all meals are eaten within an 8-hour window",
            "Intermittent fasting is not recommended for pregnant or breastfeeding women",
            "need their doses adjusted by a doctor before they start fasting",
            "About a quarter of the weight lost during intermittent fasting is lean mass",
            "Intermittent fasting leads to more weight loss than daily calorie restriction",
            "Alternate-day fasting had the highest drop-out rate, at 38 percent",
            "lowered systolic blood pressure by 4 mmHg",
            "Gallstones were reported in 2 of the 43 trials",
            "The 5:2 diet limits calories to 800 a day",
            "Fasting slows your metabolism",
            "Intermittent fasting cures type 2 diabetes in most people within a year",
            "Intermittent fasting leads to no more weight loss than daily calorie restriction",
            "Intermittent fasting does not cure type 2 diabetes",
            "The most common side effects are hunger, headaches and irritability",
            "had a 91 percent higher risk of dying from heart disease",
            "Time-restricted eating does not raise the risk of dying from heart disease",
            "The study followed 20,000 adults for eight years",
        ),
        refuted=(
            ("leads to more weight loss than daily calorie", "nutritionguide.example"),
            ("leads to no more weight loss than daily calorie", "obesityreview.example"),
            ("limit themselves to 500 calories a day", "fastingblog.example"),
            ("The 5:2 diet limits calories to 800 a day", "dietclinic.example"),
            ("does not slow the metabolism", "fastingblog.example"),
            ("Fasting slows your metabolism", "healthpodcast.example"),
            ("cures type 2 diabetes in most people", "nutritionguide.example"),
            ("does not cure type 2 diabetes", "fastingblog.example"),
        ),
    ),
    "statins": Planted(
        question=(
            "Do statins prevent heart attacks in people without heart disease, and what are "
            "their side effects?"
        ),
        domains=frozenset(
            (
                "carepharmacy.example",
                "heartchat-forum.example",
                "jcardioprevention.example",
                "lipidclinic.example",
                "morningledger.example",
                "nationalcarepanel.example",
                "northgatehospital.example",
            )
        ),
        facts=(
            "stroke in the next 10 years is 20 percent or higher",
            "risk of major heart and circulation events falls by about a fifth",
            "Atorvastatin is usually started at 10 to 20 mg once a day",
            "Simvastatin works best when taken in the evening",
            "Statins slightly raise the risk of developing type 2 diabetes",
            "affects fewer than 1 in 10,000 people taking a statin each year",
            "Raised liver enzymes are found in about 1 percent of people",
            "grapefruit juice raises the level of simvastatin in the blood",
            "an absolute risk reduction of 1.0 percentage point",
            "reduced the risk of a first heart attack by 27 percent",
            "number needed to treat for five years to prevent one heart attack",
            "muscle pain was no more common with rosuvastatin than with placebo",
            "statins cut the risk of a first heart attack by only 9 percent",
            "Statins cause muscle aches in about one in five people",
            "Statins lower the risk of developing type 2 diabetes",
            "Statins cause memory loss in older people",
            "10-year cardiovascular risk of 10 percent or more should be offered",
            "Atorvastatin 20 mg once a day is the recommended first choice",
            "starting a statin in adults over 75 without heart disease is limited",
            "Statins must not be taken during pregnancy or while breastfeeding",
            "Statins do not cause memory loss in older people",
            "blood test about 3 months after starting a statin",
            "Ezetimibe lowers LDL cholesterol by about 20 percent on its own",
            "PCSK9 inhibitors are injections given every two or four weeks",
        ),
        refuted=(
            ("reduced the risk of a first heart attack by 27 percent", "morningledger.example"),
            (
                "statins cut the risk of a first heart attack by only 9 percent",
                "jcardioprevention.example",
            ),
            ("Statins do not cause memory loss in older people", "heartchat-forum.example"),
            ("Statins cause memory loss in older people", "lipidclinic.example"),
            (
                "Statins slightly raise the risk of developing type 2 diabetes",
                "heartchat-forum.example",
            ),
            ("Statins lower the risk of developing type 2 diabetes", "carepharmacy.example"),
            ("Statins cause muscle aches in about one in five people", "jcardioprevention.example"),
            (
                "10-year cardiovascular risk of 10 percent or more should be offered",
                "northgatehospital.example",
            ),
            ("stroke in the next 10 years is 20 percent or higher", "nationalcarepanel.example"),
        ),
    ),
    "dental_pain": Planted(
        question=(
            "Is ibuprofen or paracetamol better for pain after wisdom tooth removal, and what "
            "doses are safe?"
        ),
        domains=frozenset(
            (
                "brightsmile-studio.example",
                "clearview-reviews.example",
                "dailyhealthwire.example",
                "greenleaf-pharmacy.example",
                "oralsurgery-trials.example",
                "riverside-dental-hospital.example",
                "smile-answers.example",
                "toothtalk-forum.example",
            )
        ),
        facts=(
            "the number needed to treat was 2.5",
            "number needed to treat for ibuprofen 400 mg is 5",
            "Ibuprofen and paracetamol do not interact with each other",
            "Ibuprofen and paracetamol do interact with each other",
            "Ibuprofen raises the risk of bleeding in people who take blood thinners",
            "Ibuprofen lowers the risk of bleeding if you take warfarin",
            "reported better pain relief than patients who received either drug alone",
            "gives no extra benefit over ibuprofen on its own",
            "must not take more than 4 grams of paracetamol in 24 hours",
            "safely take up to 3 grams of paracetamol in 24 hours",
            "ibuprofen gives better pain relief than paracetamol after wisdom",
            "usual adult dose of ibuprofen is 400 mg",
            "median time to rescue medication was 8.9 hours",
            "Adverse events were reported by 11% of participants",
            "should take no more than 3 g of paracetamol",
            "in rare cases, cause bleeding from the stomach",
            "can reduce how well your kidneys work",
            "should not be taken from 20 weeks of pregnancy",
            "ibuprofen 400 mg lasted about six hours on average",
            "the results may not apply to people with kidney",
            "Ibuprofen can make asthma worse in some people",
            "need a dose worked out from their age and weight",
            "codeine gave no better pain relief than ibuprofen alone",
            "leave at least four hours between doses of paracetamol",
            "can cause serious liver damage, even if you feel well",
            "first choice of painkiller if you are pregnant",
            "74 per cent of people who took both drugs together",
            "if you have ever had a stomach ulcer",
        ),
        refuted=(
            ("the number needed to treat was 2.5", "dailyhealthwire.example"),
            ("number needed to treat for ibuprofen 400 mg is 5", "clearview-reviews.example"),
            (
                "Ibuprofen and paracetamol do not interact with each other",
                "toothtalk-forum.example",
            ),
            ("Ibuprofen and paracetamol do interact with each other", "greenleaf-pharmacy.example"),
            (
                "Ibuprofen raises the risk of bleeding in people who take blood thinners",
                "toothtalk-forum.example",
            ),
            (
                "Ibuprofen lowers the risk of bleeding if you take warfarin",
                "riverside-dental-hospital.example",
            ),
            (
                "must not take more than 4 grams of paracetamol in 24 hours",
                "brightsmile-studio.example",
            ),
            (
                "safely take up to 3 grams of paracetamol in 24 hours",
                "riverside-dental-hospital.example",
            ),
        ),
    ),
    "nicotine_patches": Planted(
        question=(
            "Do nicotine patches help people quit smoking, and are they safe during pregnancy?"
        ),
        domains=frozenset(
            (
                "brightwell-pharmacy.example",
                "evidence-review-collective.example",
                "journal-of-cessation-research.example",
                "marion-the-midwife-blog.example",
                "morning-ledger-news.example",
                "northfield-stopsmoking-service.example",
                "quitclub-community-forum.example",
                "smokefree-answers.example",
            )
        ),
        facts=(
            "1.8 times as likely to be abstinent at six months",
            "almost three times as likely to be smoke-free at six months",
            "Using nicotine patches during pregnancy is safer than continuing to smoke",
            "using nicotine patches during pregnancy is not safer than smoking",
            "raises the chance of quitting compared with using a patch alone",
            "lowers the chance of quitting compared with a patch alone",
            "You can use nicotine patches while you are breastfeeding",
            "hold off on nicotine patches until your baby is fully weaned",
            "more than 10 a day should start on the 21 mg patch",
            "anyone smoking over 10 a day starts on the 14 mg patch",
            "support from a trained adviser gives you the best chance of quitting",
            "heart attack or stroke in the last 4 weeks",
            "a 16-hour patch that you take off at bedtime",
            "18.4% in the patch group and 10.2% in the placebo group",
            "skin reactions were the most common adverse event",
            "Serious cardiovascular events were rare and did not differ between groups",
            "a full course takes 10 weeks in total",
            "Itching, redness or a mild rash where the patch has been applied",
            "aged 12 to 17 should only use nicotine patches",
            "increased the chances of stopping smoking by 50% to 60%",
            "Varenicline helped more people to quit than nicotine patches",
            "no clear evidence that nicotine patches increase the risk of heart attack",
            "nicotine patches may help slightly more women to quit",
            "Nausea and headaches are common in the first week",
            "E-cigarettes are not licensed as a stop smoking medicine",
            "16-hour patches (25 mg, 15 mg and 10 mg)",
            "Nicotine gum and lozenges work faster than patches",
            "Varenicline is not recommended during pregnancy or breastfeeding",
        ),
        refuted=(
            (
                "almost three times as likely to be smoke-free at six months",
                "journal-of-cessation-research.example",
            ),
            (
                "Using nicotine patches during pregnancy is safer than continuing to smoke",
                "quitclub-community-forum.example",
            ),
            (
                "using nicotine patches during pregnancy is not safer than smoking",
                "northfield-stopsmoking-service.example",
            ),
            (
                "raises the chance of quitting compared with using a patch alone",
                "morning-ledger-news.example",
            ),
            (
                "lowers the chance of quitting compared with a patch alone",
                "evidence-review-collective.example",
            ),
            (
                "You can use nicotine patches while you are breastfeeding",
                "marion-the-midwife-blog.example",
            ),
            (
                "anyone smoking over 10 a day starts on the 14 mg patch",
                "brightwell-pharmacy.example",
            ),
        ),
    ),
    "hpv_vaccine": Planted(
        question=(
            "How well does the HPV vaccine prevent cervical cancer, and what side effects "
            "does it have?"
        ),
        domains=frozenset(
            (
                "daily-courier-news.example",
                "harbourview-family-clinic.example",
                "healthanswers-stack.example",
                "medicines-register-norland.example",
                "openwikipaedia.example",
                "threadhub.example",
                "univ-of-eastmoor.example",
                "westbridge-public-health.example",
            )
        ),
        facts=(
            "at age 12 to 13, cervical cancer rates were 85% lower",
            "at age 12 to 13, cervical cancer rates fell by 65%",
            "The HPV vaccine does not affect fertility",
            "The HPV vaccine does affect fertility in a small number of girls",
            "Vaccinated women still need regular cervical screening",
            "routine smear tests are only needed if you develop symptoms",
            "CIN3 rates were 94% lower than in unvaccinated cohorts",
            "does not clear an HPV infection you already have",
            "Anaphylaxis after HPV vaccination is very rare",
            "Injection-site pain, swelling and erythema",
            "Headache and a sore arm for a day or two",
            "fever after the jab usually clears up within a day or two",
            "Vaccination of boys is recommended in many countries",
            "Adults aged 27 to 45 can still be vaccinated",
            "condoms reduce but do not eliminate the risk of HPV transmission",
        ),
        refuted=(
            (
                "at age 12 to 13, cervical cancer rates were 85% lower",
                "daily-courier-news.example",
            ),
            ("at age 12 to 13, cervical cancer rates fell by 65%", "univ-of-eastmoor.example"),
            ("The HPV vaccine does not affect fertility", "healthanswers-stack.example"),
            (
                "The HPV vaccine does affect fertility in a small number of girls",
                "westbridge-public-health.example",
            ),
            (
                "routine smear tests are only needed if you develop symptoms",
                "westbridge-public-health.example",
            ),
        ),
    ),
    "probiotics": Planted(
        question=(
            "Do probiotics prevent diarrhoea caused by antibiotics, and are they safe to take?"
        ),
        domains=frozenset(
            (
                "choosewell-decisions.example",
                "clinpharm-grandrounds.example",
                "evidence-reviews-collab.example",
                "gutfeelings-podcast.example",
                "gutwell-pharmacy.example",
                "healthbrief-newsletter.example",
                "medabstracts-index.example",
                "national-gi-guidelines.example",
                "stmarys-dietetics.example",
            )
        ),
        facts=(
            "Probiotics cut the risk of antibiotic-associated diarrhoea by about half",
            "occurred in 10.8% of the probiotic group and 10.4% of the placebo group",
            "made no difference to the risk of antibiotic-associated diarrhoea in adults aged 65",
            "About 9 out of 100 people who take a probiotic with their antibiotics get diarrhoea",
            "About 11 patients need to be treated to prevent one case of diarrhoea",
            "BioBalance is safe for people with weakened immune systems",
            "Probiotics should not be used by people who are severely immunocompromised",
            "Do not use Saccharomyces boulardii in people with a central venous catheter",
            "There are case reports of Lactobacillus bacteraemia in very sick patients",
            "notice mild bloating or wind in the first few days of taking a probiotic",
            "A daily dose of 5 billion CFU is enough to get the benefit",
            "A daily dose of 5 billion CFU was no better than placebo",
            "take the probiotic at least two hours after your antibiotic dose",
            "take your probiotic at the same time as your antibiotic",
            "Start the probiotic within 2 days of the first dose of the antibiotic",
            "Continue the probiotic for 7 days after the last dose of the antibiotic",
            "Saccharomyces boulardii is given as 250 mg twice daily in adults",
            "Do not offer probiotics to people with acute pancreatitis",
            "critically ill patients in intensive care should not be given probiotics routinely",
            "Children taking antibiotics benefited from probiotics as much as adults did",
            "anyone who has had a transplant should ask their doctor before taking one",
            "If you are having chemotherapy, avoid unpasteurised fermented foods",
            "Yogurt and other fermented foods are not a substitute for a probiotic supplement",
            "Eating live yogurt every day works just as well as taking a probiotic supplement",
            "Probiotics are not a treatment for established C. difficile infection",
            "Kefir, sauerkraut and kimchi contain live microbes",
            "Stopping or switching the antibiotic, where that is possible, is often the most",
            "Drinking plenty of fluids is the most important thing to do if you get diarrhoea",
        ),
        refuted=(
            (
                "take your probiotic at the same time as your antibiotic",
                "gutfeelings-podcast.example",
            ),
            (
                "A daily dose of 5 billion CFU is enough to get the benefit",
                "clinpharm-grandrounds.example",
            ),
            (
                "A daily dose of 5 billion CFU was no better than placebo",
                "choosewell-decisions.example",
            ),
        ),
    ),
    "helmets": Planted(
        question=(
            "Do bicycle helmets prevent serious head injuries, and do helmet laws reduce how many "
            "people cycle?"
        ),
        domains=frozenset(
            (
                "cyclesafe-trust.example",
                "gearwise-reviews.example",
                "hollowell-insurance.example",
                "jcie-online.example",
                "judgments-westmere.example",
                "northgate-courier.example",
                "pedalforward.example",
                "roadsafe-visuals.example",
            )
        ),
        facts=(
            "Helmets cut the risk of fatal head injury by about 70 per cent",
            "E-bike riders treated at Northgate hospitals were twice as likely",
            "Segregated bike lanes cut cyclist injuries by nearly half on the routes",
            "A helmet that sits far back on the head leaves the forehead exposed",
            "Replace your helmet every three years, even if it has never been in a crash",
            "A MIPS liner cuts the risk of concussion by around 40 per cent",
            "Full-face helmets trap heat and can push up core body temperature",
            "Only buy a helmet certified to EN 1078 in Europe or to the CPSC standard",
            "Helmets reduce serious head injury by about 60 percent, including in crashes",
            "Helmeted riders take only slightly more risks, and the effect is far too small",
            "Cyclists over 65 are the age group most likely to die from a head injury",
            "Helmet use was associated with lower odds of serious head injury",
            "MIPS helmets were no better than standard helmets at preventing concussion",
            "Helmets were less protective for children under 16 than for adults",
            "whose helmets were loose or tilted back had odds of head injury similar",
            "a correctly worn helmet roughly halves the risk of head injury in a fall",
            "helmet laws have no measurable effect on how many people cycle",
            "children aged 10 to 14 accounted for 41 per cent of the cycling head injuries",
            "Commuters who ride every day wear helmets more often than leisure riders",
            "Mandatory helmet laws cut the number of people cycling by about a third",
            "In crashes with cars, helmets make no measurable difference to serious head injuries",
            "Drivers passed on average 8.5 cm closer to riders wearing a helmet",
            "Bike-share users wear helmets on fewer than one in ten trips",
            "We recommend replacing an undamaged helmet every five years",
            "no more than two fingers' width between your eyebrows and the front of the helmet",
            "Riders of speed pedelecs, which assist up to 45 km/h, need a helmet certified",
            "Children should take their helmet off before using playground equipment",
        ),
        refuted=(
            (
                "In crashes with cars, helmets make no measurable difference to serious head",
                "cyclesafe-trust.example",
            ),
            (
                "helmet laws have no measurable effect on how many people cycle",
                "pedalforward.example",
            ),
            (
                "Replace your helmet every three years, even if it has never been in a crash",
                "hollowell-insurance.example",
            ),
            (
                "A MIPS liner cuts the risk of concussion by around 40 per cent",
                "jcie-online.example",
            ),
            (
                "MIPS helmets were no better than standard helmets at preventing concussion",
                "gearwise-reviews.example",
            ),
        ),
    ),
    "fish_oil": Planted(
        question=(
            "Does fish oil (omega-3) supplementation prevent heart attacks "
            "and strokes, and is it safe to take?"
        ),
        domains=frozenset(
            (
                "chirp-social.example",
                "cityclinic-handouts.example",
                "evidencereviews-library.example",
                "healthdigest-newsletter.example",
                "heartfoundation-faq.example",
                "medqa-exchange.example",
                "pillbox-pharmacy.example",
                "wellbeing-monthly.example",
            )
        ),
        facts=(
            "there is no good evidence that fish oil capsules help people live any longer",
            "statins lower heart attack risk far more reliably than any fish oil product",
            "fish oil does not increase the risk of atrial fibrillation",
            "probably makes little or no difference to the risk of having a heart attack",
            "about one fewer death from coronary heart disease for every 334 people",
            "lowered blood triglycerides by about 15% on average",
            "side effects were mostly mild digestive complaints such as reflux, nausea",
            "Trials using more than 1 g per day were no more effective",
            "Fish oil supplements do not lower the risk of stroke in people without heart disease",
            "two portions of fish a week, at least one of which should be oily",
            "talk to your doctor before starting fish oil if you take warfarin",
            "pregnant women should avoid cod liver oil because of its vitamin A content",
            "the recommended daily dose is 2 g of EPA & DHA combined",
            "Take with a meal containing some fat to improve absorption",
            "Do not use if you have a known allergy to fish or shellfish",
            "Doses above 3 g a day may increase the tendency to bleed",
            "works out at roughly 29p a day at the recommended dose",
            "cut major cardiovascular events by 25% in statin-treated patients with high",
            "worth discussing if you have heart disease and triglycerides above 150 mg/dL",
            "treatment raised the risk of atrial fibrillation by roughly a quarter compared with",
            "prescription icosapent ethyl costs around $300 a month in the US",
            "For heart health, the recommended dose is 1 gram of EPA plus DHA per day",
            "Splitting your dose between two meals can reduce reflux and burping",
            "A 140 g portion of salmon provides roughly 2.5 g of omega-3",
            "Stop taking fish oil seven days before any planned surgery",
            "Own-brand supermarket capsules often cost less than £5 a month",
            "the capsules cut heart attacks by about a fifth",
            "roughly a 15% lower risk of dying from heart disease",
            "algal oil supplements provide EPA and DHA without any fish",
            "Oxidised, rancid capsules smell strongly of fish and should be thrown away",
            "Fish oil supplements lower the risk of stroke in people without heart disease",
            "taking fish oil every day lowers your chance of dying early from any cause",
            "premium brands can cost three times as much as standard capsules",
            "whether you take it in the morning or at night makes no difference",
        ),
        refuted=(
            (
                "Fish oil supplements do not lower the risk of stroke in people without heart",
                "healthdigest-newsletter.example",
            ),
            (
                "Fish oil supplements lower the risk of stroke in people without heart disease",
                "heartfoundation-faq.example",
            ),
            (
                "the capsules cut heart attacks by about a fifth",
                "evidencereviews-library.example",
            ),
            (
                "there is no good evidence that fish oil capsules help people live any longer",
                "healthdigest-newsletter.example",
            ),
            (
                "taking fish oil every day lowers your chance of dying early from any cause",
                "medqa-exchange.example",
            ),
            (
                "For heart health, the recommended dose is 1 gram of EPA plus DHA per day",
                "pillbox-pharmacy.example",
            ),
            (
                "the recommended daily dose is 2 g of EPA & DHA combined",
                "cityclinic-handouts.example",
            ),
            (
                "fish oil does not increase the risk of atrial fibrillation",
                "chirp-social.example",
            ),
            (
                "treatment raised the risk of atrial fibrillation by roughly a quarter compared",
                "medqa-exchange.example",
            ),
        ),
    ),
    "cover_crops": Planted(
        question=(
            "Do cover crops raise the yields of the "
            "following cash crop, and what do they cost farmers?"
        ),
        domains=frozenset(
            (
                "covercrop-glossary.example",
                "croptalk-forum.example",
                "dirtroadradio.example",
                "extension.northfield-state.example",
                "greenfurrow-seeds.example",
                "soil-health-symposium.example",
                "stats.agriculture-ministry.example",
                "westfield-research-station.example",
            )
        ),
        facts=(
            "soil organic matter rose by roughly 0.3 percentage points over five years",
            "we suggest you drill cereal rye at 60 kg/ha",
            "Kill the cover crop at least two weeks before planting maize",
            "On heavy clay soils we do not recommend cereal rye ahead of early-planted maize",
            "no-till combined with a cereal rye cover cut soil loss by close to 80 percent",
            "our organic matter hasn't budged from 2.8%, cover crops or not",
            "the roller-crimper just laid it over without killing it",
            "with our cow-calf herd for three weeks in April basically paid for the seed",
            "Modelled soil loss on fields with a winter cover was 42% lower",
            "€47 per hectare was the average reported cost of cover crop seed",
            "received a flat payment of €62 per hectare of cover crop",
            "Spring wheat that followed a cover crop averaged 6.1 t/ha",
            "cereal rye sown alone should go in at 90 kg/ha",
            "Sow the blend between mid-August and the end of September",
            "Crimson clover fixes up to 110 kg N/ha for the following maize crop",
            "Rye residue releases allelopathic compounds that can stunt small-seeded crops",
            "lifted maize grain yield by about 6 percent relative to winter fallow",
            "retained an estimated 38 kg N/ha over winter",
            "Soybean yields after the cover were statistically unchanged",
            "a mustard catch crop sown after wheat harvest captured roughly half as much nitrate",
            "On most farms cover crops do not pay for themselves within the first three years",
            "Heavy cover crop residue roughly doubles slug damage to emerging soybean seedlings",
            "reduces spring termination costs by around €20 per hectare",
            "bare fallow lost roughly three times as much soil as land under a winter cover",
            "cover crops do pay for themselves within the first three years on most farms",
            "If you get less than 450 millimetres of rain a year",
            "growers with fewer than 120 frost-free days rarely get enough autumn growth",
            "made no measurable difference to maize grain yield",
            "maize after cereal rye yielded 0.9 t/ha less than maize after fallow",
            "terminating the rye three weeks before planting rather than one week recovered 0.6",
            "Soil mineral nitrogen in late November was 27 kg N/ha lower under the covers",
            "Slug damage to soybean seedlings was no higher after cover crops",
        ),
        refuted=(
            (
                "On most farms cover crops do not pay for themselves within the first three years",
                "dirtroadradio.example",
            ),
            (
                "cover crops do pay for themselves within the first three years on most farms",
                "covercrop-glossary.example",
            ),
            (
                "lifted maize grain yield by about 6 percent relative to winter fallow",
                "westfield-research-station.example",
            ),
            (
                "made no measurable difference to maize grain yield",
                "soil-health-symposium.example",
            ),
            (
                "our organic matter hasn't budged from 2.8%, cover crops or not",
                "extension.northfield-state.example",
            ),
            (
                "we suggest you drill cereal rye at 60 kg/ha",
                "greenfurrow-seeds.example",
            ),
            (
                "cereal rye sown alone should go in at 90 kg/ha",
                "extension.northfield-state.example",
            ),
            (
                "Heavy cover crop residue roughly doubles slug damage to emerging soybean",
                "westfield-research-station.example",
            ),
            (
                "Slug damage to soybean seedlings was no higher after cover crops",
                "covercrop-glossary.example",
            ),
            (
                "soil organic matter rose by roughly 0.3 percentage points over five years",
                "croptalk-forum.example",
            ),
        ),
    ),
    "knee_surgery": Planted(
        question=(
            "Does arthroscopic surgery help a degenerative meniscus tear in "
            "the knee more than physiotherapy, and what are its risks?"
        ),
        domains=frozenset(
            (
                "drhartley-kneepages.example",
                "kneedeep-notes.example",
                "moorland-physio.example",
                "morningledger.example",
                "orthoguidance-council.example",
                "orthohistory.example",
                "stbrennans-hospital.example",
                "threadhive.example",
            )
        ),
        facts=(
            "arthroscopic meniscectomy should be offered as the first treatment for a degenerative",
            "removing the torn flap of meniscus does not hasten arthritis in the knee",
            "Infection after a knee scope is rare, roughly one patient in a thousand",
            "a private knee arthroscopy costs around $4,500 including the surgeon's fee",
            "Do not offer arthroscopic partial meniscectomy as first-line treatment for a",
            "supervised exercise therapy programme of 12 to 16 sessions over 8 to 12 weeks",
            "Consider arthroscopy only for a knee that is truly locked and cannot be fully",
            "In adults over 50 with osteoarthritis visible on X-ray, arthroscopic surgery should",
            "Symptomatic deep vein thrombosis occurs in roughly 0.5% of patients after knee",
            "the cortisone injections only helped for about six weeks each time",
            "physiotherapy alone produced function scores at 24 months practically identical to",
            "Pain scores fell by an average of 2.4 points on a 10-point scale",
            "Roughly 30 percent of patients assigned to physiotherapy eventually crossed over to",
            "The health service spends an estimated £60 million a year on these operations",
            "reached markedly higher function scores at two years than those who only did",
            "Full recovery usually takes 4 to 6 weeks after keyhole meniscus surgery",
            "You should rest with your leg raised for the first 48 hours",
            "A knee that locks or catches (mechanical symptoms) may benefit from surgery",
            "1 in 20 patients needs a further operation on the same knee within five years",
            "Taking out part of the meniscus can speed up wear-and-tear arthritis in that knee",
            "we'd normally do one session a week for around 12 weeks",
            "On the cost question: each session with us costs £45",
            "A steroid injection can calm the pain for a few weeks",
            "patients who had arthroscopic partial meniscectomy did no better than those given",
            "a small pain benefit at 3 months of under 5 points on a 100-point scale",
            "hyaluronic acid performed no better than the saline placebo for degenerative meniscal",
            "cutting unnecessary knee arthroscopies could save the United States about $3 billion",
            "at 12 months, function scores improved by about 20 points whether people had surgery",
            "Most people use crutches for 3 to 5 days after the operation",
            "full recovery after a meniscectomy takes roughly two weeks for most people",
            "losing 5 to 10 percent of your body weight can ease knee pain noticeably",
        ),
        refuted=(
            (
                "arthroscopic meniscectomy should be offered as the first treatment for a",
                "orthoguidance-council.example",
            ),
            (
                "Do not offer arthroscopic partial meniscectomy as first-line treatment for a",
                "drhartley-kneepages.example",
            ),
            (
                "patients who had arthroscopic partial meniscectomy did no better than those given",
                "threadhive.example",
            ),
            (
                "physiotherapy alone produced function scores at 24 months practically identical",
                "stbrennans-hospital.example",
            ),
            (
                "removing the torn flap of meniscus does not hasten arthritis in the knee",
                "moorland-physio.example",
            ),
            # a duration in digits against one in words (decision 0100)
            (
                "Full recovery usually takes 4 to 6 weeks after keyhole meniscus surgery",
                "kneedeep-notes.example",
            ),
            (
                "full recovery after a meniscectomy takes roughly two weeks for most people",
                "stbrennans-hospital.example",
            ),
            (
                "reached markedly higher function scores at two years than those who "
                "only did exercises",
                "morningledger.example",
            ),
        ),
    ),
    "smart_thermostats": Planted(
        question="Do smart thermostats cut household heating bills, and what are their drawbacks?",
        domains=frozenset(
            (
                "boilerhacker.example",
                "energysavingagency.example",
                "gadgetverdict.example",
                "heatinghelpdesk.example",
                "northvale-energy.example",
                "talkback-fm.example",
                "thermocompare.example",
                "warmhomes-forum.example",
            )
        ),
        facts=(
            "independent trials tend to find savings closer to 5 to 10 per cent",
            "Professional installation typically adds £80\u2013£120 to the price",
            "All four thermostats work with heat pumps and combi boilers alike",
            "a basic programmable thermostat costing around £30 captures most of the same savings",
            "the smart thermostats trimmed gas use by about a tenth across the trial homes",
            "participating households saved an average of £112 a year on their heating bills",
            "Homes that were empty during the working day saw the largest reductions",
            "households that already ran a careful programmed schedule saved just 2.1%",
            "set to a default setback of 15°C whenever the home was detected as empty",
            "the thermostat keeps heating your home on its last saved schedule",
            "a night-time setback to 16°C for eight hours is a sensible starting point",
            "let you heat only the rooms you actually use",
            "Most smart thermostats cost between £150 and £250 before fitting",
            "Each 1°C lower setpoint cut heating demand by around 7%",
            "Tenants in private rented flats showed the largest relative savings of any group",
            "One in five participants switched the learning feature off within a month",
            "Topping up loft insulation to 270 mm saved roughly twice as much gas",
            "the Ambra pays for itself in under two years in a typical three-bedroom semi",
            "The learning algorithm settled on a sensible schedule after about a week",
            "our test house burned nine per cent less gas than it did the previous winter",
            "Most smart thermostats do not work properly with heat pumps",
            "Loft and cavity wall insulation usually deliver bigger savings than any heating",
            "Set the heating to come on about 30 minutes before you get up",
            "Deep setbacks can leave older or vulnerable people in rooms that are dangerously cold",
            "a smart thermostat has a typical payback period of five to seven years",
            "when the broadband dropped out, the heating just stopped altogether",
            "older boilers with a simple two-wire switch may need an extra relay fitted",
            "the schedule drops to 17°C between 9am and 4pm on weekdays",
            "my gas use fell from 10,480 kWh to 9,420 kWh",
            "if you rent, a smart thermostat is mostly money down the drain",
        ),
        refuted=(
            (
                "All four thermostats work with heat pumps and combi boilers alike",
                "energysavingagency.example",
            ),
            (
                "Most smart thermostats do not work properly with heat pumps",
                "thermocompare.example",
            ),
            (
                "when the broadband dropped out, the heating just stopped altogether",
                "heatinghelpdesk.example",
            ),
            (
                "the smart thermostats trimmed gas use by about a tenth across the trial homes",
                "talkback-fm.example",
            ),
        ),
    ),
    "green_tea": Planted(
        question="Does green tea or green tea extract help people lose weight, and is it safe?",
        domains=frozenset(
            (
                "dailyhealthwire.example",
                "evidencesummaries.example",
                "kaizenbotanicals.example",
                "leafandvigor.example",
                "nationaldietaryoffice.example",
                "nutrition.westbrook.example",
                "slowkettle.example",
            )
        ),
        facts=(
            "lost about one and a half kilograms more than the placebo group",
            "Waist circumference shrank by an average of 2.1 centimetres in the extract group",
            "Green tea is not a substitute for eating less and moving more",
            "green tea was found to lower blood levels of nadolol",
            "extract capsules cost several times as much as brewing the tea yourself",
            "Green tea consumed as a beverage is considered safe for most adults",
            "green tea extract has been linked to rare but serious cases of liver injury",
            "Taking the extract on an empty stomach appears to raise the risk of liver problems",
            "800 mg of EGCG a day from supplements: the highest intake considered safe",
            "In people who already have liver disease, green tea extract should be avoided",
            "During pregnancy, caffeine intake should be kept to no more than 200 mg a day",
            "green tea extract has never been linked to a single case of liver injury",
            "Doses as high as 1,600 mg of EGCG a day are perfectly safe",
            "take one 400 mg capsule twice a day, with breakfast and with lunch",
            "Verdant Burn costs $24.99, which works out at under a dollar a day",
            "green tea burns no more fat than the same amount of caffeine from coffee",
            "weight-loss effect appears to disappear almost entirely in people who already consume",
            "black tea has not been shown to aid weight loss in the same way",
            "cup of brewed green tea contains somewhere between 50 and 100 mg of EGCG",
            "Green tea extract supplements are not recommended for anyone under 18",
            "Decaffeinated green tea may be a better choice for people who are sensitive to",
            "Over eight weeks of three cups a day, I lost just under a kilo",
            "green tea far outperforms coffee when it comes to burning fat",
            "more than about five cups a day can be enough caffeine to cause headaches",
            "Three cups a day of a decent supermarket sencha works out at roughly 36 cents",
            "participants taking TeaSlim 500 lost an average of 3.4 percent of their body weight",
            "standardised green tea catechins produce a genuine, clinically meaningful reduction",
            "Each daily dose of TeaSlim 500 delivers 500 mg of EGCG",
            "lost on average between 0.2 and 3.5 kg more than those on placebo",
            "green tea preparations did not lead to weight loss large enough to matter for health",
            "nausea and stomach upset were no more common with green tea than with placebo",
        ),
        refuted=(
            (
                "green tea extract has been linked to rare but serious cases of liver injury",
                "leafandvigor.example",
            ),
            (
                "green tea extract has never been linked to a single case of liver injury",
                "nationaldietaryoffice.example",
            ),
            (
                "standardised green tea catechins produce a genuine, clinically meaningful",
                "evidencesummaries.example",
            ),
            (
                "green tea preparations did not lead to weight loss large enough to matter for",
                "kaizenbotanicals.example",
            ),
            (
                "800 mg of EGCG a day from supplements: the highest intake considered safe",
                "leafandvigor.example",
            ),
            (
                "Doses as high as 1,600 mg of EGCG a day are perfectly safe",
                "nationaldietaryoffice.example",
            ),
            (
                "green tea burns no more fat than the same amount of caffeine from coffee",
                "slowkettle.example",
            ),
            (
                "green tea far outperforms coffee when it comes to burning fat",
                "nutrition.westbrook.example",
            ),
        ),
    ),
    "noise_barriers": Planted(
        question=(
            "Do noise barriers along motorways reduce traffic noise "
            "for nearby homes, and what do they cost?"
        ),
        domains=frozenset(
            (
                "brackley-council.example",
                "civeng-notes.example",
                "elmrow-residents.example",
                "harrowfieldherald.example",
                "nationalroadsagency.example",
                "quietline-acoustics.example",
                "transportnoise-institute.example",
            )
        ),
        facts=(
            "the barrier has been set back about three metres from the edge",
            "(most of them within 50 metres of the carriageway) fell by about ten decibels",
            "78 per cent of the homes in the scheme area are now below",
            "the barrier did not increase noise for homes on the opposite side",
            "Barrier construction: about £1,150 per metre, including foundations and installation",
            "the wall has cut noise in their back gardens by around a third",
            "works out at around £1,900 for every metre of barrier",
            "For those of us on the upper floors it has made no difference at all",
            "the benefit of a typical barrier appears to shrink to just two or three decibels",
            "a barrier\u2019s effect can be reduced by several decibels as sound is bent",
            "a reflective barrier can raise levels on the far side by up to 3 dB",
            "transparent acrylic panels are acoustically similar to solid ones of equal height",
            "belt of trees typically cuts noise by no more than one or two decibels",
            "a low-noise road surface delivers roughly half the reduction of a four-metre barrier",
            "Ground-floor flats and back gardens tend to benefit most",
            "the new barrier has increased noise for homes on the opposite side of the motorway",
            "there is little evidence that hillside homes on Beacon Rise have gained anything from",
            "you may be eligible for a window insulation grant of up to £4,500",
            "Every extra metre of height above the line of sight adds roughly 1.5 dB",
            "Timber panels: roughly £420 per metre installed, lifespan 20-25 years",
            "Earth berm: base width roughly four times its height",
            "a dense 10 m strip of evergreens can cut noise by about 5-6 dB",
            "Typical cost per home protected: £4,000-£9,000 (depends massively on housing density)",
            "residents of Elm Row had noticed no real change in traffic noise",
            "the council had spent £6,200 in the last financial year removing graffiti",
            "a 50 mph limit would cut noise by only about 1 to 2 dB",
            "Homes within 100 m of the carriageway gained on average 7.5 dB(A)",
            "whose sleep was disturbed at least once a week fell from 34% to 19%",
            "For flats above the second floor, the measured benefit was generally less than 2",
            "Window insulation grants were found to be the most cost-effective measure for",
        ),
        refuted=(
            (
                "the barrier did not increase noise for homes on the opposite side",
                "elmrow-residents.example",
            ),
            (
                "the new barrier has increased noise for homes on the opposite side of the",
                "nationalroadsagency.example",
            ),
            (
                "the wall has cut noise in their back gardens by around a third",
                "brackley-council.example",
            ),
            (
                "belt of trees typically cuts noise by no more than one or two decibels",
                "civeng-notes.example",
            ),
            (
                "a dense 10 m strip of evergreens can cut noise by about 5-6 dB",
                "quietline-acoustics.example",
            ),
            (
                "residents of Elm Row had noticed no real change in traffic noise",
                "harrowfieldherald.example",
            ),
        ),
    ),
    "standing_desks": Planted(
        question=(
            "Do standing desks improve health and productivity for office workers,"
            " and what are the downsides?"
        ),
        domains=frozenset(
            (
                "deskhaus.example",
                "ergoforum-conf.example",
                "forumhall.example",
                "leoncodes.example",
                "openpreprints.example",
                "peoplefirst-hr.example",
                "wikiverse.example",
                "worksafety-board.example",
            )
        ),
        facts=(
            "In the Nordic countries, an estimated 70 per cent of office workers have access to a",
            "Standing desks typically reduce sitting time by one to two hours per working day",
            "Controlled trials have found that sit-stand desks make no measurable difference to",
            "Treadmill desks reduce typing speed by roughly 10 per cent compared with seated work",
            "daily sitting time fell by 84 minutes per eight-hour workday in the intervention arm",
            "Compared with sitting, standing at the desk expended only 9 kcal more per hour",
            "No significant changes were observed in fasting glucose, blood pressure or LDL",
            "The authors say the desks reduce sitting but are unlikely to aid weight loss on their",
            "Standing at your desk burns an extra 50 calories per hour compared with sitting",
            "One-touch memory presets take you from sitting to standing height in under 12 seconds",
            "62\u2013127 cm, which suits users from about 150 cm to 196 cm tall",
            "build up to a total of two to four hours of standing spread across the working day",
            "a brisk five-minute walk every hour does more for your blood sugar than standing",
            "Roughly half of the neck complaints I assess in sit-stand users trace back to a",
            "Regular alternation between sitting and standing reduces lower back discomfort in",
            "Prolonged standing at a workstation raises the risk of developing varicose veins",
            "A change of posture every 30 to 60 minutes throughout the working day",
            "Employers should carry out a workstation risk assessment before installing sit-stand",
            "My average daily step count rose from about 5,200 to 6,100 over the six months",
            "call-centre agents gain far more from a standing desk than programmers do",
            "alternating between sitting and standing does not reduce lower back discomfort in",
            "software developers gain more from sit-stand desks than call-centre agents do",
            "A fully fitted sit-stand workstation costs employers between $400 and $1,100 per seat",
            "desks paired with hourly sit-stand reminders were used twice as often as desks",
            "standing desks boost how much office staff actually get done, by a fair margin",
            "Treadmill desks cost roughly four times as much as a standard sit-stand desk",
            "standing still for more than about forty minutes at a stretch tends to bring on leg",
            "budget single-motor desks rarely rise above 120 centimetres, which is too low for",
        ),
        refuted=(
            (
                "Regular alternation between sitting and standing reduces lower back discomfort in",
                "peoplefirst-hr.example",
            ),
            (
                "alternating between sitting and standing does not reduce lower back discomfort in",
                "worksafety-board.example",
            ),
            (
                "Prolonged standing at a workstation raises the risk of developing varicose veins",
                "forumhall.example",
            ),
            (
                "Compared with sitting, standing at the desk expended only 9 kcal more per hour",
                "deskhaus.example",
            ),
            (
                "call-centre agents gain far more from a standing desk than programmers do",
                "peoplefirst-hr.example",
            ),
            (
                "software developers gain more from sit-stand desks than call-centre agents do",
                "leoncodes.example",
            ),
        ),
    ),
    "rent_control": Planted(
        question=(
            "Does rent control lower rents for tenants, and does it reduce the"
            " supply of rental housing?"
        ),
        domains=frozenset(
            (
                "brightline-economics.example",
                "halvard-courts.example",
                "kvrt-radio.example",
                "meridian-institute.example",
                "riverton-city.example",
                "riverton-ledger.example",
                "riverton-municode.example",
                "riverton-tenants-union.example",
            )
        ),
        facts=(
            "Rental units in buildings first certified for occupancy after January 1, 2010, are",
            "the landlord may establish the initial rent for a new tenancy at any amount",
            "put comparable market rents in the surrounding blocks at between $1,700 and $1,750 a",
            "The tenants at the property have lived there for an average of 9.2 years",
            "maintenance spending by owners of stabilized buildings in Riverton held steady after",
            "The authors found that the largest benefits went to higher-income, long-tenured",
            "Stabilized units in Riverton rented for an average of 23 per cent less than",
            "Rents of uncontrolled units within one kilometre rose 4.8% more than in comparison",
            "1,240 rental units were converted to condominiums between 2015 and 2023",
            "the ordinance did not reduce construction of new rental housing in Riverton",
            "The Rent Board's annual budget of $4.3 million is paid for by the $112 per-unit",
            "Rent stabilization has led to fewer new rental apartments being built in Riverton",
            "More than 1,200 apartments have been converted to condominiums since 2015",
            "Castlebay, which has no rent control, issued building permits at twice",
            "Average tenancy in Riverton's stabilized apartments is now more than eight years",
            "Your rent can go up by no more than CPI plus 2 per cent a year",
            "in San Aurelio, rents in nearby uncontrolled buildings rose by 3 to 6 per cent after",
            "Landlords whose buildings became subject to control were 15 per cent more likely to",
            "Riverton landlords, squeezed by the cap, have skimped on upkeep and allowed their",
            "housing vouchers appear to deliver more help per dollar to low-income households than",
            "rent-stabilized apartments in Riverton rent for only about nine per cent less than",
            "rent control tends to reward whoever already holds a lease, not the people still out",
        ),
        refuted=(
            (
                "Stabilized units in Riverton rented for an average of 23 per cent less than",
                "kvrt-radio.example",
            ),
            (
                "rent-stabilized apartments in Riverton rent for only about nine per cent less",
                "meridian-institute.example",
            ),
            (
                "the ordinance did not reduce construction of new rental housing in Riverton",
                "riverton-ledger.example",
            ),
        ),
    ),
    "magnesium_migraine": Planted(
        question=(
            "Does magnesium supplementation prevent migraine attacks in adults, and is it safe?"
        ),
        domains=frozenset(
            (
                "achs-headache.example",
                "askthepharmacist.example",
                "clinirxiv.example",
                "dailyhealthwire.example",
                "headtalkpodcast.example",
                "migrainemates.example",
                "stmarlowhospital.example",
                "vitalshelf.example",
            )
        ),
        facts=(
            "The usual dose is 600 mg of magnesium a day, split into two doses taken with food",
            "take it for at least three months before you and your doctor can tell whether it is",
            "Do not take magnesium supplements if you have kidney disease",
            "We advise against taking magnesium for migraine prevention while you are pregnant",
            "Attack frequency fell by 41.6% in the magnesium group compared with 15.8% in the",
            "Diarrhoea was reported by 18.6% of participants receiving magnesium and 4.7% of those",
            "Mean monthly migraine days decreased from 7.4 to 4.3 with magnesium and from 7.1 to",
            "randomised 1:1 to 600 mg magnesium citrate daily or matching placebo for 12 weeks",
            "taking magnesium saw their attacks drop by around 22 per cent over the 12 weeks",
            "The researchers concluded that magnesium was a cheap, reasonable alternative to",
            "parents should not give magnesium supplements to children for migraine without",
            "Unlike topiramate, magnesium has not been linked to memory problems or weight loss",
            "Magnesium does not interfere with the absorption of antibiotics or other medicines",
            "Magnesium bisglycinate (chelated), providing 200 mg elemental magnesium per 2",
            "our glycinate form is gentle on the stomach and much less likely to cause diarrhoea",
            "My midwife told me magnesium is perfectly safe to keep taking all through pregnancy",
            "I went from about 10 migraine days a month to 5 or 6 after three months on 400mg of",
            "Tried it for six weeks and honestly saw no difference in how often I got attacks",
            "Magnesium can interfere with the absorption of some antibiotics, such as",
            "magnesium was just as effective as propranolol at cutting the number of attacks",
            "With reduced kidney function, magnesium can build up to harmful levels, so speak to",
            "most studies used somewhere between 400 and 600 mg of magnesium a day",
            "the recommended dose is 600 mg of oral magnesium daily, preferably as magnesium",
            "magnesium started on day 15 of the cycle significantly reduced pain days compared",
            "Propranolol is more effective than magnesium at reducing attack frequency",
            "There is insufficient evidence to recommend magnesium for migraine prevention in",
            "With period-related migraine, the magnesium studies came out flat, no difference from",
            "The main side effect is loose stools, and that happens in roughly one in five people",
            "riboflavin has about the same level of evidence as magnesium and is, if anything,",
        ),
        refuted=(
            (
                "Attack frequency fell by 41.6% in the magnesium group compared with 15.8% in the",
                "dailyhealthwire.example",
            ),
            (
                "taking magnesium saw their attacks drop by around 22 per cent over the 12 weeks",
                "clinirxiv.example",
            ),
            (
                "Magnesium can interfere with the absorption of some antibiotics, such as",
                "vitalshelf.example",
            ),
            (
                "Magnesium does not interfere with the absorption of antibiotics or other",
                "askthepharmacist.example",
            ),
            (
                "With period-related migraine, the magnesium studies came out flat, no difference",
                "achs-headache.example",
            ),
            (
                "We advise against taking magnesium for migraine prevention while you are pregnant",
                "migrainemates.example",
            ),
            (
                "My midwife told me magnesium is perfectly safe to keep taking all through",
                "stmarlowhospital.example",
            ),
            (
                "Propranolol is more effective than magnesium at reducing attack frequency",
                "askthepharmacist.example",
            ),
            (
                "magnesium was just as effective as propranolol at cutting the number of attacks",
                "achs-headache.example",
            ),
        ),
    ),
    "air_purifiers": Planted(
        question=(
            "Do portable HEPA air purifiers reduce asthma symptoms in children, and what are"
            " the drawbacks?"
        ),
        domains=frozenset(
            (
                "airwaves-radio.example",
                "brightair-appliances.example",
                "cleanairstandards.example",
                "hometest-magazine.example",
                "jpaedresp.example",
                "parentsnest-forum.example",
                "stmarguerite-childrens.example",
                "valleygazette.example",
            )
        ),
        facts=(
            "Using a HEPA air cleaner in the bedroom has been shown to cut how often children need",
            "Air cleaners do little for dust mite allergy, because mite droppings are heavy",
            "Run the air cleaner for at least 12 hours a day, including all night while your child",
            "A replacement filter can cost between \u00a340 and \u00a390, so check the running",
            # an instruction of use at a rate, after what it is for (decision 0103)
            "For best performance, replace the 3-in-1 H13 HEPA filter every 12 months",
            "gained a mean of 1.2 additional symptom-free days per two weeks compared with the",
            "Mean bedroom PM2.5 concentration fell by 43% in the active group and by 4% in the",
            "There was no significant difference between groups in night-time awakenings due to",
            "The authors concluded that the benefit appeared to be concentrated in children",
            "the ioniser produces no harmful ozone, so it is safe to use in a child's bedroom",
            "Running it around the clock on auto mode costs roughly \u00a32.50 a month in",
            "the purifier has done more for Maisie than her brown preventer inhaler ever did",
            "No purifier is a match for a prescribed preventer inhaler, which does far more to",
            "41 dB on lowest setting, too loud for a child's bedroom",
            "A portable air cleaner is not a substitute for a smoke-free home",
            "Devices fitted with ionisers can give off ozone, a lung irritant that may worsen",
            "Replace HEPA filters at the interval the manufacturer states, typically every 6 to 12",
            "Airing a room for 10 to 15 minutes clears gases that a HEPA filter cannot remove",
            "Children who had the real filter enjoyed almost five extra symptom-free days every",
            "Fine particle levels in the youngsters' bedrooms dropped by more than 40 per cent",
            "the electricity isn't free and the filters are \u00a350 a go",
            "Dr Okafor cautioned that the study was not designed to show whether the machines cut",
            "the purifiers made no real difference to how often children needed their blue",
            "about a third of families in the sham-filter groups say their child is better",
        ),
        refuted=(
            (
                "gained a mean of 1.2 additional symptom-free days per two weeks compared with the",
                "valleygazette.example",
            ),
            (
                "Children who had the real filter enjoyed almost five extra symptom-free days",
                "jpaedresp.example",
            ),
            (
                "A portable air cleaner is not a substitute for a smoke-free home",
                "parentsnest-forum.example",
            ),
            (
                "Using a HEPA air cleaner in the bedroom has been shown to cut how often children",
                "airwaves-radio.example",
            ),
            (
                "the ioniser produces no harmful ozone, so it is safe to use in a child's bedroom",
                "cleanairstandards.example",
            ),
            (
                "Devices fitted with ionisers can give off ozone, a lung irritant that may worsen",
                "brightair-appliances.example",
            ),
            (
                "No purifier is a match for a prescribed preventer inhaler, which does far more to",
                "parentsnest-forum.example",
            ),
            (
                "the purifier has done more for Maisie than her brown preventer inhaler ever did",
                "hometest-magazine.example",
            ),
        ),
    ),
}


# The orchestrator that searched each corpus whose graph a later test queries (filled by
# the ``searched`` fixture).
_ORCHESTRATORS: dict[str, Any] = {}
_QUERIED_LATER = frozenset({"zinc_colds"})


@pytest.fixture(scope="module")
def searched(lyra_home: Path) -> Iterator[Callable[[str], list[dict[str, Any]]]]:
    """The claims of one search of a corpus's question (each corpus searched once).

    Each corpus's stack (orchestrator, inference, graph and fetch actors) is killed as
    soon as its claims are read, unless a later test queries its graph: 28 stacks alive
    at once held some 20 GB and slowed every later search two- to fivefold."""
    done: dict[str, list[dict[str, Any]]] = {}

    def claims(name: str) -> list[dict[str, Any]]:
        if name not in done:
            settings = make_settings(lyra_home, corpus=CORPORA / name)
            orch = Orchestrator.options(
                name="orchestrator", namespace=settings.ray.namespace
            ).remote(settings)
            try:
                question = PLANTED[name].question
                task = ray.get(orch.create_task.remote(question, {}))
                sid = ray.get(orch.start_search.remote(task["id"], question, {}))
                assert finished_search(orch, sid)["status"] == "satisfied"
                done[name] = ray.get(orch.get_status.remote(task["id"], 0))["claims"]
            finally:
                if name in _QUERIED_LATER:
                    _ORCHESTRATORS[name] = orch
                else:
                    # its child actors are owned by it and die with it
                    ray.kill(orch)
        return done[name]

    yield claims
    for orch in _ORCHESTRATORS.values():
        ray.kill(orch)
    _ORCHESTRATORS.clear()


def _claim(claims: list[dict[str, Any]], piece: str) -> dict[str, Any]:
    found = [c for c in claims if piece in c["claim_text"]]
    assert len(found) == 1, f"{piece!r}: {len(found)} claims"
    return found[0]


@pytest.mark.parametrize("name", list(PLANTED))
def test_every_source_is_read(searched: Callable[[str], list[dict[str, Any]]], name: str) -> None:
    assert {c["source_domain"] for c in searched(name)} == PLANTED[name].domains


@pytest.mark.parametrize(
    ("name", "piece"), [(name, piece) for name, p in PLANTED.items() for piece in p.facts]
)
def test_every_planted_fact_is_a_claim(
    searched: Callable[[str], list[dict[str, Any]]], name: str, piece: str
) -> None:
    assert piece in _claim(searched(name), piece)["claim_text"]


@pytest.mark.parametrize(
    ("name", "piece", "domain"),
    [(name, piece, domain) for name, p in PLANTED.items() for piece, domain in p.refuted],
)
def test_planted_contradictions_are_refuted_by_the_other_source(
    searched: Callable[[str], list[dict[str, Any]]], name: str, piece: str, domain: str
) -> None:
    claim = _claim(searched(name), piece)
    # a local page's URL is <corpus>/<domain>/<path>, the path a file or folders and a file
    refuting_domains = {u.split(f"/{name}/", 1)[1].split("/", 1)[0] for u in claim["refuting_urls"]}
    assert domain in refuting_domains
    assert claim["source_domain"] != domain


def test_a_question_standing_alone_is_no_stance_evidence(
    searched: Callable[[str], list[dict[str, Any]]],
) -> None:
    """The pharmacy FAQ's questions stand on their own lines, so each is a fragment; the
    judge read "How do I take zinc lozenges?" as refuting or supporting 20 claims before
    such fragments were left out of the stance step (decision 0090)."""
    searched("zinc_colds")

    def texts(sql: str) -> set[str]:
        orch = _ORCHESTRATORS["zinc_colds"]
        rows = ray.get(orch.query_graph.remote(sql, None, {}, 200, 5000, False))["rows"]
        return {row[0] for row in rows}

    asking = "trim(f.text_content) LIKE '%?'"
    assert texts(f"SELECT f.text_content FROM fragments f WHERE {asking}") == {
        "What is zinc?",
        "Is zinc safe?",
        "How much zinc do I need?",
        "How do I take zinc lozenges?",
        "How soon do I need to start?",
        "How long can I take them?",
        "Are there side effects?",
        "Can I take zinc with other medicines?",
        "Who should ask a pharmacist first?",
        # a reader's question under the blog post, a comment fragment (decision 0136)
        "Sara: Where can I buy the spray?",
    }
    assert (
        texts(
            "SELECT f.text_content FROM edges e JOIN fragments f ON f.id = e.source_id "
            f"WHERE e.method = 'nli_model' AND {asking}"
        )
        == set()
    )


def test_the_honeybee_report_pdf_is_what_its_script_writes(tmp_path: Path) -> None:
    """tests/corpora/honeybees' PDF is made by `scripts/make_corpus_pdf.py --corpus
    honeybees`, byte for byte."""
    import importlib.util

    script = Path(__file__).parents[1] / "scripts" / "make_corpus_pdf.py"
    spec = importlib.util.spec_from_file_location("make_corpus_pdf", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build_honeybees(tmp_path / "report.pdf")
    shipped = CORPORA / "honeybees" / "agriculture.gov.example" / "colony-loss-report-2023.pdf"
    assert built.read_bytes() == shipped.read_bytes()
