#!/usr/bin/env python3
"""Build edits_blind4.jsonl: a fourth blind set of one-answer edits of AVeriTeC gold evidence.

Standard library only. Every edit below was written by hand, in context, by reading the drawn claims' gold
question/answer pairs in dev.json (and nothing of ev2r's code, tests, generators or earlier sets' edits).

    python3 benchmarks/data/edits_blind4/make_edits.py                      # from the repository root
    python3 benchmarks/data/edits_blind4/make_edits.py --dev ../shared/data/averitec/dev.json --out edits_blind4.jsonl

Asserts: the filter admits 273 claims, the random draw is the one recorded in DRAWN, each edit's old text occurs
exactly once in its (rendered) answer, and the ids are unique.
"""
import argparse
import json
import os
import random
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DEFAULT_DEV = os.path.join(ROOT, "..", "shared", "data", "averitec", "dev.json")
DEFAULT_OUT = os.path.join(HERE, "edits_blind4.jsonl")

SEED = 74
N_DRAW = 35

# Claims of the earlier blind sets, removed before the draw.
EDITS_BLIND2 = [1, 11, 80, 96, 98, 101, 105, 112, 122, 152, 175, 181, 188, 194, 219, 234, 248, 277, 300, 316,
                340, 372, 393, 409, 416, 430, 458, 472, 477, 480,  # its draw (random.Random(2026), 30)
                8, 298, 159, 191, 327, 384, 400]  # picked by hand
EDITS_BLIND = [125, 239, 439,  # named in edits_blind3's README
               # its 25 drawn claims as edits_blind3's README reconstructs them (random.Random(63), 350 chars)
               29, 33, 37, 39, 42, 98, 106, 125, 147, 148, 159, 201, 229, 247, 304, 313, 327, 372, 412, 418, 456,
               471, 477, 480, 499]
EDITS_BLIND3 = [18, 19, 32, 46, 54, 66, 76, 113, 131, 170, 174, 186, 195, 228, 256, 260, 261, 264, 271, 282, 287,
                291, 293, 299, 301, 307, 325, 326, 330, 331, 343, 349, 465, 481, 487]

# random.Random(74).sample(left, 35), in draw order, left = the 180 admitted claims not in the sets above (sorted).
DRAWN = [435, 369, 87, 237, 89, 235, 139, 164, 259, 479, 321, 334, 377, 214, 322, 132, 236, 455, 364, 442, 0, 488,
         30, 92, 184, 320, 115, 419, 309, 187, 210, 204, 319, 446, 397]

CHANGING = ["certainty", "modality", "attribution", "time", "quantifier", "comparative", "role_swap", "causal"]
PRESERVING = ["abbreviation", "sentence_split", "coordination", "date_format", "paraphrase", "punctuation"]

