#!/usr/bin/env python3
"""Rebuild edits_blind2.jsonl: hand-written one-answer edits of AVeriTeC dev gold evidence.

Written blind: without reading ev2r's implementation, its tests or its training generators.
Standard library only. Run from the repository root:

    python3 benchmarks/data/edits_blind2/make_edits.py [--dev ../shared/data/averitec/dev.json] [--out PATH]

Every edit below is (dev_index, pair_index, family, old, new): in the predicted evidence of the base
item for that claim, pair `pair_index`'s answer has `old` (which must occur exactly once in it)
replaced by `new`. The reference evidence is never touched.
"""
import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
DEFAULT_DEV = REPO_ROOT.parent / "shared" / "data" / "averitec" / "dev.json"
DEFAULT_OUT = HERE / "edits_blind2.jsonl"

SEED = 2026
N_RANDOM = 30
MAX_QUESTIONS = 5
MAX_ANSWER_CHARS = 400
MIN_LONG_ANSWER_WORDS = 8
# What random.Random(2026).sample gives over the filtered pool; checked below so a drift is loud.
EXPECTED_RANDOM = [1, 11, 80, 96, 98, 101, 105, 112, 122, 152, 175, 181, 188, 194, 219, 234, 248,
                   277, 300, 316, 340, 372, 393, 409, 416, 430, 458, 472, 477, 480]
# Added by hand where a family needed an answer of a particular shape (see README.md):
#   8, 298: modality (must / required / mandatory);   159, 191, 327, 384: comparative
#   (far greater / more likely / highest / worst / over a third);   327, 384, 400: causal
#   (because / resulted in); 159, 191, 298 also give quantifier edits (any / most / some).
HAND_PICKED = [8, 159, 191, 298, 327, 384, 400]

CHANGING = ["certainty", "modality", "attribution", "time", "quantifier", "comparative",
            "role_swap", "causal"]
PRESERVING = ["abbreviation", "sentence_split", "coordination", "date_format", "paraphrase",
              "punctuation"]

LQ, RQ, RSQ, LSQ, EMD = "\u201c", "\u201d", "\u2019", "\u2018", "\u2014"

