"""Build edits_blind3.jsonl: a third blind set of one-answer edits of AVeriTeC dev gold evidence.

Written without reading the metric's implementation, its tests, its generators or the earlier sets' edits.
Standard library only. From the repository root:

    python3 benchmarks/data/edits_blind3/make_edits.py [--dev ../shared/data/averitec/dev.json] [--out ...]
"""
import argparse
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

SEED = 73
N_DRAW = 35
# claims used by edits_blind (its README: random.Random(63).sample of 25 from the claims with <= 5 questions,
# answers <= 350 characters and one 8+ word extractive/abstractive answer, reconstructed here, plus 125, 239, 439)
# and by edits_blind2 (its README lists all 37): excluded from the draw.
BLIND1_SEED, BLIND1_N = 63, 25
BLIND1_EXTRA = [125, 239, 439]
BLIND2 = [1, 11, 80, 96, 98, 101, 105, 112, 122, 152, 175, 181, 188, 194, 219, 234, 248, 277, 300, 316, 340,
          372, 393, 409, 416, 430, 458, 472, 477, 480, 8, 298, 159, 191, 327, 384, 400]
EXPECTED_DRAW = [18, 19, 32, 46, 54, 66, 76, 113, 131, 170, 174, 186, 195, 228, 256, 260, 261, 264, 271, 282,
                 287, 291, 293, 299, 301, 307, 325, 326, 330, 331, 343, 349, 465, 481, 487]
HAND_PICKED = []  # none: the drawn claims had enough places for every family

CHANGING = ["certainty", "modality", "attribution", "time", "quantifier", "comparative", "role_swap", "causal"]
PRESERVING = ["abbreviation", "sentence_split", "coordination", "date_format", "paraphrase", "punctuation"]

