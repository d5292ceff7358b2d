"""One item's path through the code: the calls made while :meth:`ev2r.metric.scorer.Ev2RScorer.score`
scores one item, read as steps between the units of the import-linter layers (``pyproject.toml``).

Every distinct call (caller function -> callee function, both in ``claimalign``, ``ev2r`` or ``adversarial``) made
while the item is scored is one step, counted once however often it runs. A step is

* ``within``: caller and callee in the same unit (``ev2r.metric``, ``ev2r.facts``, ``claimalign.words``, ...);
* ``down``: to a unit of a lower layer that is not on the call stack;
* ``returns``: to a unit already left, i.e. on the call stack below the caller (``ev2r.metric`` -> ``ev2r.facts`` ->
  ``ev2r.metric``);
* ``up``: to a unit of a higher layer (a call through an object or a callback: imports cannot go up).

and, as a path, the units of the new steps in the order first taken (a unit repeated at once counted once): its
moves between units, those to a unit already left (the path went ``ev2r.metric`` -> ``claimalign.words`` ->
``ev2r.metric``: every return to a caller's unit after a call out), those up a layer, and those from a unit of
``claimalign`` into one of ``ev2r`` (``out_of_claimalign``: the path climbing out of the aligner package).

It also counts the admission stage's readings per item (:func:`ev2r.metric.admission.read_evidence`, once per item)
or, on a release before it, the calls of ``admit``.

    python benchmarks/speed/call_path.py --input examples/averitec_sample.jsonl --rows 0-11 --out benchmarks/results/call_path.md

Run it against another checkout with ``PYTHONPATH=<checkout>`` (the layers are read from that checkout's
``pyproject.toml``).
"""

from __future__ import annotations

import argparse
import collections
import json
import platform
import sys
import tomllib
from pathlib import Path

PACKAGES = ("claimalign", "ev2r", "adversarial")


