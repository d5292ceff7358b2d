"""Every registered score version recomputed on the shipped sample: the latest of each name by this
checkout, each earlier one by the commit that computes it (:data:`ev2r.versions.COMPUTED_BY`), checked out into a
temporary folder and run with this checkout's virtual environment. Each run must identify as its version (through
this release's registry) and give the recorded sample values (:data:`ev2r.versions.RECORDED_SAMPLE`) to 2e-3 (bf16
kernels differ between CPUs: on a CPU with AMX the sample's Ev2R reads 0.2234 against the recorded 0.2228; the
versions' recorded values stay at least 0.0034 apart where they differ, and the declared precision bound on a mean is
0.01).

    .venv/bin/python scripts/check_old_versions.py [--nltk-data DIR]

Exit status 0 when every version reproduces, 1 when one does not (each named, with the value it gave), 2 when a
commit cannot be read (a shallow clone: ``git fetch --unshallow`` first).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = "examples/averitec_sample.jsonl"
TOLERANCE = 2e-3  # the README tests' tolerance; see the module docstring


def score_sample(checkout: Path, nltk_data: str | None) -> dict:
    """The ``--json`` summary of ``ev2r score`` on the sample, run from ``checkout`` with this interpreter."""
    env = dict(os.environ, PYTHONPATH=str(checkout), HF_HUB_OFFLINE="1")
    if nltk_data:
        env["NLTK_DATA"] = nltk_data
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-c", "import sys; from ev2r.cli.main import main; sys.exit(main())", "score", SAMPLE,
               "-o", str(Path(out) / "rows.jsonl"), "--json", "--no-progress"]
        proc = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"ev2r score at {checkout} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nltk-data", default=os.environ.get("NLTK_DATA"))
    args = ap.parse_args(argv)
    from ev2r.versions import COMPUTED_BY, RECORDED_SAMPLE, identify

    commits: dict[str, list[str]] = {}
    for label in RECORDED_SAMPLE:
        commits.setdefault(COMPUTED_BY.get(label, ("HEAD",))[0], []).append(label)
    failures = []
    for commit, labels in commits.items():
        with tempfile.TemporaryDirectory() as tmp:
            if commit == "HEAD":
                checkout = REPO
            else:
                checkout = Path(tmp) / commit
                checkout.mkdir()
                archive = subprocess.run(["git", "-C", str(REPO), "archive", commit], capture_output=True)
                if archive.returncode != 0:
                    print(f"check_old_versions: commit {commit} is not in this clone ({archive.stderr.decode()[:200]}"
                          f"); run git fetch --unshallow", file=sys.stderr)
                    return 2
                subprocess.run(["tar", "-x", "-C", str(checkout)], input=archive.stdout, check=True)
            summary = score_sample(checkout, args.nltk_data)
        found = identify(summary["signature"])
        for label in labels:
            name, column = label.split("/")[0], ("ev2r_hybrid" if label.startswith("ev2r-hybrid/") else "ev2r")
            got = summary.get(column)
            ident = found.get(name)
            version = ident.version if ident is not None else None
            want = RECORDED_SAMPLE[label]
            ok = version is not None and version.label == label and got is not None and abs(got - want) <= TOLERANCE
            print(f"{label:15s} {commit:8s} {column} {got if got is None else round(got, 4)} (recorded {want}); "
                  f"identifies as {version.label if version else None}: {'ok' if ok else 'FAILED'}")
            if not ok:
                failures.append(label)
    if failures:
        print(f"check_old_versions: {len(failures)} version(s) do not reproduce: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