# (dev index, pair index, family, old substring, new substring)
EDITS = [
    # ---------------- changing: certainty (certain <-> uncertain)
    (174, 0, "certainty", "However, it does not lead", "However, it probably does not lead"),
    (326, 1, "certainty", "Scientists now suspect this coronavirus", "Scientists have now established that this coronavirus"),
    (326, 4, "certainty", "The virus probably arrived", "The virus certainly arrived"),
    (326, 2, "certainty", "wonder whether a virus under study at a lab could have been accidentally released",
     "are certain that a virus under study at a lab was accidentally released"),
    (465, 3, "certainty", "it is clear she was an adult", "it seems she may have been an adult"),
    (76, 1, "certainty", "that I think will probably be revealed", "that will definitely be revealed"),
    (195, 0, "certainty", "Estimated to be in the region of", "Confirmed to be exactly"),
    (19, 1, "certainty", "demonstrators stormed the German embassy", "demonstrators may have stormed the German embassy"),
    (282, 0, "certainty", "the premier signed the state", "the premier may have signed the state"),
    (291, 0, "certainty", "Ginsburg criticized the Mann Act", "Ginsburg may have criticized the Mann Act"),
    (170, 0, "certainty", "he does fall within", "he may fall within"),
    (18, 2, "certainty", "it will be thrown out", "it might be thrown out"),
    # ---------------- changing: modality (obligation / permission / possibility)
    (46, 0, "modality", "is recommended for all births", "is required for all births"),
    (18, 1, "modality", "require absentee ballots be received", "allow absentee ballots to be received"),
    (256, 1, "modality", "the mask schools have required", "the mask schools have allowed"),
    (287, 2, "modality", "never appropriate for a judge", "never required for a judge"),
    (299, 2, "modality", "will be added to an online petition", "may optionally be added to an online petition"),
    (330, 1, "modality", "state officials are encouraging vote-by-mail", "state officials are requiring vote-by-mail"),
    (330, 0, "modality", "officials are reducing the number", "officials are required to reduce the number"),
    (131, 0, "modality", "the data is published monthly", "the data is required to be published monthly"),
    (186, 1, "modality", "these sources are not accepted in this project", "these sources are not required in this project"),
    (186, 0, "modality", "so are not acceptable in this project", "so are not mandatory in this project"),
    # ---------------- changing: attribution (who said it, or said -> denied)
    (113, 0, "attribution", "” the Facebook post read.", "” Forbes reported."),
    (174, 0, "attribution", "WHO says on its website", "a mask critic says on his blog"),
    (343, 0, "attribution", "McDonald’s USA stated that", "A Black Lives Matter activist stated that"),
    (293, 1, "attribution", "Bryant Johnson says he trained", "Bryant Johnson denies he trained"),
    (76, 1, "attribution", "said  Sen. Ron Johnson, who", "said  an FBI spokesperson, who"),
    (261, 0, "attribution", "The RBI explained that", "People sharing the message on social media claimed that"),
    (331, 0, "attribution", "a satirical article published by the Australian edition of UK magazine The Spectator",
     "a press release published by the Victorian Premier's office"),
    (487, 0, "attribution", "The Anti-Defamation League, which tracks extremist activity,", "Rittenhouse's defence lawyer"),
    (66, 1, "attribution", "according to the nonprofit’s annual reports", "according to a viral Facebook post"),
    (291, 0, "attribution", "Ginsburg criticized the Mann Act", "Ginsburg's opponents criticized the Mann Act"),
    (256, 1, "attribution", "the Lower Franconia Police Department posted a warning on its Twitter account",
     "Claudia Strauber posted a warning on her Twitter account"),
    (481, 0, "attribution", "Biden has said", "Trump has said"),
    # ---------------- changing: time
    (19, 0, "time", "14th September 2012", "14th September 2020"),
    (170, 1, "time", "October 2nd 2020", "September 2nd 2020"),
    (170, 2, "time", "October 6th 2020", "November 6th 2020"),
    (256, 1, "time", "On October 1, 2020", "On October 1, 2021"),
    (307, 0, "time", "on August 3, 1993", "on September 26, 1994"),
    (307, 1, "time", "in 1992 and 1994", "in 1993 and 1994"),
    (325, 1, "time", "in 1879", "in 1979"),
    (326, 0, "time", "traced back to November", "traced back to March"),
    (331, 0, "time", "on September 15, 2020", "on September 15, 2019"),
    (349, 1, "time", "on May 9, 2017", "on May 9, 2021"),
    (349, 2, "time", "January 20, 2017", "January 20, 2021"),
    (54, 0, "time", "during April-August 2020", "during April-August 2019"),
    # ---------------- changing: quantifier
    (46, 0, "quantifier", "for all births", "for some births"),
    (261, 1, "quantifier", "in all these features", "in some of these features"),
    (287, 0, "quantifier", "on any media or official websites", "on most media or official websites"),
    (287, 2, "quantifier", "It’s never appropriate", "It’s rarely appropriate"),
    (326, 2, "quantifier", "Some experts wonder", "All experts wonder"),
    (326, 1, "quantifier", "Scientists now suspect", "A few scientists now suspect"),
    (349, 4, "quantifier", "against either of the two", "against both of the two"),
    (330, 0, "quantifier", "are across the board", "are limited to a few counties"),
    (293, 3, "quantifier", "They did most of her training", "They did a small part of her training"),
    (18, 1, "quantifier", "one of about 30 states that require", "the only state that requires"),
    (186, 0, "quantifier", "Many sources identify the man", "No sources identify the man"),
    # ---------------- changing: comparative
    (113, 0, "comparative", "the world’s most educated leader", "the world’s least educated leader"),
    (271, 0, "comparative", "which is the same budget as what we had last year",
     "which is a larger budget than what we had last year"),
    (228, 0, "comparative", "reduced government revenue", "higher government revenue"),
    (195, 0, "comparative", "in the region of 200 million", "well below 200 million"),
    (228, 1, "comparative", "45.1 million", "well under 45 million"),
    (264, 0, "comparative", "234 judges", "fewer than 100 judges"),
    (330, 0, "comparative", "but has only secured 39 sites", "but has secured more than 84 sites"),
    (291, 1, "comparative", "sex-neutral and more specific", "sex-neutral and less specific"),
    (170, 0, "comparative", "a group of high-risk patients", "a group of lower-risk patients"),
    (54, 0, "comparative", "decline by 27.63%", "decline by less than 2%"),
    # ---------------- changing: role_swap (agent and patient swapped)
    (256, 1, "role_swap",
     "the Lower Franconia Police Department posted a warning on its Twitter account that mask critics",
     "mask critics posted a warning on their Twitter account that the Lower Franconia Police Department"),
    (264, 2, "role_swap", "who Trump appointed", "who appointed Trump"),
    (307, 0, "role_swap", "announced Ruth Bader Ginsburg as White's replacement",
     "announced White as Ruth Bader Ginsburg's replacement"),
    (349, 1, "role_swap", "was fired by U.S. President Donald Trump", "fired U.S. President Donald Trump"),
    (325, 0, "role_swap", "He was a maternal great-grandfather of Joe Biden, the 46th and current president of the United States.",
     "Joe Biden, the 46th and current president of the United States, was his maternal great-grandfather."),
    (465, 2, "role_swap",
     "Blake is accused in the criminal complaint, which was obtained by The Post, of breaking into the home of a woman he knew and sexually assaulting her",
     "A woman Blake knew is accused in the criminal complaint, which was obtained by The Post, of breaking into his home and sexually assaulting him"),
    (260, 0, "role_swap", "people who use religion or culture to discriminate",
     "people who are discriminated against because of their religion or culture"),
    (299, 0, "role_swap", "changing texts into emails", "changing emails into texts"),
    (32, 0, "role_swap", "The New York Post endorses President Donald J. Trump",
     "President Donald J. Trump endorses The New York Post"),
    (54, 0, "role_swap", "Imports from China decline", "China's imports from India decline"),
    # ---------------- changing: causal (cause/effect reversed, or the causal link removed)
    (330, 1, "causal", "Facing the uncertainty", "Regardless of the uncertainty"),
    (326, 4, "causal", "through contact with animals", "without any contact with animals"),
    (326, 1, "causal", "which then passed it on to humans", "which then caught it from humans"),
    (170, 0, "causal", "Due to his age", "Despite his age"),
    (170, 0, "causal", "Trump’s infection has led to wide-spread speculation",
     "Trump’s infection is unrelated to the wide-spread speculation"),
    (256, 1, "causal", "dying from wearing the mask", "dying while wearing the mask"),
    (19, 1, "causal", "in a bloody protest against an Islam-critical abusive video",
     "in a bloody protest unrelated to an Islam-critical abusive video"),
    (271, 0, "causal", "So that's the budget we are presenting", "Nonetheless, that's the budget we are presenting"),
    (299, 2, "causal", "an online petition, which is then generated as an email",
     "an email, which is then generated as an online petition"),
    (174, 0, "causal", "it does not lead to CO2 intoxication nor oxygen deficiency",
     "it does not result from CO2 intoxication nor oxygen deficiency"),
    # ---------------- preserving: abbreviation
    (174, 0, "abbreviation", "WHO says", "the World Health Organization says"),
    (76, 0, "abbreviation", "an FBI agent", "a Federal Bureau of Investigation agent"),
    (349, 1, "abbreviation", "the Federal Bureau of Investigation (FBI)", "the FBI"),
    (349, 3, "abbreviation", "Department of Justice’s website", "DOJ’s website"),
    (261, 0, "abbreviation", "The RBI explained", "The Reserve Bank of India (RBI) explained"),
    (261, 1, "abbreviation", "the RBI didn’t mention", "the Reserve Bank of India didn’t mention"),
    (264, 2, "abbreviation", "U.S. District Court", "United States District Court"),
    (271, 0, "abbreviation", "what the DBM approved", "what the Department of Budget and Management approved"),
    (307, 0, "abbreviation", "the United States Senate", "the U.S. Senate"),
    (326, 1, "abbreviation", "SARS-CoV-2", "severe acute respiratory syndrome coronavirus 2 (SARS-CoV-2)"),
    (174, 0, "abbreviation", "CO2 intoxication", "carbon dioxide intoxication"),
    # ---------------- preserving: sentence_split (split one sentence, or join two)
    (170, 0, "sentence_split", "at all. Due to his age", "at all; due to his age"),
    (261, 0, "sentence_split", "66mm x 150mm. The color", "66mm x 150mm, and the color"),
    (261, 1, "sentence_split", "the governor. Even the thread", "the governor, and even the thread"),
    (271, 0, "sentence_split", "last year. But what the DBM", "last year, but what the DBM"),
    (330, 0, "sentence_split", "March primary, but has only secured", "March primary. But it has only secured"),
    (66, 1, "sentence_split", "from 2011 to 2017 and served as chairman", "from 2011 to 2017. He served as chairman"),
    (174, 0, "sentence_split", "uncomfortable. However, it", "uncomfortable; however, it"),
    (19, 1, "sentence_split", "the German embassy and set it on fire", "the German embassy. They set it on fire"),
    (307, 0, "sentence_split", "June 15, 1993, and she was confirmed", "June 15, 1993. She was confirmed"),
    (326, 1, "sentence_split", "possibly the pangolin, which then passed it", "possibly the pangolin. That animal then passed it"),
    (293, 3, "sentence_split", "gym, though some of their sessions took place", "gym. Some of their sessions, though, took place"),
    # ---------------- preserving: coordination (order of items whose order carries no meaning)
    (174, 0, "coordination", "CO2 intoxication nor oxygen deficiency", "oxygen deficiency nor CO2 intoxication"),
    (261, 0, "coordination", "in color, size, theme", "in size, color, theme"),
    (228, 0, "coordination", "historical and current population", "current and historical population"),
    (330, 1, "coordination", "encouraging vote-by-mail and sending every California voter a ballot",
     "sending every California voter a ballot and encouraging vote-by-mail"),
    (170, 0, "coordination", "his age (the President is 73) and weight", "his weight and age (the President is 73)"),
    (287, 1, "coordination", "a man and a woman", "a woman and a man"),
    (291, 1, "coordination", "sex-neutral and more specific", "more specific and sex-neutral"),
    (291, 0, "coordination", "vague wording and bias against women", "bias against women and vague wording"),
    (291, 2, "coordination", "rape and statutory rape", "statutory rape and rape"),
    (343, 0, "coordination", "equality and social justice", "social justice and equality"),
    (18, 2, "coordination", "Discounted. Ignored.", "Ignored. Discounted."),
    # ---------------- preserving: date_format (unambiguous dates only)
    (19, 0, "date_format", "14th September 2012", "September 14, 2012"),
    (170, 1, "date_format", "October 2nd 2020", "2020-10-02"),
    (170, 2, "date_format", "October 6th 2020", "6 October 2020"),
    (256, 1, "date_format", "On October 1, 2020", "On 1 October 2020"),
    (256, 1, "date_format", "on August 12", "on 12 August"),
    (307, 0, "date_format", "June 15, 1993", "15 June 1993"),
    (307, 0, "date_format", "August 3, 1993", "3 August 1993"),
    (326, 3, "date_format", "September 17th 2020", "17/09/2020"),
    (331, 0, "date_format", "September 15, 2020", "15 September 2020"),
    (349, 0, "date_format", "14th September 2020", "2020-09-14"),
    (349, 1, "date_format", "May 9, 2017", "9 May 2017"),
    (349, 2, "date_format", "January 20, 2017", "20 January 2017"),
    # ---------------- preserving: paraphrase (a clause reworded, same meaning)
    (32, 0, "paraphrase", "The New York Post endorses President Donald J. Trump for re-election.",
     "President Donald J. Trump has the New York Post's endorsement for re-election."),
    (131, 0, "paraphrase", "the data is published monthly by the Office for National Statistics",
     "the Office for National Statistics publishes the data every month"),
    (301, 0, "paraphrase", "is married to Wray Thorn", "has Wray Thorn as her husband"),
    (54, 1, "paraphrase", "There was no increase, rather there was a decrease in the imports from China",
     "Imports from China did not increase; rather they fell, with a decrease"),
    (487, 0, "paraphrase", "found no indication from Rittenhouse's social media footprint",
     "saw nothing in Rittenhouse's social media footprint to suggest"),
    (465, 0, "paraphrase", "He is not mentioned on the sex offenders list.",
     "His name does not appear on the sex offenders list."),
    (465, 1, "paraphrase", "Source found on website below does not mention sexual assault.",
     "There is no mention of sexual assault in the source found on the website below."),
    (287, 0, "paraphrase", "No mention of this quote on any media or official websites.",
     "This quote does not appear on any media or official websites."),
    (293, 1, "paraphrase", "he trained with Ginsburg twice a week for the last 20 years",
     "for the last 20 years he trained with Ginsburg two times every week"),
    (349, 4, "paraphrase",
     "There is no mention of such charges being levied against either of the two on the Department of Justice’s website.",
     "The Department of Justice’s website does not mention such charges being brought against either of the two."),
    (264, 2, "paraphrase", "was unanimously confirmed by voice vote",
     "was confirmed by a voice vote with no one dissenting"),
    (307, 1, "paraphrase", "The US elections around that time took place in 1992 and 1994.",
     "Around that time, the US held elections in 1992 and 1994."),
    # ---------------- preserving: punctuation (commas, quotes, brackets, dashes, capitalisation)
    (113, 0, "punctuation", "Forbes list, ”", "Forbes list,”"),
    (174, 0, "punctuation", "However, it does", "However it does"),
    (66, 1, "punctuation", "Hunter Biden, son of Democratic presidential nominee Joe Biden, was",
     "Hunter Biden (son of Democratic presidential nominee Joe Biden) was"),
    (264, 2, "punctuation",
     ", a former federal prosecutor for 18 years who Trump appointed in March to sit on the U.S. District Court for the Eastern District of Michigan,",
     " — a former federal prosecutor for 18 years who Trump appointed in March to sit on the U.S. District Court for the Eastern District of Michigan —"),
    (325, 0, "punctuation", "Joe Biden, the 46th and current president of the United States.",
     "Joe Biden (the 46th and current president of the United States)."),
    (228, 0, "punctuation", "Buhari’s", "Buhari's"),
    (343, 0, "punctuation", "McDonald’s USA", "McDonald's USA"),
    (282, 0, "punctuation", "the premier signed", "The premier signed"),
    (46, 0, "punctuation", "for all births,", "for all births."),
    (326, 1, "punctuation", "to another animal, possibly the pangolin, which", "to another animal (possibly the pangolin), which"),
    (19, 1, "punctuation", "In Sudan, demonstrators", "In Sudan demonstrators"),
    (18, 1, "punctuation", "received by Election Day", "received by election day"),
]


