"""Make edits_blind.jsonl: AVeriTeC dev claims, their gold evidence as the prediction, one answer edited once.

Written blind (the blind half of the two-sided edit benchmark): without reading ev2r's implementation, its tests,
or the handed edit families.
Every edit below was written by hand, in context, and read again; this script only applies them.

Claims: the dev claims (../shared/data/averitec/dev.json) with at most 5 questions, every (first) answer, with a
Boolean's explanation, at most 350 characters and one extractive or abstractive answer of 8 words or more, shuffled
with random.Random(63); the first 25 of that order, plus 3 claims picked for the `sign` family (dev 125, 239, 439: the few short dev answers
that give a signed change figure or a rise/fall by a percentage), in dev order.

Each claim gives one base item (family "base"): claim, gold verdict, reference evidence = the claim's gold
question/answer pairs (each question's first answer; a Boolean answer followed by its explanation), predicted
evidence = the same pairs. Each edit gives one item: the base item with ONE predicted answer edited once (the
reference untouched). Fields: id, base_id, family, side (base / preserving / changing), pair_index, dev_index,
original_answer, edited_answer, and the ev2r input fields id, claim, gold_label, reference_evidence,
predicted_evidence.

    python benchmarks/data/edits_blind/make_edits.py [--dev ../shared/data/averitec/dev.json]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 63
N_SEEDED = 25
EXTRA = [125, 239, 439]  # for the sign family

PRESERVING = ["typo", "synonym", "contraction", "number_format", "stopwords", "clause_order", "voice"]
CHANGING = ["antonym", "entity", "number", "unit_scale", "sign", "negation_not", "negation_lexical", "hedge",
            "subject_object", "yes_no"]

# (dev index, pair index, family, old text, new text): `old` occurs exactly once in that answer.
EDITS = [
    # --- preserving: real keyboard typos (never in a name)
    (472, 0, "typo", "primary barriers", "primary barreirs"),
    (140, 0, "typo", "newspaper publisher", "newpaper publisher"),
    (255, 0, "typo", "publicly criticized", "publically criticized"),
    (357, 1, "typo", "unemployment rate", "unemployement rate"),
    (417, 0, "typo", "attended the rally", "attended teh rally"),
    (266, 0, "typo", "denied receiving", "denied recieving"),
    (436, 0, "typo", "the distribution of", "the distrubution of"),
    (322, 0, "typo", "aid to supplement", "aid to suplement"),
    (126, 0, "typo", "did briefly own", "did breifly own"),
    (28, 0, "typo", "international terrorism", "international terorrism"),
    (0, 1, "typo", "most relevant stories", "most relevent stories"),
    (160, 2, "typo", "He accused Democrats", "He acused Democrats"),
    # --- preserving: synonyms chosen in context
    (472, 1, "synonym", "mainly replaced", "mostly replaced"),
    (140, 0, "synonym", "civil rights activist", "civil rights campaigner"),
    (255, 0, "synonym", "publicly criticized", "openly criticized"),
    (232, 1, "synonym", "a satirical website", "a satirical site"),
    (96, 1, "synonym", "publishing false claims", "publishing untrue claims"),
    (417, 0, "synonym", "About 460,000", "Roughly 460,000"),
    (436, 0, "synonym", "It is unlikely", "It is improbable"),
    (266, 0, "synonym", "latter's interrogation", "latter's questioning"),
    (322, 0, "synonym", "and ordered Federal aid", "and directed Federal aid"),
    (307, 0, "synonym", "President Clinton announced", "President Clinton named"),
    (195, 0, "synonym", "in the region of 200 million", "around 200 million"),
    (436, 1, "synonym", "not the norm", "not the rule"),
    # --- preserving: contractions
    (472, 1, "contraction", "Mexico has not paid", "Mexico hasn't paid"),
    (160, 2, "contraction", "did not directly", "didn't directly"),
    (232, 1, "contraction", "It is a satirical", "It's a satirical"),
    (96, 1, "contraction", "It is a website", "It's a website"),
    (436, 0, "contraction", "It is unlikely", "It's unlikely"),
    (28, 0, "contraction", "Pogba is NOT quitting", "Pogba isn't quitting"),
    (472, 0, "contraction", "that has increased", "that's increased"),
    # --- preserving: numbers in another format
    (417, 0, "number_format", "About 460,000 people", "About 460000 people"),
    (417, 0, "number_format", "is 0.09%", "is 0.09 percent"),
    (357, 1, "number_format", "from 25.1 per cent", "from 25.1%"),
    (357, 1, "number_format", "to 19 per cent", "to nineteen per cent"),
    (472, 0, "number_format", "by three miles", "by 3 miles"),
    (472, 0, "number_format", "had 654 miles", "had six hundred fifty-four miles"),
    (195, 0, "number_format", "200 million", "200,000,000"),
    (239, 0, "number_format", "43 per cent", "43%"),
    (307, 0, "number_format", "on June 15, 1993", "on 15 June 1993"),
    (357, 0, "number_format", "13/09/2020", "13 September 2020"),
    (417, 0, "number_format", "in 12 states", "in twelve states"),
    (439, 1, "number_format", "by 23.9%", "by 23.9 percent"),
    # --- preserving: articles / stopwords dropped where the meaning stays
    (472, 0, "stopwords", ", the southwest border", ", southwest border"),
    (140, 1, "stopwords", "on the ticket alongside", "on ticket alongside"),
    (417, 0, "stopwords", "The infection rate based on the above numbers", "Infection rate based on above numbers"),
    (266, 0, "stopwords", "The Narcotics Control Bureau (NCB), currently investigating the Bollywood",
     "Narcotics Control Bureau (NCB), currently investigating Bollywood"),
    (436, 0, "stopwords", "unlikely the military", "unlikely military"),
    (322, 0, "stopwords", "declared that a major disaster exists in the State of",
     "declared a major disaster exists in State of"),
    (357, 1, "stopwords", "The unemployment rate in Edo", "Unemployment rate in Edo"),
    (0, 1, "stopwords", "ferreting out the most relevant stories in the world of",
     "ferreting out most relevant stories in world of"),
    (28, 0, "stopwords", "as a retaliation to", "as retaliation to"),
    (307, 0, "stopwords", "by the United States Senate on August", "by United States Senate August"),
    # --- preserving: clauses reordered
    (472, 0, "clause_order",
     "When Trump was campaigning to become president, the southwest border had 654 miles of primary barriers.",
     "The southwest border had 654 miles of primary barriers when Trump was campaigning to become president."),
    (140, 1, "clause_order",
     "in 1952, she became the vice presidential candidate for the Progressive Party,",
     "she became the vice presidential candidate for the Progressive Party in 1952,"),
    (357, 1, "clause_order",
     "The unemployment rate in Edo State has dropped from 25.1 per cent in the 3rd quarter of 2018 to 19 per cent in "
     "the second quarter of 2020, new data released from Nigeria Bureau of Statistics (NBS) have shown.",
     "New data released from Nigeria Bureau of Statistics (NBS) have shown that the unemployment rate in Edo State "
     "has dropped from 25.1 per cent in the 3rd quarter of 2018 to 19 per cent in the second quarter of 2020."),
    (436, 0, "clause_order",
     "It is unlikely the military will be involved, either in the distribution of a vaccine or in deciding who gets "
     "those precious initial deliveries, officials from both the White House and Defense Department said.",
     "Officials from both the White House and Defense Department said it is unlikely the military will be involved, "
     "either in the distribution of a vaccine or in deciding who gets those precious initial deliveries."),
    (417, 0, "clause_order",
     "South Dakota confirmed 124 COVID-19 cases tied to the Sturgis Rally as of Sept. 8,",
     "As of Sept. 8, South Dakota confirmed 124 COVID-19 cases tied to the Sturgis Rally,"),
    (307, 0, "clause_order",
     "President Clinton announced Ruth Bader Ginsburg as White's replacement on June 15, 1993, and she was confirmed "
     "by the United States Senate on August 3, 1993.",
     "On June 15, 1993, President Clinton announced Ruth Bader Ginsburg as White's replacement, and on August 3, "
     "1993, she was confirmed by the United States Senate."),
    (160, 2, "clause_order",
     "He accused Democrats in February of", "In February he accused Democrats of"),
    (239, 0, "clause_order",
     "Electricity generation from coal increased by 43 per cent in 2019",
     "In 2019, electricity generation from coal increased by 43 per cent"),
    (0, 1, "clause_order",
     "Scoopertino is an imaginary news organization devoted to ferreting out the most relevant stories in the world "
     "of Apple, whether or not they actually occurred - says their about page",
     "Their about page says Scoopertino is an imaginary news organization devoted to ferreting out the most relevant "
     "stories in the world of Apple, whether or not they actually occurred"),
    (46, 0, "clause_order",
     "Late cord clamping (performed approximately 1–3 min after birth) is recommended for all births,",
     "For all births, late cord clamping (performed approximately 1–3 min after birth) is recommended."),
    # --- preserving: active <-> passive voice
    (472, 1, "voice",
     "Trump's administration mainly replaced barriers installed by previous administrations with new ones",
     "Barriers installed by previous administrations were mainly replaced by Trump's administration with new ones"),
    (472, 1, "voice", "Americans are paying the costs", "The costs are being paid by Americans"),
    (417, 0, "voice", "South Dakota confirmed 124 COVID-19 cases tied to the Sturgis Rally",
     "124 COVID-19 cases tied to the Sturgis Rally were confirmed by South Dakota"),
    (322, 1, "voice", "Trump offered help with firefighting equipment",
     "Help with firefighting equipment was offered by Trump"),
    (307, 0, "voice",
     "President Clinton announced Ruth Bader Ginsburg as White's replacement on June 15, 1993, and she was confirmed "
     "by the United States Senate on August 3, 1993.",
     "Ruth Bader Ginsburg was announced by President Clinton as White's replacement on June 15, 1993, and the United "
     "States Senate confirmed her on August 3, 1993."),
    (273, 2, "voice", "Holly Zoller, who works at The Bail Project, rented the truck",
     "The truck was rented by Holly Zoller, who works at The Bail Project"),
    (273, 3, "voice", "George Soros runs Open Society-U.S.", "Open Society-U.S. is run by George Soros."),
    (160, 2, "voice", "He accused Democrats in February of", "Democrats were accused by him in February of"),
    (126, 0, "voice", "whom he set free", "who was set free by him"),
    # --- changing: antonyms in context (none that the same answer's numbers contradict, as "dropped from 25.1
    # to 19" -> "risen from 25.1 to 19" would)
    (472, 1, "antonym", "to be more effective", "to be less effective"),
    (46, 0, "antonym", "Late cord clamping", "Early cord clamping"),
    (232, 1, "antonym", "a satirical website", "a serious website"),
    (96, 1, "antonym", "publishing false claims", "publishing true claims"),
    (436, 0, "antonym", "It is unlikely", "It is likely"),
    (0, 1, "antonym", "is an imaginary news organization", "is a real news organization"),
    (273, 4, "antonym", "none of its funding", "all of its funding"),
    (239, 0, "antonym", "coal increased by", "coal decreased by"),
    (439, 0, "antonym", "it dropped by", "it rose by"),
    (125, 0, "antonym", "real growth of", "real decline of"),
    (160, 1, "antonym", "tested positive", "tested negative"),
    (383, 1, "antonym", "and is a fake.", "and is genuine."),
    # --- changing: another entity of the same type
    (140, 1, "entity", "the Progressive Party", "the Republican Party"),
    (140, 1, "entity", "lawyer Vincent Hallinan", "lawyer Henry Wallace"),
    (255, 0, "entity", "Chief Justice John Roberts", "Justice Anthony Kennedy"),
    (357, 1, "entity", "in Edo State", "in Lagos State"),
    (407, 0, "entity", "New Zealand", "Australia"),
    (417, 0, "entity", "South Dakota confirmed", "North Dakota confirmed"),
    (126, 0, "entity", "a man named William Jones", "a man named Henry Brown"),
    (28, 0, "entity", "president Emmanuel Macron", "president François Hollande"),
    (266, 0, "entity", "from Ranveer Singh or", "from Ranbir Kapoor or"),
    (307, 0, "entity", "President Clinton announced", "President Bush announced"),
    (0, 0, "entity", "published on Sccopertino", "published on The Onion"),
    (160, 2, "entity", "He accused Democrats", "He accused Republicans"),
    (439, 1, "entity", "In the Indian case", "In the Chinese case"),
    # --- changing: another number or date
    (472, 0, "number", "to 657", "to 757"),
    (357, 1, "number", "to 19 per cent", "to 29 per cent"),
    (140, 1, "number", "in 1952, she", "in 1948, she"),
    (417, 0, "number", "is 0.09%", "is 0.02%"),
    (417, 0, "number", "confirmed 124 COVID-19", "confirmed 24 COVID-19"),
    (195, 0, "number", "200 million", "150 million"),
    (307, 0, "number", "August 3, 1993", "August 3, 1994"),
    (126, 0, "number", "in March 1959", "in June 1959"),
    (46, 0, "number", "approximately 1–3 min", "approximately 10–30 min"),
    (175, 1, "number", "April 17, 2020", "October 17, 2020"),
    (266, 0, "number", "September 26", "September 19"),
    (439, 1, "number", "by 23.9%", "by 32.9%"),
    # --- changing: another unit or scale
    (195, 0, "unit_scale", "200 million", "200 billion"),
    (195, 0, "unit_scale", "200 million", "200 thousand"),
    (472, 0, "unit_scale", "654 miles", "654 kilometres"),
    (472, 0, "unit_scale", "three miles", "three feet"),
    (46, 0, "unit_scale", "1–3 min after", "1–3 hours after"),
    (417, 0, "unit_scale", "is 0.09%", "is 0.09 per thousand"),
    (417, 0, "unit_scale", "at least 290 people", "at least 290 thousand people"),
    (239, 0, "unit_scale", "by 43 per cent", "by 43 gigawatt hours"),
    (439, 1, "unit_scale", "by 23.9%", "by $23.9 billion"),
    # --- changing: a flipped sign
    (125, 1, "sign", "(-6.1% from 2019)", "(6.1% from 2019)"),
    (125, 1, "sign", "(-6.1% from 2019)", "(+6.1% from 2019)"),
    (125, 0, "sign", "real growth of 2.27%", "real growth of -2.27%"),
    (239, 0, "sign", "increased by 43 per cent", "increased by -43 per cent"),
    (439, 1, "sign", "contracted by 23.9%", "contracted by -23.9%"),
    (439, 0, "sign", "dropped by 9.1%", "dropped by -9.1%"),
    # --- changing: negation with "not" (added or removed)
    (160, 2, "negation_not", "did not directly call", "did directly call"),
    (28, 0, "negation_not", "Pogba is NOT quitting", "Pogba is quitting"),
    (232, 1, "negation_not", "It is a satirical", "It is not a satirical"),
    (96, 1, "negation_not", "It is a website", "It is not a website"),
    (140, 1, "negation_not", "she became the vice", "she did not become the vice"),
    (162, 2, "negation_not", "Trump acquitted of", "Trump not acquitted of"),
    (273, 2, "negation_not", "rented the truck", "did not rent the truck"),
    (307, 0, "negation_not", "she was confirmed by", "she was not confirmed by"),
    (322, 1, "negation_not", "Trump offered help", "Trump did not offer help"),
    (439, 2, "negation_not", "is different from", "is not different from"),
    # --- changing: negation without "not"
    (140, 1, "negation_lexical", "she became the vice", "she never became the vice"),
    (126, 0, "negation_lexical", "he did briefly own", "he never owned"),
    (472, 1, "negation_lexical", "Americans are paying", "Americans are no longer paying"),
    (273, 2, "negation_lexical", "rented the truck", "denied renting the truck"),
    (322, 1, "negation_lexical", "Trump offered help", "Trump failed to offer help"),
    (160, 1, "negation_lexical", "President Donald Trump said that", "President Donald Trump denied that"),
    (162, 1, "negation_lexical", "Trump was impeached", "Trump was never impeached"),
    (357, 1, "negation_lexical", "have shown.", "have failed to show."),
    (307, 0, "negation_lexical", "she was confirmed by", "she was never confirmed by"),
    (436, 1, "negation_lexical", "further, stating that", "further, denying that"),
    # --- changing: a hedge
    (472, 0, "hedge", "that has increased", "that may have increased"),
    (140, 1, "hedge", "she became the vice", "she may have become the vice"),
    (126, 0, "hedge", "he did briefly own", "he may have briefly owned"),
    (273, 2, "hedge", "rented the truck", "may have rented the truck"),
    (162, 2, "hedge", "Trump acquitted of", "Trump possibly acquitted of"),
    (160, 1, "hedge", "have tested positive", "might have tested positive"),
    (307, 0, "hedge", "she was confirmed by", "she was probably confirmed by"),
    (266, 0, "hedge", "has denied receiving", "may have denied receiving"),
    (417, 0, "hedge", "South Dakota confirmed", "South Dakota may have confirmed"),
    (232, 1, "hedge", "It is a satirical", "It might be a satirical"),
    (0, 0, "hedge", "It was first published", "It was possibly first published"),
    # --- changing: subject and object swapped
    (273, 3, "subject_object", "George Soros runs Open Society-U.S.", "Open Society-U.S. runs George Soros."),
    (472, 1, "subject_object",
     "Trump's administration mainly replaced barriers installed by previous administrations",
     "Previous administrations mainly replaced barriers installed by Trump's administration"),
    (160, 2, "subject_object", "He accused Democrats in February", "Democrats accused him in February"),
    (255, 1, "subject_object", "Barrett criticized Chief Justice Roberts for his opinion",
     "Chief Justice Roberts criticized Barrett for her opinion"),
    (307, 0, "subject_object", "President Clinton announced Ruth Bader Ginsburg as",
     "Ruth Bader Ginsburg announced President Clinton as"),
    (162, 0, "subject_object", "the Democrats called for Trumps impeachment",
     "Trump called for the Democrats' impeachment"),
    (162, 1, "subject_object", "President Donald Trump was impeached by the U.S. House of Representatives",
     "The U.S. House of Representatives was impeached by President Donald Trump"),
    (126, 0, "subject_object", "whom he set free", "who set him free"),
    # --- changing: a yes/no answer flipped
    (162, 0, "yes_no", "No. ...but", "Yes. ...but"),
    (162, 1, "yes_no", "Yes. President", "No. President"),
    (162, 2, "yes_no", "Yes. In historic", "No. In historic"),
    (415, 1, "yes_no", "No. The official", "Yes. The official"),
    (450, 1, "yes_no", "Yes. Under", "No. Under"),
    (273, 0, "yes_no", "Yes. Videos", "No. Videos"),
    (307, 1, "yes_no", "No. The US", "Yes. The US"),
    (407, 1, "yes_no", "No, It was", "Yes, It was"),
]


def gold_pairs(claim: dict) -> list[dict]:
    """Each question with its first answer; a Boolean answer followed by its explanation."""
    pairs = []
    for q in claim["questions"]:
        a = q["answers"][0]
        text = a["answer"]
        if a.get("answer_type") == "Boolean" and a.get("boolean_explanation"):
            text = text.rstrip(".") + ". " + a["boolean_explanation"]
        pairs.append({"question": q["question"], "answer": text})
    return pairs


def eligible(claim: dict) -> bool:
    pairs = gold_pairs(claim)
    types = [q["answers"][0].get("answer_type") for q in claim["questions"]]
    return len(pairs) <= 5 and all(len(p["answer"]) <= 350 for p in pairs) and any(
        t in ("Extractive", "Abstractive") and len(p["answer"].split()) >= 8 for p, t in zip(pairs, types))


def choose(dev: list[dict]) -> list[int]:
    order = [i for i, c in enumerate(dev) if eligible(c)]
    random.Random(SEED).shuffle(order)
    return order[:N_SEEDED] + [i for i in EXTRA if i not in order[:N_SEEDED]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default=str(HERE.parents[3] / "shared" / "data" / "averitec" / "dev.json"))
    ap.add_argument("-o", "--out", default=str(HERE / "edits_blind.jsonl"))
    args = ap.parse_args()
    dev = json.loads(Path(args.dev).read_text(encoding="utf-8"))
    chosen = choose(dev)
    rows, base = [], {}
    for i in chosen:
        pairs = gold_pairs(dev[i])
        base[i] = pairs
        rows.append({"id": f"b{i}", "base_id": f"b{i}", "family": "base", "side": "base", "pair_index": None,
                     "dev_index": i, "original_answer": None, "edited_answer": None, "claim": dev[i]["claim"],
                     "gold_label": dev[i]["label"], "reference_evidence": pairs, "predicted_evidence": pairs})
    counts: dict[str, int] = {}
    for dev_i, k, family, old, new in EDITS:
        assert dev_i in base, f"dev {dev_i} is not a chosen claim"
        side = "preserving" if family in PRESERVING else "changing"
        assert family in PRESERVING + CHANGING, family
        answer = base[dev_i][k]["answer"]
        assert answer.count(old) == 1, f"dev {dev_i} pair {k}: {old!r} occurs {answer.count(old)} times"
        edited = answer.replace(old, new, 1)
        counts[family] = counts.get(family, 0) + 1
        pred = [dict(p) for p in base[dev_i]]
        pred[k]["answer"] = edited
        rows.append({"id": f"b{dev_i}-{family}-{counts[family]}", "base_id": f"b{dev_i}", "family": family,
                     "side": side, "pair_index": k, "dev_index": dev_i, "original_answer": answer,
                     "edited_answer": edited, "claim": dev[dev_i]["claim"], "gold_label": dev[dev_i]["label"],
                     "reference_evidence": base[dev_i], "predicted_evidence": pred})
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(chosen)} base items, {len(EDITS)} edits -> {args.out}")
    for fam in PRESERVING + CHANGING:
        print(f"  {fam}: {counts.get(fam, 0)}")


if __name__ == "__main__":
    main()
