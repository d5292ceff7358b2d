#!/usr/bin/env python3
"""Build train.jsonl from the hand-written templates in templates.txt.

Template file format:
  ## <class>/<family> <pool>      start a family; pool names the question pool used when a
                                  line gives no question (claim, topic, generic, ct, mixed)
  <reg> ~~ <answer> [~~ <question>]
reg: f=formal c=casual t=terse l=llm s=scraped x=translated o=other
<EMPTY> as answer means "", <SPACE> means " ".
Questions are drawn deterministically (seeded per family) from the pool.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
REG = {"f": "formal", "c": "casual", "t": "terse", "l": "llm", "s": "scraped",
       "x": "translated", "o": "other"}
SPECIAL = {"<EMPTY>": "", "<SPACE>": " "}

CLAIM_Q = [
    "Is it true that {claim_clause}?",
    "Is the claim \"{claim}\" accurate?",
    "Did it really happen that {claim_clause}?",
    "Can you confirm that {claim_clause}?",
    "Is there evidence that {claim_clause}?",
    "Has it been verified that {claim_clause}?",
    "Is it correct that {claim_clause}?",
    "Claim: {claim} Is this true?",
    "True or false: {claim_clause}?",
    "is it true {claim_clause}",
    "Is it accurate to say that {claim_clause}?",
    "Does the evidence support that {claim_clause}?",
    "Was it the case that {claim_clause}?",
    "\"{claim}\" - is this correct?",
    "Fact check: {claim}",
    "Is the statement that {claim_clause} true?",
    "Verify: {claim}",
    "IS IT TRUE THAT {claim_clause}?",
]
TOPIC_Q = [
    "What is known about {topic}?",
    "What do official sources say about {topic}?",
    "What do records show about {topic}?",
    "Where did the claim about {topic} come from?",
    "What did officials say about {topic}?",
    "What are the facts about {topic}?",
    "Is there any data on {topic}?",
    "What did the search for {topic} return?",
    "what's the deal with {topic}?",
    "Who is responsible for {topic}?",
    "When was {topic} first reported?",
    "What does the latest report say about {topic}?",
    "Any news on {topic}?",
    "Is there an official statement on {topic}?",
]
GENERIC_Q = [
    "What did the search return?",
    "What does the evidence show?",
    "What was found?",
    "What do the sources say?",
    "Is the claim supported?",
    "What is the answer?",
    "Evidence?",
    "What do official records show?",
    "Source?",
    "What did fact-checkers find?",
    "Result of the lookup?",
    "What information is available?",
    "Q1",
    "Question 1",
    "What does the retrieved document say?",
    "Is there supporting evidence?",
    "Any relevant findings?",
    "what did you find",
    "What is the source of this claim?",
    "Summary of evidence?",
]
POOLS = {
    "claim": CLAIM_Q,
    "topic": TOPIC_Q,
    "generic": GENERIC_Q,
    "ct": CLAIM_Q + TOPIC_Q,
    "mixed": CLAIM_Q + TOPIC_Q + GENERIC_Q,
}


def main():
    rows, seen = [], set()
    cls = fam = pool = None
    rng = None
    with open(os.path.join(HERE, "templates.txt"), encoding="utf-8") as fh:
        for raw in fh:
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("# "):
                continue
            if line.startswith("## "):
                fam, pool = line[3:].split()
                cls = fam.split("/")[0]
                rng = random.Random(fam)
                continue
            parts = line.split(" ~~ ")
            reg, ans = parts[0].strip(), parts[1]
            ans = SPECIAL.get(ans, ans)
            if len(parts) > 2:
                q = parts[2]
            else:
                cands = POOLS[pool][:]
                rng.shuffle(cands)
                q = next((c for c in cands if (c, ans) not in seen), None)
                if q is None:
                    raise SystemExit(f"no free question for {fam}: {ans!r}")
            if (q, ans) in seen:
                raise SystemExit(f"duplicate pair in {fam}: {q!r} / {ans!r}")
            seen.add((q, ans))
            rows.append({"class": cls, "family": fam, "question": q, "answer": ans,
                         "register": REG[reg]})
    with open(os.path.join(HERE, "train.jsonl"), "w", encoding="utf-8") as out:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} templates")


if __name__ == "__main__":
    main()
