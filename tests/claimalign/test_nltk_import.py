"""nltk imported without the optional packages its initialisation pulls in (scikit-learn, scipy.stats): what the
scores use of nltk works, and the packages held out stay importable afterwards."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("nltk")

PROBE = r"""
import json, sys
from claimalign.nltk_data import import_nltk, require_nltk_data
nltk = import_nltk()
held = [m for m in ("sklearn", "scipy.stats", "pandas") if m in sys.modules]
require_nltk_data()
from nltk import word_tokenize
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import single_meteor_score
out = {"held_in": held, "nltk_again": import_nltk() is nltk,
       "tokens": word_tokenize("The U.S. didn't sign it."), "stem": PorterStemmer().stem("running"),
       "meteor": single_meteor_score(["the", "cat", "sat"], ["the", "cat", "sat"])}
import sklearn.isotonic, scipy.stats
out["after"] = [sys.modules["sklearn"] is not None, hasattr(scipy.stats, "spearmanr")]
print(json.dumps(out))
"""


def test_nltk_serves_the_scores_without_scikit_learn_and_scipy_stats_which_stay_importable():
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["held_in"] == [] and out["nltk_again"] is True
    assert out["tokens"] == ["The", "U.S.", "did", "n't", "sign", "it", "."] and out["stem"] == "run"
    assert out["meteor"] == pytest.approx(0.9814814814814815)
    assert out["after"] == [True, True]


def test_a_package_imported_before_nltk_is_left_as_it_is():
    probe = ("import sys, scipy.stats; from claimalign.nltk_data import import_nltk; s = sys.modules['scipy.stats'];"
             " import_nltk(); a = sys.modules['nltk.metrics.association'];"
             " print(sys.modules['scipy.stats'] is s, a.fisher_exact is s.fisher_exact)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]