# (dev index, pair index, family, old substring, new substring): one substring of one predicted answer.
EDITS = [
    # ---------------------------------------------------------------- changing: certainty
    (87, 0, "certainty", "tablets which will be delivered", "tablets which may be delivered"),
    (164, 1, "certainty", "OPCW confirms nerve agent", "OPCW suspects nerve agent"),
    (187, 3, "certainty", "A memo from Conley specified that Trump had PCR-confirmation",
     "A memo from Conley suggested that Trump may have had PCR-confirmation"),
    (204, 1, "certainty", "shows Nigeria’s population was 45.1 million",
     "suggests Nigeria’s population may have been 45.1 million"),
    (236, 0, "certainty", "the tests will save lives", "the tests might save lives"),
    (309, 2, "certainty", "She died of complications", "She is believed to have died of complications"),
    (319, 1, "certainty", "Nigeria is the largest cassava producer", "Nigeria may be the largest cassava producer"),
    (320, 0, "certainty", "It is terrifyingly clear that the federal government had a plan",
     "It is unclear whether the federal government had a plan"),
    (369, 1, "certainty", "Cloth masks will not protect you", "Cloth masks may not protect you"),
    (377, 0, "certainty", "Antifa forest fire campaign is 100% false",
     "Antifa forest fire campaign is probably false"),
    (419, 2, "certainty", "I think most likely we’re underestimating", "I know for certain we’re underestimating"),
    # ---------------------------------------------------------------- changing: modality
    (132, 1, "modality", "they decided  not to send Ambre", "they were not allowed to send Ambre"),
    (235, 0, "modality", "flout face covering rules", "flout face covering recommendations"),
    (259, 0, "modality", "The PMJJBY is available to people", "The PMJJBY is mandatory for people"),
    (321, 0, "modality", "will\nenable staff to mask or isolate them", "will\nrequire staff to mask or isolate them"),
    (334, 0, "modality", "there is no mention of forcing it on Americans",
     "there is no mention of letting Americans opt out of it"),
    (419, 0, "modality", "There are lots of rules for how and when to add",
     "Doctors are free to choose how and when to add"),
    (419, 1, "modality", "then you should report it as", "then you may report it as"),
    (442, 0, "modality", "To authorize the Secretary of Health and Human Services to award grants",
     "To require the Secretary of Health and Human Services to award grants"),
    (446, 1, "modality", "Some states make it compulsory", "Some states merely recommend it"),
    (479, 0, "modality", "an executive order that authorizes a penalty", "an executive order that requires a penalty"),
    # ---------------------------------------------------------------- changing: attribution
    (0, 1, "attribution", "- says their about page", "- says Apple's press page"),
    (30, 0, "attribution", "Pogba posted on Instagram", "a parody account posted on Instagram"),
    (87, 0, "attribution", "confirmed by the official Twitter account of HMWSSB",
     "confirmed by an unofficial fan Twitter account of HMWSSB"),
    (89, 1, "attribution", "NIAID told AFP in a statement", "A Facebook user told AFP in a comment"),
    (132, 1, "attribution", "Her parents stated that they decided", "Indian media claimed that her parents decided"),
    (164, 1, "attribution", "OPCW confirms nerve agent", "Navalny's spokeswoman claims nerve agent"),
    (184, 1, "attribution", "Anil told TNN", "an anonymous commenter wrote online"),
    (187, 2, "attribution", "An update was posted from the Presidents physician",
     "An update was posted from an anonymous Twitter account"),
    (204, 1, "attribution", "Data from the World Bank and the UN’s department of economic and social affairs shows",
     "A viral WhatsApp message claims"),
    (210, 1, "attribution", "According to data from July 2020 from the Nigerian National Petroleum Corporation",
     "According to a July 2020 rumour on social media"),
    (236, 0, "attribution", "The National Institutes of Health asserts", "A conspiracy website asserts"),
    (377, 0, "attribution", "The FBI's Portland office tweeted", "An Antifa account tweeted"),
    # ---------------------------------------------------------------- changing: time
    (89, 1, "time", "from fatal 1918 infections", "from fatal 2018 infections"),
    (184, 0, "time", "which was sanctioned the same day", "which was sanctioned a year later"),
    (184, 1, "time", "a cream coloured 1964 model Fiat", "a cream coloured 1974 model Fiat"),
    (204, 0, "time", "1st October 1960", "1st October 1963"),
    (204, 1, "time", "three months before independence day", "three years before independence day"),
    (210, 1, "time", "from January to April 2020", "from January to April 2019"),
    (214, 0, "time", "10th January 2020", "10th January 2010"),
    (309, 1, "time", "On September 18, 2020", "On September 18, 2019"),
    (309, 3, "time", "(first diagnosed in 1999)", "(first diagnosed in 2019)"),
    (322, 0, "time", "beginning on August 14, 2020", "beginning on August 14, 2021"),
    (455, 0, "time", "In 2004 the CRTC approved", "In 2024 the CRTC approved"),
    # ---------------------------------------------------------------- changing: quantifier
    (89, 0, "quantifier", "it has not been mentioned in any studies", "it has not been mentioned in most studies"),
    (89, 1, "quantifier", "the majority of cases were associated", "a small minority of cases were associated"),
    (139, 1, "quantifier", "a plan that protects those with preexisting conditions",
     "a plan that protects only some of those with preexisting conditions"),
    (187, 0, "quantifier", "they can often perform far below", "they rarely perform far below"),
    (236, 1, "quantifier", "but young adults have died from it too", "but no young adults have died from it"),
    (259, 2, "quantifier", "there are some conditions with respect to", "there are no conditions with respect to"),
    (334, 0, "quantifier", "there is no mention of forcing it", "there is repeated mention of forcing it"),
    (377, 0, "quantifier", "have offered no evidence linking Antifa", "have offered ample evidence linking Antifa"),
    (397, 1, "quantifier", "Pleurisy is usually caused by a virus", "Pleurisy is rarely caused by a virus"),
    (419, 2, "quantifier", "I don’t think in any case are we over-estimating",
     "I don’t think in every case are we over-estimating"),
    (435, 1, "quantifier", "they are one of the biggest and most influential tribes",
     "they are the single biggest and most influential tribe"),
    (446, 1, "quantifier", "Some states make it compulsory", "Most states make it compulsory"),
    # ---------------------------------------------------------------- changing: comparative
    (92, 0, "comparative", "has generally hovered around 50%", "has generally been well above 80%"),
    (187, 0, "comparative", "wrong much more frequently than you might expect",
     "wrong much less frequently than you might expect"),
    (210, 1, "comparative", "monthly average prices decreased 73%", "monthly average prices increased 73%"),
    (214, 4, "comparative", "represents 51.96% of the total", "represents less than half of the total"),
    (236, 1, "comparative", "stand greater risk of dying", "stand lower risk of dying"),
    (319, 1, "comparative", "Nigeria is the largest cassava producer", "Nigeria is the second-largest cassava producer"),
    (235, 0, "comparative", "maximum of £3,200", "minimum of £3,200"),
    (369, 0, "comparative", "offer little protection against wildfire smoke",
     "offer strong protection against wildfire smoke"),
    (397, 1, "comparative", "Less common causes include", "More common causes include"),
    (435, 1, "comparative", "the biggest and most influential tribes", "the biggest and least influential tribes"),
    (479, 0, "comparative", "a penalty of up to 10 years", "a penalty of at least 10 years"),
    # ---------------------------------------------------------------- changing: role_swap
    (30, 0, "role_swap", "I am taking legal action against the publishers and spreaders of these 100% Fake News",
     "The publishers and spreaders of these 100% Fake News are taking legal action against me"),
    (89, 1, "role_swap", "NIAID told AFP in a statement", "AFP told NIAID in a statement"),
    (115, 0, "role_swap", "154 had tested positive for COVID-19 (case-patients), while 160 had tested negative",
     "160 had tested positive for COVID-19 (case-patients), while 154 had tested negative"),
    (184, 1, "role_swap", "It was repaid by my mother from the pension she received after my father's death",
     "It was repaid by my father from the pension he received after my mother's death"),
    (236, 1, "role_swap",
     "people who are more advanced in age stand greater risk of dying from the virus but young adults",
     "young adults stand greater risk of dying from the virus but people who are more advanced in age"),
    (237, 1, "role_swap", "why the group sent $1.3 billion to Cuba", "why Cuba sent $1.3 billion to the group"),
    (259, 1, "role_swap", "isRs.2 lakh for accidental death and full disability and Rs. 1 lakh for partial disability",
     "isRs.2 lakh for partial disability and Rs. 1 lakh for accidental death and full disability"),
    (322, 0, "role_swap", "ordered Federal aid to supplement State, tribal, and local recovery efforts",
     "ordered State, tribal, and local aid to supplement Federal recovery efforts"),
    (419, 0, "role_swap", "whether this comorbidity exacerbated, in this case, Covid 19",
     "whether Covid 19 exacerbated, in this case, this comorbidity"),
    (442, 0, "role_swap", "To authorize the Secretary of Health and Human Services to award grants to eligible entities",
     "To authorize eligible entities to award grants to the Secretary of Health and Human Services"),
    # ---------------------------------------------------------------- changing: causal
    (87, 1, "causal", "diseases caused by rain water entering", "diseases unrelated to rain water entering"),
    (210, 3, "causal", "which also impact Nigeria's economy", "which are also caused by Nigeria's economy"),
    (236, 0, "causal", "whether they get tested or not", "only because they get tested"),
    (309, 2, "causal", "She died of complications from metastatic pancreatic cancer",
     "She died of causes unrelated to her metastatic pancreatic cancer"),
    (320, 0, "causal", "But cautious optimism caused the plan to be sidelined",
     "But the plan was sidelined despite cautious optimism"),
    (397, 1, "causal", "if the ribs are bruised or fractured, the pleura can become inflamed",
     "if the pleura becomes inflamed, the ribs can become bruised or fractured"),
    (397, 2, "causal", "There is no evidence that wearing a face mask causes ill health",
     "There is no evidence that ill health makes wearing a face mask harder"),
    (419, 1, "causal", "that COVID-19 was the likely cause of death then",
     "that COVID-19 was merely present at death then"),
    (435, 2, "causal", "Due to the sensitivity of ethnicity", "Despite the sensitivity of ethnicity"),
    (479, 1, "causal", "This was based on existing law.", "This later became the basis for a new law."),
    # ---------------------------------------------------------------- preserving: abbreviation
    (87, 0, "abbreviation", "the official Twitter account of HMWSSB",
     "the official Twitter account of the Hyderabad Metropolitan Water Supply and Sewerage Board"),
    (89, 1, "abbreviation", "NIAID told AFP", "The National Institute of Allergy and Infectious Diseases told AFP"),
    (164, 0, "abbreviation", "OPCW is the implementing body",
     "The Organisation for the Prohibition of Chemical Weapons is the implementing body"),
    (184, 0, "abbreviation", "The former PM's family", "The former Prime Minister's family"),
    (204, 1, "abbreviation", "the UN’s department", "the United Nations’ department"),
    (210, 1, "abbreviation", "the Nigerian National Petroleum Corporation", "the NNPC"),
    (236, 1, "abbreviation", "The CDC states", "The Centers for Disease Control and Prevention states"),
    (259, 1, "abbreviation", "Rs. 1 lakh for partial disability", "1 lakh rupees for partial disability"),
    (309, 0, "abbreviation", "a U.S. Supreme Court justice", "a United States Supreme Court justice"),
    (377, 0, "abbreviation", "The FBI's Portland office", "The Federal Bureau of Investigation's Portland office"),
    (455, 0, "abbreviation", "In 2004 the CRTC approved",
     "In 2004 the Canadian Radio-television and Telecommunications Commission approved"),
    (488, 2, "abbreviation", "The United States didn’t fight", "The U.S. didn’t fight"),
    # ---------------------------------------------------------------- preserving: sentence_split
    (87, 0, "sentence_split", "how to clean the sump. Apart from this,", "how to clean the sump; apart from this,"),
    (132, 1, "sentence_split", "this year and will play World Junior", "this year. She will play World Junior"),
    (164, 2, "sentence_split", "the presence of Novichok, a class of", "the presence of Novichok. Novichok is a class of"),
    (184, 0, "sentence_split", "around Rs 12,000. The family, however, had only",
     "around Rs 12,000, but the family had only"),
    (187, 0, "sentence_split", "While tests may truthfully say they are more than 90% accurate, in practical use they",
     "Tests may truthfully say they are more than 90% accurate. In practical use, however, they"),
    (236, 0, "sentence_split", "the tests will save lives and people who", "the tests will save lives. It adds that people who"),
    (259, 1, "sentence_split", "on an annual renewal basis. The risk coverage",
     "on an annual renewal basis, and the risk coverage"),
    (320, 0, "sentence_split", "more than 200,000 people. But cautious optimism",
     "more than 200,000 people, but cautious optimism"),
    (334, 0, "sentence_split", "forcing it on Americans. An 11-page strategy", "forcing it on Americans; an 11-page strategy"),
    (377, 0, "sentence_split", "is 100% false and repeatedly asked the public",
     "is 100% false. They also repeatedly asked the public"),
    (479, 0, "sentence_split", "damaging federal property. It does not say", "damaging federal property, but it does not say"),
    (488, 3, "sentence_split", "congressional district and is a Republican.", "congressional district. He is a Republican."),
    # ---------------------------------------------------------------- preserving: coordination
    (30, 0, "coordination", "I am appalled, angry, shocked", "I am shocked, angry, appalled"),
    (87, 1, "coordination", "seasonal and communicable diseases", "communicable and seasonal diseases"),
    (164, 2, "coordination", "facilities in France and Sweden", "facilities in Sweden and France"),
    (237, 0, "coordination", "Cuban doctors, nurses, and other medical professionals",
     "Cuban nurses, doctors, and other medical professionals"),
    (259, 1, "coordination", "for accidental death and full disability", "for full disability and accidental death"),
    (322, 0, "coordination", "State, tribal, and local recovery efforts", "State, local, and tribal recovery efforts"),
    (397, 1, "coordination", "such as rheumatoid arthritis and lupus", "such as lupus and rheumatoid arthritis"),
    (419, 1, "coordination", "medical examiners, physicians, and coroners", "physicians, coroners, and medical examiners"),
    (442, 1, "coordination", "Business mogul, chairman of Microsoft, author, philanthropist",
     "Author, philanthropist, business mogul, chairman of Microsoft"),
    (446, 0, "coordination", "the state and local government", "the local and state government"),
    (488, 2, "coordination", "fascists (Germany and Italy) and an empire (Japan)",
     "an empire (Japan) and fascists (Germany and Italy)"),
    # ---------------------------------------------------------------- preserving: date_format
    (204, 0, "date_format", "1st October 1960", "1960-10-01"),
    (204, 0, "date_format", "1st October 1960", "October 1, 1960"),
    (204, 1, "date_format", "for 1 July 1960", "for July 1, 1960"),
    (214, 0, "date_format", "10th January 2020", "January 10, 2020"),
    (259, 1, "date_format", "on or before 31st May", "on or before May 31"),
    (259, 1, "date_format", "1st June to 31st May", "1 June to 31 May"),
    (309, 1, "date_format", "On September 18, 2020", "On 18 September 2020"),
    (309, 1, "date_format", "On September 18, 2020", "On 18/09/2020"),
    (322, 0, "date_format", "on August 14, 2020", "on 2020-08-14"),
    (488, 3, "date_format", "since Jan 3, 2021", "since 3 January 2021"),
    (488, 3, "date_format", "since Jan 3, 2021", "since 2021-01-03"),
    # ---------------------------------------------------------------- preserving: paraphrase
    (0, 0, "paraphrase", "It was first published on", "It first appeared on"),
    (89, 0, "paraphrase", "it has not been mentioned in any studies", "no study has mentioned it"),
    (132, 0, "paraphrase",
     "denying that they were concerned about her safety in the country – or that that was the reason why",
     "saying that they were not worried about her safety in the country, and that this was not the reason why"),
    (139, 1, "paraphrase", "He supports a plan that protects those with preexisting conditions",
     "He backs a plan that offers protection to people with preexisting conditions"),
    (184, 0, "paraphrase", "which was sanctioned the same day", "which was approved on the day he applied for it"),
    (236, 0, "paraphrase", "whether they get tested or not", "regardless of whether they are tested"),
    (321, 1, "paraphrase", "performs research to control and eliminate tuberculosis",
     "carries out research aimed at controlling and eliminating tuberculosis"),
    (322, 1, "paraphrase", "Trump offered help with firefighting equipment",
     "Trump offered assistance in the form of firefighting equipment"),
    (334, 0, "paraphrase", "also does not discuss forcing vaccines on people",
     "is also silent on making people take vaccines"),
    (364, 0, "paraphrase", "There is neither evidence nor news reporting the claim to be true.",
     "No evidence or news report shows the claim to be true."),
    (442, 2, "paraphrase", "The bills Sponsors and Cosponsors names list does not mention Bill Gates.",
     "Bill Gates is not named in the bill's list of Sponsors and Cosponsors."),
    (479, 1, "paraphrase", "This was based on existing law.", "This rested on a law that already existed."),
    # ---------------------------------------------------------------- preserving: punctuation
    (0, 1, "punctuation", "actually occurred - says their", "actually occurred, says their"),
    (30, 0, "punctuation", "some ‘media’ sources", "some \"media\" sources"),
    (92, 0, "punctuation", "California’s pass rate", "California's pass rate"),
    (115, 1, "punctuation", "11 People reported", "11 people reported"),
    (132, 0, "punctuation", "in the country – or that", "in the country — or that"),
    (184, 1, "punctuation", "a cream coloured 1964 model Fiat", "a cream-coloured 1964 model Fiat"),
    (204, 1, "punctuation", "department of economic and social affairs", "Department of Economic and Social Affairs"),
    (214, 2, "punctuation", "live in rural areas,", "live in rural areas."),
    (235, 0, "punctuation", "maximum of £3,200", "Maximum of £3,200"),
    (237, 1, "punctuation", "“the programme came to be the middleman in a scheme to exploit Cuban medical workers in Brazil,”",
     "\"the programme came to be the middleman in a scheme to exploit Cuban medical workers in Brazil,\""),
    (319, 2, "punctuation", "In the south east of", "In the south-east of"),
    (455, 0, "punctuation", "approved Fox News - 'The Commission", "approved Fox News: 'The Commission"),
]