def layer_units(pyproject: Path) -> list[list[str]]:
    """The units of each layer of the ``layers`` contract, top first."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    out = []
    for layer in contract["layers"]:
        names = layer.replace("|", " ").replace(":", " ").replace("(", " ").replace(")", " ").split()
        out.append(names)
    return out


def unit_of(module: str, units: list[list[str]]) -> tuple[str, int]:
    """The longest unit that is ``module`` or a package of it, and its layer (0 = top); a module under no unit is
    its own unit at the bottom."""
    best, layer = module, len(units)
    for k, names in enumerate(units):
        for n in names:
            if (module == n or module.startswith(n + ".")) and (best == module or len(n) > len(best)):
                best, layer = n, k
    return best, layer


def trace(scorer, item, units) -> dict:
    """Score ``item`` under :func:`sys.setprofile`: the distinct steps by kind (module docstring) and the admission
    stage's calls."""
    edges: dict[tuple, str] = {}
    stack: list = []  # per Python frame: (unit, layer, qualname), or None outside the three packages
    reads: collections.Counter = collections.Counter()
    walk: list = []  # the units of the new steps, in the order first taken (a unit repeated at once: one entry)

    def profile(frame, event, arg):
        if event == "return":
            if stack:
                stack.pop()
            return
        if event != "call":
            return
        mod = frame.f_globals.get("__name__", "")
        if mod.split(".")[0] not in PACKAGES:
            stack.append(None)
            return
        name = frame.f_code.co_name
        if (mod, name) in (("ev2r.metric.admission", "read_evidence"), ("ev2r.metric.admission", "admit"),
                           ("ev2r.metric.admitted", "admit")):
            reads[f"{mod.rsplit('.', 1)[1]}.{name}"] += 1
        unit, layer = unit_of(mod, units)
        project = [s for s in stack if s is not None]
        if project:
            cu, cl, cq = project[-1]
            key = (cq, frame.f_code.co_qualname, mod)
            if key not in edges and (not walk or walk[-1] != (unit, layer)):
                walk.append((unit, layer))
            if key not in edges:
                if unit == cu:
                    kind = "within"
                elif unit in {s[0] for s in project[:-1]}:
                    kind = "returns"
                elif layer < cl:
                    kind = "up"
                else:
                    kind = "down"
                edges[key] = kind
        stack.append((unit, layer, frame.f_code.co_qualname))

    sys.setprofile(profile)
    try:
        scorer.score([item])
    finally:
        sys.setprofile(None)
    seen: set = set()
    path = {"moves": 0, "back": 0, "climbs": 0, "out_of_claimalign": 0}
    for k, (unit, layer) in enumerate(walk):
        if k:
            path["moves"] += 1
            path["back"] += unit in seen
            path["climbs"] += layer < walk[k - 1][1]
            path["out_of_claimalign"] += (walk[k - 1][0].split(".")[0] == "claimalign"
                                          and unit.split(".")[0] == "ev2r")
        seen.add(unit)
    return {"steps": dict(collections.Counter(edges.values())), "reads": dict(reads), "path": path}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", default="examples/averitec_sample.jsonl")
    ap.add_argument("--rows", default="0-11", help="rows to trace, one at a time (a-b or a,b,c)")
    ap.add_argument("--nltk-data", default=None)
    ap.add_argument("--out", default=None, help="a Markdown table to write (with the command and machine)")
    args = ap.parse_args(argv)
    import ev2r
    from ev2r.io.readers import read_items
    from ev2r.metric.factory import build_scorer

    if args.nltk_data:
        import nltk

        nltk.data.path.insert(0, args.nltk_data)
    root = Path(ev2r.__file__).resolve().parents[1]
    units = layer_units(root / "pyproject.toml")
    items = read_items(args.input)
    rows = (list(range(int(args.rows.split("-")[0]), int(args.rows.split("-")[1]) + 1)) if "-" in args.rows
            else [int(r) for r in args.rows.split(",")])
    scorer = build_scorer()
    scorer.score([items[rows[0]]])  # warm: models loaded, caches filled as in a run
    per = []
    for r in rows:
        t = trace(scorer, items[r], units)
        per.append(t)
    kinds = ("within", "down", "returns", "up")
    mean = {k: sum(t["steps"].get(k, 0) for t in per) / len(per) for k in kinds}
    path = {k: sum(t["path"][k] for t in per) / len(per) for k in ("moves", "back", "climbs", "out_of_claimalign")}
    names = sorted({k for t in per for k in t["reads"]})
    reads = {k: sum(t["reads"].get(k, 0) for t in per) / len(per) for k in names}
    result = {"checkout": str(root), "version": getattr(ev2r, "__version__", "?"), "rows": rows,
              "mean_steps": mean, "mean_path": path, "mean_stage_calls": reads}
    print(json.dumps(result, indent=1))
    if args.out:
        lines = [f"# One item's path through the code ({result['version']})", "",
                 f"`{' '.join(['python', 'benchmarks/speed/call_path.py'] + (argv if argv is not None else sys.argv[1:]))}`"
                 f" on {platform.node() or 'this machine'} ({platform.machine()}, Python {platform.python_version()}),"
                 f" checkout {root}.", "",
                 "| rows | distinct calls within a unit | down | re-entering a unit on the stack | up a layer | "
                 "path: moves between units | to a unit already left | up a layer | out of claimalign into ev2r | "
                 "stage calls per item |",
                 "|---|---|---|---|---|---|---|---|---|---|",
                 f"| {len(rows)} | {mean['within']:.1f} | {mean['down']:.1f} | {mean['returns']:.1f} | {mean['up']:.1f} | "
                 f"{path['moves']:.1f} | {path['back']:.1f} | {path['climbs']:.1f} | {path['out_of_claimalign']:.1f} | "
                 + ", ".join(f"{k} {v:.1f}" for k, v in reads.items()) + " |", ""]
        Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
