"""Make the screenshot of ``ev2r report`` in docs/scoring.md (``docs/report.png``, and the opened item beside it,
``docs/report_item.png``): the shipped sample scored with ``--explain``, its report, opened in headless Chromium
(Debian's ``/usr/bin/chromium``, driven by playwright), one item's drill-down opened, the page captured.

    .venv/bin/python scripts/report_screenshot.py [--scores SCORES.jsonl] [--item 0] [--out docs/report.png]

Without ``--scores`` it runs ``ev2r score examples/averitec_sample.jsonl --explain`` first (about a minute).

Beside the pictures it writes what they show, ``docs/report_screenshot.json`` (:func:`sidecar`): the ev2r version,
the score versions and the headline means of the rows rendered, the input's SHA-256 and each picture's.
``tests/test_report_screenshot.py`` compares it with this release (``ev2r.__version__``, the latest score versions
and their recorded values on the sample, ``ev2r.versions.RECORDED_SAMPLE``) and with the pictures in docs/, so a
release that changes the page's version or numbers fails until the pictures are made again with this script
(a stale picture once showed release 0.1.0, headline 0.117, another formula).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: what the pictures show, beside them (tests/test_report_screenshot.py reads it)
SIDECAR = REPO / "docs" / "report_screenshot.json"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sidecar(scores: Path, input_path: Path, images: list[Path]) -> dict:
    """What the pictures show: the version of ev2r that scored the rows and made the page, the score versions of
    the run's signature (``ev2r.versions.identify``), the headline means of the rows (4 decimals, as ``ev2r score``
    prints them), the input (path from the repository, SHA-256) and each picture's SHA-256."""
    from ev2r import __version__
    from ev2r.reporting.html import corpus_means
    from ev2r.versions import SCORE_COLUMNS, identify

    rows = [json.loads(line) for line in scores.read_text(encoding="utf-8").splitlines() if line.strip()]
    record = json.loads(Path(str(scores) + ".ev2r-run.json").read_text(encoding="utf-8"))
    means = corpus_means(rows, record["signature"])
    versions = {name: found.label for name, found in identify(record["signature"]).items()}
    where = input_path.resolve()
    return {
        "made_by": "scripts/report_screenshot.py",
        "ev2r": __version__,
        "score_versions": versions,
        "headline": {SCORE_COLUMNS[name]: round(means[SCORE_COLUMNS[name]], 4) for name in versions},
        "n": means["n"],
        "input": str(where.relative_to(REPO)) if where.is_relative_to(REPO) else str(where),
        "input_sha256": sha256(where),
        "images": {p.name: sha256(p) for p in images},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scores", default=None, help="explained score rows (default: score the sample now)")
    ap.add_argument("--input", default=str(REPO / "examples" / "averitec_sample.jsonl"))
    ap.add_argument("--item", default="0", help="the item (position in the rows) whose drill-down is opened")
    ap.add_argument("--out", default=str(REPO / "docs" / "report.png"))
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="ev2r_report_"))
    scores = args.scores or str(work / "sample_scores.jsonl")
    ev2r = [sys.executable, "-m", "ev2r.cli"]
    if not args.scores:
        subprocess.run(ev2r + ["score", args.input, "-o", scores, "--explain", "--no-progress"], check=True)
    html = work / "report.html"
    subprocess.run(ev2r + ["report", scores, "-o", str(html), "--input", args.input], check=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1500})
        page.goto(html.as_uri())
        page.locator(f'#items tbody tr[data-item="{args.item}"]').click()
        page.evaluate("window.scrollTo(0, 0)")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=args.out, full_page=False)
        section = page.locator("section.item.shown")
        item_png = Path(args.out).with_name(Path(args.out).stem + "_item.png")
        section.screenshot(path=str(item_png))
        browser.close()
    facts = sidecar(Path(scores), Path(args.input), [Path(args.out), item_png])
    side = Path(args.out).with_name("report_screenshot.json")
    side.write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}, its item drill-down {item_png} and what they show, {side} (report: {html})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