def render(answer):
    """A first answer as text; a Boolean answer is followed by its explanation ("No. ...")."""
    text = (answer.get("answer") or "").strip()
    if answer.get("answer_type") == "Boolean" and answer.get("boolean_explanation"):
        text = text + ". " + answer["boolean_explanation"].strip()
    return text.strip()


def admitted(claim):
    """At most 5 questions, every rendered first answer <= 400 characters, one extractive/abstractive of 8+ words."""
    qs = claim["questions"]
    if len(qs) > 5:
        return False
    firsts = [q["answers"][0] for q in qs]
    if any(len(render(a)) > 400 for a in firsts):
        return False
    return any(a["answer_type"] in ("Extractive", "Abstractive") and len(render(a).split()) >= 8 for a in firsts)


def gold_pairs(claim):
    """Each question with its first answer, in order, duplicate questions dropped."""
    seen, out = set(), []
    for q in claim["questions"]:
        if q["question"] in seen:
            continue
        seen.add(q["question"])
        out.append({"question": q["question"], "answer": render(q["answers"][0])})
    return out


def draw(dev):
    adm = [i for i, c in enumerate(dev) if admitted(c)]
    assert len(adm) == 273, len(adm)
    excluded = set(EDITS_BLIND2) | set(EDITS_BLIND) | set(EDITS_BLIND3)
    left = sorted(set(adm) - excluded)
    assert len(left) == 180, len(left)
    drawn = random.Random(SEED).sample(left, N_DRAW)
    assert drawn == DRAWN, drawn
    return sorted(drawn)