EDITS = [
    # ---------------- changing: certainty (certain <-> uncertain) ----------------
    (96, 1, "certainty", "known for publishing false claims", "suspected of publishing false claims"),
    (122, 3, "certainty", "has determined the suspect is a private", "suggests the suspect may be a private"),
    (277, 1, "certainty", "was proven to be a fake", "was rumoured to be a fake"),
    (300, 0, "certainty", "shows no deaths occurred", "suggests that no deaths may have occurred"),
    (416, 2, "certainty", "It may be permanent.", "It will be permanent."),
    (416, 3, "certainty", "This will have zero impact", "This might have zero impact"),
    (472, 1, "certainty", "that are expected to be more effective", "that are proven to be more effective"),
    (98, 0, "certainty", "Apple has decided to leave them", "Apple is rumoured to be leaving them"),
    (234, 3, "certainty", "originates from a political blog entry", "possibly originates from a political blog entry"),
    (188, 2, "certainty", "The claim is false and", "The claim is probably false and"),
    (11, 0, "certainty", "Face mask use was 79% effective", "Face mask use may have been 79% effective"),
    (430, 0, "certainty", "his White House launched a new online form", "his White House reportedly launched a new online form"),
    (105, 0, "certainty", "that it could develop into", "that it would develop into"),

    # ---------------- changing: modality (obligation / possibility / permission) ----------------
    (80, 1, "modality", "it must be scrupulous", "it may be scrupulous"),
    (248, 0, "modality", "now eligible for the flu vaccine", "now required to have the flu vaccine"),
    (480, 0, "modality", "School choice allows public education funds", "School choice requires public education funds"),
    (480, 2, "modality", "and allowing students to pick", "and requiring students to pick"),
    (101, 2, "modality", "they forced the staff to put out", "they allowed the staff to put out"),
    (416, 0, "modality", "ordering that he suspend", "permitting him to suspend"),
    (105, 0, "modality", "that people needed to be wary of", "that people might want to be wary of"),
    (477, 1, "modality", "We need to end the violence", "We could end the violence"),
    (298, 0, "modality", "must wear face coverings", "may wear face coverings"),
    (298, 0, "modality", "though are required for customers", "though are allowed for customers"),
    (298, 0, "modality", "are not mandatory in", "are not permitted in"),
    (8, 0, "modality", "that are mailed must be postmarked", "that are mailed may be postmarked"),

    # ---------------- changing: attribution (who said it / said vs denied) ----------------
    (1, 0, "attribution", "wrongly claimed the Trump administration", "denied that the Trump administration"),
    (98, 1, "attribution", "Apple says it is removing", "Apple denies that it is removing"),
    (105, 0, "attribution", "But he added that", "But he denied that"),
    (188, 1, "attribution", "She said herself that", "Her critics said that"),
    (234, 2, "attribution", "written by someone else", "written by Harris herself"),
    (277, 3, "attribution", "He also emphasized that", "Police also emphasized that"),
    (277, 0, "attribution", "The Mayor commented", "The Mayor's daughter commented"),
    (316, 0, "attribution", "announced on March 18 2020", "denied on March 18 2020"),
    (409, 1, "attribution", "dismissed the reports", "confirmed the reports"),
    (477, 0, "attribution", "the city's Police Department confirmed early Wednesday", "protesters claimed early Wednesday"),
    (122, 0, "attribution", "by the Denver Office of the Medical Examiner", "by a protest organiser"),

    # ---------------- changing: time ----------------
    (80, 1, "time", "dating back to 1947", "dating back to 1974"),
    (152, 1, "time", "leading up to", "following"),
    (175, 1, "time", "April 17, 2020", "April 17, 2021"),
    (194, 0, "time", "1st October 1960", "1st October 1966"),
    (219, 0, "time", "from 1966 to 1999", "from 1966 to 1989"),
    (300, 0, "time", "19th September 2020", "19th September 2019"),
    (416, 1, "time", "until December 31, 2020", "until December 31, 2021"),
    (477, 1, "time", "26/08/2020", "28/08/2020"),
    (472, 0, "time", "that has increased by three miles", "that will increase by three miles"),
    (458, 1, "time", "in 2017-18", "in 2007-08"),
    (181, 0, "time", "sanctioned the same day", "sanctioned a year later"),
    (234, 3, "time", "June 28, 2019", "June 26, 2019"),

    # ---------------- changing: quantifier ----------------
    (316, 0, "quantifier", "restrict all non-essential travel", "restrict some non-essential travel"),
    (188, 2, "quantifier", "thousands of posts circulated", "a few posts circulated"),
    (340, 1, "quantifier", "There is no evidence to show", "There is some evidence to show"),
    (300, 0, "quantifier", "no deaths occurred", "several deaths occurred"),
    (472, 1, "quantifier", "Mexico has not paid for any construction", "Mexico has paid for some construction"),
    (11, 0, "quantifier", "not effective in certain other situations", "not effective in most other situations"),
    (122, 3, "quantifier", "with no affiliation with Antifa", "with some affiliation with Antifa"),
    (416, 0, "quantifier", "for some employers", "for all employers"),
    (191, 0, "quantifier", "most known side effects are mild", "few known side effects are mild"),
    (298, 0, "quantifier", "staff in some", "staff in all"),
    (159, 0, "quantifier", "of any year from 2015 to 2019", "of most years from 2015 to 2019"),

    # ---------------- changing: comparative ----------------
    (248, 0, "comparative", "More people than ever", "Fewer people than ever"),
    (472, 1, "comparative", "to be more effective", "to be less effective"),
    (480, 3, "comparative", "push for more oversight", "push for less oversight"),
    (316, 2, "comparative", "top priority", "lowest priority"),
    (159, 0, "comparative", "is far greater than", "is far smaller than"),
    (159, 1, "comparative", "there were more deaths recorded", "there were fewer deaths recorded"),
    (191, 0, "comparative", "Severe reactions are more likely", "Severe reactions are less likely"),
    (384, 0, "comparative", "accounted for over a third", "accounted for under a third"),
    (384, 0, "comparative", "worst year for primary forests", "best year for primary forests"),
    (327, 3, "comparative", "your highest 5 or 8 fiscal years", "your lowest 5 or 8 fiscal years"),

    # ---------------- changing: role_swap (who did what to whom) ----------------
    (416, 0, "role_swap", "President Trump" + RSQ + "s memorandum to Treasury Secretary Steven Mnuchin",
     "Treasury Secretary Steven Mnuchin" + RSQ + "s memorandum to President Trump"),
    (430, 0, "role_swap",
     "Donald Trump has long accused social media platforms like Facebook, Twitter, and YouTube of political bias.",
     "Social media platforms like Facebook, Twitter, and YouTube have long accused Donald Trump of political bias."),
    (1, 0, "role_swap", "the Trump administration accused Billie Eilish of", "Billie Eilish accused the Trump administration of"),
    (101, 2, "role_swap", "they forced the staff to put out", "the staff forced them to put out"),
    (472, 1, "role_swap", "Trump's administration mainly replaced barriers installed by previous administrations",
     "Previous administrations mainly replaced barriers installed by Trump's administration"),
    (340, 1, "role_swap", "the NFL have supported the Africa Town Coalition", "the Africa Town Coalition have supported the NFL"),
    (277, 3, "role_swap", "he was proud of her", "she was proud of him"),
    (477, 1, "role_swap", "a Black man " + EMD + " Jacob Blake " + EMD + " was shot by the police",
     "a police officer was shot by a Black man " + EMD + " Jacob Blake"),
    (112, 0, "role_swap", "the net worth of a typical white family is nearly ten times greater than that of a Black family",
     "the net worth of a typical Black family is nearly ten times greater than that of a white family"),
    (477, 0, "role_swap", "the police shooting of Jacob Blake", "Jacob Blake's shooting of a police officer"),

    # ---------------- changing: causal ----------------
    (277, 2, "causal", "was removed as it broke", "was removed even though it broke"),
    (372, 1, "causal", "the number fell to 28 as recruitment plunged to 759",
     "recruitment plunged to 759 because the number fell to 28"),
    (477, 0, "causal", "the third night of protests over the police shooting of Jacob Blake",
     "the third night of protests, which led to the police shooting of Jacob Blake"),
    (11, 0, "causal", "is dependent on how they are used", "is independent of how they are used"),
    (188, 2, "causal", "contracting COVID-19 resulting in a scenario for prompting an onslaught of disinformation",
     "contracting COVID-19 as a result of an onslaught of disinformation"),
    (480, 1, "causal", "tuition, as they are funded", "tuition, although they are funded"),
    (400, 1, "causal", "happened because we had", "happened although we had"),
    (327, 1, "causal", "He increased it because he had been taking",
     "He increased it, unrelated to the fact that he had been taking"),
    (384, 0, "causal", "when forest fires resulted in unprecedented forest loss",
     "when unprecedented forest loss resulted in forest fires"),

    # ---------------- preserving: abbreviation ----------------
    (80, 1, "abbreviation", "an US document", "a United States document"),
    (112, 1, "abbreviation", "the DCFPI.", "the DC Fiscal Policy Institute."),
    (152, 0, "abbreviation", "U.S.A.", "United States of America"),
    (181, 0, "abbreviation", "a Rs 5,000 loan", "a 5,000 rupee loan"),
    (181, 1, "abbreviation", "The former PM's family", "The former Prime Minister's family"),
    (234, 0, "abbreviation", "the United States of America", "the USA"),
    (234, 1, "abbreviation", "president of the United States on", "president of the U.S. on"),
    (248, 0, "abbreviation", "by the NHS", "by the National Health Service"),
    (316, 0, "abbreviation", "the Canada-U.S. border", "the Canada-United States border"),
    (480, 1, "abbreviation", "Charter schools in the United States", "Charter schools in the US"),
    (316, 0, "abbreviation", "12:01 a.m. EDT", "12:01 a.m. Eastern Daylight Time"),

    # ---------------- preserving: sentence_split (split one / join two) ----------------
    (11, 0, "sentence_split", "in certain situations. But not effective", "in certain situations, but not effective"),
    (101, 1, "sentence_split", 'No "attack" as such took place however staff', 'No "attack" as such took place. However, staff'),
    (105, 0, "sentence_split", "day-by-day basis." + RQ + " But he added", "day-by-day basis," + RQ + " but he added"),
    (122, 2, "sentence_split", "for 9News, although he was not licensed", "for 9News. However, he was not licensed"),
    (181, 1, "sentence_split", "around Rs 12,000. The family, however,", "around Rs 12,000; the family, however,"),
    (277, 3, "sentence_split", "proud of her. He also emphasized", "proud of her, and he also emphasized"),
    (340, 1, "sentence_split", "movement however the Africa Town Coalition are", "movement. However, the Africa Town Coalition are"),
    (430, 0, "sentence_split", "of political bias. On Wednesday, his White House", "of political bias, and on Wednesday his White House"),
    (458, 0, "sentence_split", "in December 2014, but federal officials", "in December 2014. But federal officials"),
    (472, 1, "sentence_split", "any construction. Americans are paying", "any construction; Americans are paying"),
    (472, 0, "sentence_split", "primary barriers. Under Trump, that has", "primary barriers, and under Trump that has"),

    # ---------------- preserving: coordination (order of coordinated items) ----------------
    (98, 1, "coordination", "to lessen iPhone packaging, reduce carbon emissions, and",
     "to reduce carbon emissions, lessen iPhone packaging, and"),
    (248, 0, "coordination", "in older adults, very young children, and people", "in very young children, older adults, and people"),
    (316, 0, "coordination", "that Canada and the United States have agreed", "that the United States and Canada have agreed"),
    (316, 2, "coordination", "the health and safety of Canadians", "the safety and health of Canadians"),
    (430, 0, "coordination", "like Facebook, Twitter, and YouTube of", "like YouTube, Facebook, and Twitter of"),
    (480, 0, "coordination", "a public school, private school, charter school, home school",
     "a private school, public school, home school, charter school"),
    (480, 1, "coordination", "primary or secondary education", "secondary or primary education"),
    (472, 1, "coordination", "illegal immigration and drug smuggling", "drug smuggling and illegal immigration"),
    (234, 1, "coordination",
     "a man who spent nearly a half-century in public service as a senator and vice president, and who endured profound family loss,",
     "a man who endured profound family loss, and who spent nearly a half-century in public service as a senator and vice president,"),
    (191, 0, "coordination", "mild, transient, and manageable", "transient, mild, and manageable"),
    (384, 0, "coordination", "Outside of 2016 and 2017", "Outside of 2017 and 2016"),

    # ---------------- preserving: date_format ----------------
    (80, 0, "date_format", "December 26, 1968", "26 December 1968"),
    (175, 1, "date_format", "April 17, 2020", "2020-04-17"),
    (194, 0, "date_format", "1st October 1960", "October 1, 1960"),
    (194, 1, "date_format", "1st July 1960", "1960-07-01"),
    (234, 1, "date_format", "January 20, 2021", "20 January 2021"),
    (234, 3, "date_format", "June 28, 2019", "28/06/2019"),
    (277, 3, "date_format", "in a June 1, 2020, press conference", "in a 1 June 2020 press conference"),
    (300, 0, "date_format", "19th September 2020", "September 19, 2020"),
    (316, 0, "date_format", "Saturday, March 21, 2020", "Saturday, 21 March 2020"),
    (316, 1, "date_format", "On 18/09/2020", "On September 18, 2020"),
    (416, 1, "date_format", "from September 1, 2020", "from 1 September 2020"),
    (477, 1, "date_format", "Yes. 26/08/2020", "Yes. 26 August 2020"),

    # ---------------- preserving: paraphrase ----------------
    (96, 1, "paraphrase", "It is a website known for publishing false claims",
     "The site has a reputation for putting out false claims"),
    (101, 0, "paraphrase", "The advert showed an interfaith couple.",
     "The advertisement featured a couple from two different religions."),
    (122, 3, "paraphrase", "with no affiliation with Antifa", "who is not affiliated with Antifa"),
    (188, 1, "paraphrase", "She said herself that it was impossible to prove", "She herself said that it could not be proven"),
    (277, 2, "paraphrase", "was removed as it broke social media rules about sharing",
     "was taken down because it violated social media rules on sharing"),
    (300, 0, "paraphrase", "no deaths occurred in police custody", "nobody died in police custody"),
    (393, 1, "paraphrase", "No this is the estimated total amount of Mail Ballots altogether.",
     "No, this figure is the estimate for all mail ballots combined."),
    (416, 3, "paraphrase", "This will have zero impact on Social Security", "Social Security will not be affected by this at all"),
    (458, 0, "paraphrase", "These numbers have not been gathered or released to the public yet.",
     "These figures have yet to be collected or made public."),
    (472, 1, "paraphrase", "Americans are paying the costs", "Americans are footing the bill"),
    (98, 0, "paraphrase", "Apple has decided to leave them out the box?", "Apple has chosen not to include them in the box?"),
    (340, 1, "paraphrase", "people have linked them as being the same", "people have treated the two as one and the same"),

    # ---------------- preserving: punctuation / capitalisation ----------------
    (1, 0, "punctuation", "of " + LQ + "destroying our country", 'of "destroying our country"'),
    (80, 1, "punctuation", 'The term "red-tag" was', "The term " + LSQ + "red-tag" + RSQ + " was"),
    (101, 1, "punctuation", 'No "attack" as such took place however staff', 'No "attack", as such, took place; however, staff'),
    (188, 2, "punctuation", "The claim is false and thousands", "The claim is false, and thousands"),
    (219, 0, "punctuation", " with an interregnum from 1979 to 1983.", " (with an interregnum from 1979 to 1983)."),
    (234, 2, "punctuation", "No. the full quote", "No. The full quote"),
    (248, 1, "punctuation", "(avoid holding the syringe plunger),", EMD + " avoid holding the syringe plunger " + EMD),
    (316, 0, "punctuation", "The Prime Minister, Justin Trudeau, announced", "The Prime Minister (Justin Trudeau) announced"),
    (393, 1, "punctuation", "No this is the estimated total amount of Mail Ballots",
     "No, this is the estimated total amount of mail ballots"),
    (477, 1, "punctuation", "a Black man " + EMD + " Jacob Blake " + EMD + " was shot", "a Black man, Jacob Blake, was shot"),
    (458, 0, "punctuation", ", which went into effect in December 2014,", " (which went into effect in December 2014),"),
    (409, 1, "punctuation", "National Defense on Friday dismissed", "National Defense, on Friday, dismissed"),
]


