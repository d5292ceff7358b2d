"""Make the README's screenshot of ``ev2r report`` (``docs/report.png``): the shipped sample scored with
``--explain``, its report, opened in headless Chromium (Debian's ``/usr/bin/chromium``, driven by playwright),
one item's drill-down opened, the page captured.

    .venv/bin/python scripts/report_screenshot.py [--scores SCORES.jsonl] [--item 0] [--out docs/report.png]

Without ``--scores`` it runs ``ev2r score examples/averitec_sample.jsonl --explain`` first (about a minute).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


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
    scores = args.scores or str(work / "scores.jsonl")
    ev2r = [sys.executable, "-m", "ev2r.cli.main"]
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
        section.screenshot(path=str(Path(args.out).with_name(Path(args.out).stem + "_item.png")))
        browser.close()
    print(f"wrote {args.out} and its item drill-down beside it (report: {html})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