def render_answer(ans):
    text = ans["answer"]
    if ans.get("answer_type") == "Boolean" and ans.get("boolean_explanation"):
        text = text.strip()
        sep = " " if text.endswith((".", "!", "?")) else ". "
        text = text + sep + ans["boolean_explanation"]
    return text.strip()


def gold_pairs(claim):
    seen, pairs = set(), []
    for q in claim["questions"]:
        if q["question"] in seen:
            continue
        seen.add(q["question"])
        pairs.append({"question": q["question"], "answer": render_answer(q["answers"][0])})
    return pairs


def passes_filter(claim, max_chars=400):
    if len(claim["questions"]) > 5:
        return False
    if any(len(p["answer"]) > max_chars for p in gold_pairs(claim)):
        return False
    return any(q["answers"][0].get("answer_type") in ("Extractive", "Abstractive")
               and len(q["answers"][0]["answer"].split()) >= 8 for q in claim["questions"])


def draw(dev):
    eligible = [i for i, c in enumerate(dev) if passes_filter(c)]
    assert len(eligible) == 273, len(eligible)
    blind1_pool = [i for i, c in enumerate(dev) if passes_filter(c, 350)]
    used = set(random.Random(BLIND1_SEED).sample(blind1_pool, BLIND1_N)) | set(BLIND1_EXTRA) | set(BLIND2)
    pool = [i for i in eligible if i not in used]
    drawn = sorted(random.Random(SEED).sample(pool, N_DRAW))
    assert drawn == EXPECTED_DRAW, drawn
    return drawn, used


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", default=os.path.join(REPO, "..", "shared", "data", "averitec", "dev.json"))
    ap.add_argument("--out", default=os.path.join(HERE, "edits_blind3.jsonl"))
    args = ap.parse_args()
    with open(args.dev, encoding="utf-8") as f:
        dev = json.load(f)
    drawn, used = draw(dev)
    bases = sorted(set(drawn) | set(HAND_PICKED))
    assert not (set(HAND_PICKED) & used)
    rows = []
    for d in bases:
        c = dev[d]
        pairs = gold_pairs(c)
        rows.append({"id": f"m{d}", "base_id": f"m{d}", "family": "base", "side": "base", "pair_index": None,
                     "dev_index": d, "original_answer": None, "edited_answer": None, "claim": c["claim"],
                     "gold_label": c["label"], "reference_evidence": pairs,
                     "predicted_evidence": [dict(p) for p in pairs]})
    counter = {}
    for d, k, fam, old, new in EDITS:
        assert d in bases, d
        assert fam in CHANGING + PRESERVING, fam
        assert old != new
        c = dev[d]
        pairs = gold_pairs(c)
        orig = pairs[k]["answer"]
        assert orig.count(old) == 1, (d, k, fam, old)
        edited = orig.replace(old, new, 1)
        n = counter.get((d, fam), 0)
        counter[(d, fam)] = n + 1
        pred = [dict(p) for p in pairs]
        pred[k] = {"question": pairs[k]["question"], "answer": edited}
        rows.append({"id": f"m{d}-{fam}-{n}", "base_id": f"m{d}", "family": fam,
                     "side": "changing" if fam in CHANGING else "preserving", "pair_index": k, "dev_index": d,
                     "original_answer": orig, "edited_answer": edited, "claim": c["claim"],
                     "gold_label": c["label"], "reference_evidence": pairs, "predicted_evidence": pred})
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    fams = {}
    for r in rows:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    print(len(rows), "rows ->", args.out)
    print(json.dumps(fams))


if __name__ == "__main__":
    main()