def render_answer(answer):
    """First answer of a question as text; a Boolean answer is followed by its explanation."""
    text = (answer.get("answer") or "").strip()
    if answer.get("answer_type") == "Boolean":
        expl = (answer.get("boolean_explanation") or "").strip()
        if expl:
            text = text + (" " if text[-1:] in ".!?" else ". ") + expl
    return text


def gold_pairs(item):
    """The claim's gold pairs: each question with its first answer; duplicate questions dropped."""
    pairs, seen = [], set()
    for q in item.get("questions") or []:
        question = (q.get("question") or "").strip()
        answers = q.get("answers") or []
        if not answers or question in seen:
            continue
        seen.add(question)
        pairs.append({"question": question, "answer": render_answer(answers[0]),
                      "_type": answers[0].get("answer_type")})
    return pairs


def eligible(item):
    pairs = gold_pairs(item)
    if not pairs or len(item.get("questions") or []) > MAX_QUESTIONS:
        return False
    if any(len(p["answer"]) > MAX_ANSWER_CHARS for p in pairs):
        return False
    return any(len(p["answer"].split()) >= MIN_LONG_ANSWER_WORDS and p["_type"] in ("Extractive", "Abstractive")
               for p in pairs)


def clean(pairs):
    return [{"question": p["question"], "answer": p["answer"]} for p in pairs]