def build(dev):
    claims = draw(dev)
    rows, counts = [], Counter()
    bases = {}
    for i in claims:
        pairs = gold_pairs(dev[i])
        bases[i] = pairs
        rid = "q%d" % i
        rows.append({"id": rid, "base_id": rid, "family": "base", "side": "base", "pair_index": None,
                     "dev_index": i, "original_answer": None, "edited_answer": None,
                     "claim": dev[i]["claim"], "gold_label": dev[i]["label"],
                     "reference_evidence": pairs, "predicted_evidence": [dict(p) for p in pairs]})
    for dev_i, k, family, old, new in EDITS:
        assert dev_i in bases, dev_i
        assert family in CHANGING or family in PRESERVING, family
        assert old != new
        pairs = bases[dev_i]
        answer = pairs[k]["answer"]
        n = answer.count(old)
        assert n == 1, (dev_i, k, family, old, n)
        edited = answer.replace(old, new, 1)
        counts[(dev_i, family)] += 1
        rid = "q%d-%s-%d" % (dev_i, family, counts[(dev_i, family)])
        predicted = [dict(p) for p in pairs]
        predicted[k]["answer"] = edited
        rows.append({"id": rid, "base_id": "q%d" % dev_i, "family": family,
                     "side": "changing" if family in CHANGING else "preserving", "pair_index": k,
                     "dev_index": dev_i, "original_answer": answer, "edited_answer": edited,
                     "claim": dev[dev_i]["claim"], "gold_label": dev[dev_i]["label"],
                     "reference_evidence": pairs, "predicted_evidence": predicted})
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    edited_claims = {r["dev_index"] for r in rows if r["side"] != "base"}
    assert edited_claims == set(claims), set(claims) - edited_claims
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default=DEFAULT_DEV, help="AVeriTeC dev.json")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output JSONL")
    args = ap.parse_args()
    with open(args.dev, encoding="utf-8") as f:
        dev = json.load(f)
    rows = build(dev)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    fam = Counter(r["family"] for r in rows)
    side = Counter(r["side"] for r in rows)
    print("%d rows -> %s" % (len(rows), args.out))
    print("sides:", dict(side))
    for name in CHANGING + PRESERVING:
        print("  %-15s %d" % (name, fam[name]))


if __name__ == "__main__":
    main()
