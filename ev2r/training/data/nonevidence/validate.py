#!/usr/bin/env python3
"""Validate train.jsonl and print counts per class (and per family with -v)."""
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "train.jsonl")
CLASSES = {"absence", "restatement", "attribution", "verdict", "boilerplate",
           "question_only", "bare_answer", "claim_part", "evidence"}
FIELDS = {"class", "family", "question", "answer", "register"}
REGISTERS = {"formal", "casual", "terse", "llm", "scraped", "translated", "other"}
SLOTS = {"{claim}", "{claim_clause}", "{claim_part}", "{topic}"}


def main():
    errors, seen = [], set()
    fam_count = collections.Counter()
    cls_count = collections.Counter()
    reg_count = collections.Counter()
    with open(PATH, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(f"line {i}: bad JSON: {e}")
            continue
        if not isinstance(row, dict) or set(row) != FIELDS:
            errors.append(f"line {i}: fields {sorted(row) if isinstance(row, dict) else row}")
            continue
        if not all(isinstance(row[k], str) for k in FIELDS):
            errors.append(f"line {i}: non-string field")
            continue
        if row["class"] not in CLASSES:
            errors.append(f"line {i}: bad class {row['class']!r}")
        if not re.fullmatch(re.escape(row["class"]) + r"/[a-z0-9-]+", row["family"]):
            errors.append(f"line {i}: bad family {row['family']!r}")
        if row["register"] not in REGISTERS:
            errors.append(f"line {i}: bad register {row['register']!r}")
        if not row["question"].strip():
            errors.append(f"line {i}: empty question")
        for k in ("question", "answer"):
            text = row[k]
            for slot in re.findall(r"\{[^{}]*\}", text):
                if slot not in SLOTS:
                    errors.append(f"line {i}: unknown slot {slot} in {k}")
            stripped = re.sub(r"\{(claim|claim_clause|claim_part|topic)\}", "", text)
            if "{" in stripped or "}" in stripped:
                errors.append(f"line {i}: stray brace in {k}")
        key = (row["question"], row["answer"])
        if key in seen:
            errors.append(f"line {i}: duplicate (question, answer) {key!r}")
        seen.add(key)
        fam_count[row["family"]] += 1
        cls_count[row["class"]] += 1
        reg_count[row["register"]] += 1

    fams_per_class = collections.Counter(f.split("/")[0] for f in fam_count)
    for c in sorted(CLASSES):
        need = 8 if c == "evidence" else 5
        if fams_per_class[c] < need:
            errors.append(f"class {c}: only {fams_per_class[c]} families (need {need})")
    for f, n in sorted(fam_count.items()):
        if not 10 <= n <= 25:
            errors.append(f"family {f}: {n} templates (need 10-25)")
    total = sum(cls_count.values())
    if total < 700:
        errors.append(f"only {total} templates (need 700)")
    size = os.path.getsize(PATH)
    if size >= 400 * 1024:
        errors.append(f"file is {size} bytes (limit 400 KB)")

    print(f"{'class':<14}{'families':>9}{'templates':>10}")
    for c in sorted(CLASSES):
        print(f"{c:<14}{fams_per_class[c]:>9}{cls_count[c]:>10}")
    print(f"{'total':<14}{len(fam_count):>9}{total:>10}   ({size} bytes)")
    print("registers:", dict(sorted(reg_count.items())))
    if "-v" in sys.argv:
        for f, n in sorted(fam_count.items()):
            print(f"  {f:<45}{n:>4}")
    if errors:
        print(f"\n{len(errors)} ERRORS:")
        print("\n".join(errors[:50]))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