def build(dev):
    pool = [i for i, item in enumerate(dev) if eligible(item)]
    drawn = sorted(random.Random(SEED).sample(pool, N_RANDOM))
    if drawn != EXPECTED_RANDOM:
        sys.exit(f"random draw changed: {drawn} != {EXPECTED_RANDOM}")
    bases = sorted(set(drawn) | set(HAND_PICKED))
    families = set(CHANGING) | set(PRESERVING)
    by_claim = {i: [] for i in bases}
    for e in EDITS:
        dev_index, pair_index, family, old, new = e
        assert family in families, e
        assert dev_index in by_claim, e
        assert old != new, e
        by_claim[dev_index].append(e)

    rows = []
    for i in bases:
        item = dev[i]
        pairs = clean(gold_pairs(item))
        base_id = f"n{i}"
        common = {"claim": item["claim"], "gold_label": item["label"]}
        rows.append({"id": base_id, "base_id": base_id, "family": "base", "side": "base", "pair_index": None,
                     "dev_index": i, "original_answer": None, "edited_answer": None, **common,
                     "reference_evidence": pairs, "predicted_evidence": pairs})
        counter = {}
        for dev_index, pair_index, family, old, new in by_claim[i]:
            assert 0 <= pair_index < len(pairs), (dev_index, pair_index)
            original = pairs[pair_index]["answer"]
            n = original.count(old)
            assert n == 1, f"n{dev_index} pair {pair_index} {family}: {old!r} occurs {n} times"
            edited = original.replace(old, new)
            assert edited != original
            k = counter.get(family, 0)
            counter[family] = k + 1
            predicted = [dict(p) for p in pairs]
            predicted[pair_index]["answer"] = edited
            rows.append({"id": f"{base_id}-{family}-{k}", "base_id": base_id, "family": family,
                         "side": "changing" if family in CHANGING else "preserving",
                         "pair_index": pair_index, "dev_index": i, "original_answer": original,
                         "edited_answer": edited, **common,
                         "reference_evidence": pairs, "predicted_evidence": predicted})
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default=str(DEFAULT_DEV), help="AVeriTeC dev.json (default: ../shared/data/averitec/dev.json)")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="output jsonl (default: beside this script)")
    args = ap.parse_args()
    with open(args.dev, encoding="utf-8") as f:
        dev = json.load(f)
    rows = build(dev)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts = {}
    for r in rows:
        counts[(r["side"], r["family"])] = counts.get((r["side"], r["family"]), 0) + 1
    for (side, fam), n in sorted(counts.items()):
        print(f"{side:10s} {fam:15s} {n}")
    print(f"{len(rows)} rows -> {args.out}")


if __name__ == "__main__":
    main()
