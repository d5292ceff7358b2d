#!/usr/bin/env bash
# One candidate definition (a reading of meaning with the verifier) scored for benchmarks/agreement/meaning_choice.py:
# the blind edits, the two rating sets (all columns, for the out-of-system table) and, with a third argument "gaming",
# the CI gaming gate (30 rows each).
# usage: bash benchmarks/agreement/meaning_choice.sh NAME "EV2R SCORE OPTIONS" [gaming]   (outputs under $EV_OUT/NAME)
cd "$(dirname "$0")/../.."
NAME=$1; ARGS=$2
OUT=${EV_OUT:-/tmp/meaning_choice}/$NAME; mkdir -p $OUT
export NLTK_DATA=../shared/data/nltk_data HF_HUB_OFFLINE=1
D=../shared/data/ev2r_human_eval
echo "== $NAME blind $(date +%T)"
.venv/bin/python benchmarks/robustness/edits_blind.py --nltk-data $NLTK_DATA --score-args "$ARGS" --out-dir $OUT/blind > $OUT/blind.log 2>&1
for s in 86 144; do
  f=$D/averitec_manual_eval_subset.jsonl; [ $s = 144 ] && f=$D/averitec_shared_task_dev.jsonl
  echo "== $NAME S$s $(date +%T)"
  .venv/bin/python benchmarks/agreement/score_with.py hybrid_columns=all -- $f -o $OUT/S$s.jsonl --json --no-progress --scorer ev2r --scorer hu-meteor --nltk-data $NLTK_DATA $ARGS > $OUT/S$s.log 2>&1
done
echo "== $NAME oos $(date +%T)"
.venv/bin/python benchmarks/agreement/out_of_system.py --scores-86 $OUT/S86.jsonl --scores-144 $OUT/S144.jsonl --out $OUT/oos/out_of_system > $OUT/oos.log 2>&1
echo "== $NAME done $(date +%T)"
if [ "${3:-}" = gaming ]; then
  for set in averitec_manual_eval_subset averitec_shared_task_dev; do
    s=86; [ $set = averitec_shared_task_dev ] && s=144
    echo "== $NAME gaming $s $(date +%T)"
    .venv/bin/ev2r robustness "$D/$set.jsonl" --suite gaming --scorer ev2r,hu_meteor --sample 30 --seed 0 \
      -o $OUT/gaming_$s --nltk-data $NLTK_DATA --no-png --no-progress --allow-inconclusive $ARGS > $OUT/gaming_$s.log 2>&1
    echo "   rc=$?"
  done
fi
echo "== $NAME all done $(date +%T)"
