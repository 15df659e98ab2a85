#!/usr/bin/env python3
"""Timeloop's published exercises, imported by ffm straight from their files.

Usage: tests/timeloop-exercises.py [--ffm PATH] [--verbose] [--only NAME]
       [--estimators] [--map [--max-memory SIZE] [--timeout S]] [EXERCISES_DIR]

(also `meson test -C build --benchmark timeloop-exercises` with
FFM_TIMELOOP_EXERCISES=EXERCISES_DIR in the environment)

EXERCISES_DIR is a checkout of Accelergy-Project/timeloop-accelergy-exercises
(its workspace/ folder is found inside it). For every dense design and
tutorial case that stores Timeloop's outputs, the script evaluates the
mapping Timeloop evaluated or found (its map.yaml) with `ffm eval` on the
case's own files and the ERT Timeloop wrote, and compares cycles, every
read, fill and update count of every level and data space (Timeloop's
per-instance counts times its utilized instances) and the energy with the
stored stats. With --estimators it costs the same mappings with the
energies of ffm's component estimators (no ERT) against the ERT's. With
--map it also runs `ffm map` under Timeloop's
constraints (EDP) and compares with the mapper's stored result.

Prints the Markdown tables of docs/timeloop.md. Exits 77 (skipped) with a
message when EXERCISES_DIR is missing, 1 when a case fails to run.
Needs python3 only (the YAML is read by ffm)."""

import argparse
import json
import os
import re
import subprocess
import sys
import time

CASES = []


def case(name, arch, problem, mapping, stats, ert, mapper=None, note=""):
    parsed = os.path.join(os.path.dirname(stats), "parsed-processed-input.yaml")
    CASES.append(dict(name=name, arch=arch, problem=problem, mapping=mapping,
                      stats=stats, ert=ert, mapper=mapper, note=note,
                      parsed=parsed))


ED = "example_designs/example_designs"
for d in ["eyeriss_like", "simba_like", "simple_output_stationary",
          "simple_weight_stationary"]:
    out = f"{ED}/{d}/ref_outputs/default_problem"
    case(d, [f"{ED}/{d}"], [f"{ED}/{d}"], f"{out}/timeloop-mapper.map.yaml",
         f"{out}/timeloop-mapper.stats.txt", f"{out}/timeloop-mapper.ERT.yaml",
         mapper=True)

T = "tutorial_exercises/01_accelergy_timeloop_2020_ispass/timeloop"
MODEL = [
    ("00-model-conv1d-1level", "", "conv1d-1level.map.yaml"),
    ("01-model-conv1d-2level", "os", "conv1d-2level-os.map.yaml"),
    ("01-model-conv1d-2level", "ws", "conv1d-2level-ws.map.yaml"),
    ("02-model-conv1d+oc-2level", "no-tiling", "conv1d+oc-2level-os.map.yaml"),
    ("02-model-conv1d+oc-2level", "tiling", "conv1d+oc-2level-os-tiled.map.yaml"),
    ("03-model-conv1d+oc-3level", "no-bypass", "conv1d+oc-3level.map.yaml"),
    ("03-model-conv1d+oc-3level", "bypass", "conv1d+oc-3level-bypass.map.yaml"),
    ("04-model-conv1d+oc-3levelspatial", "cp", "conv1d+oc+ic-3levelspatial-cp-ws.map.yaml"),
    ("04-model-conv1d+oc-3levelspatial", "kp", "conv1d+oc+ic-3levelspatial-kp-ws.map.yaml"),
]
for d, sub, m in MODEL:
    out = f"{T}/{d}/ref-output" + (f"/{sub}" if sub else "")
    case(f"{d[:2]} {sub or d[9:]}", [f"{T}/{d}/arch"], [f"{T}/{d}/prob"],
         f"{T}/{d}/map/{m}", f"{out}/timeloop-model.stats.txt",
         f"{out}/timeloop-model.ERT.yaml")
for sub, c in [("baked", "conv1d+oc-3level-1mapping"),
               ("freebypass", "conv1d+oc-3level-freebypass"),
               ("null", "null")]:
    d = f"{T}/05-mapper-conv1d+oc-3level"
    out = f"{d}/ref-output/{sub}"
    case(f"05 {sub}", [f"{d}/arch", f"{d}/constraints/{c}.constraints.yaml",
                       f"{d}/mapper"], [f"{d}/prob"],
         f"{out}/timeloop-mapper.map.yaml", f"{out}/timeloop-mapper.stats.txt",
         f"{out}/timeloop-mapper.ERT.yaml", mapper=True)
d = f"{T}/06-mapper-convlayer-eyeriss"
case("06 eyeriss", [f"{d}/arch", f"{d}/arch/components", f"{d}/mapper"],
     [f"{d}/prob"], f"{d}/ref-output/timeloop-mapper.map.yaml",
     f"{d}/ref-output/timeloop-mapper.stats.txt",
     f"{d}/ref-output/timeloop-mapper.ERT.yaml", mapper=True)
# These two use Jinja in their arch.yaml: ffm reads the file Timeloop's
# front end rendered from them (parsed-processed-input.yaml).
TA = "tutorial_exercises/01_accelergy_timeloop_2020_ispass/timeloop+accelergy/ref-output"
for sub in ["intmac", "fpmac"]:
    p = f"{TA}/{sub}/parsed-processed-input.yaml"
    case(f"t+a {sub}", [p], [p], f"{TA}/{sub}/timeloop-mapper.map.yaml",
         f"{TA}/{sub}/timeloop-mapper.stats.txt",
         f"{TA}/{sub}/timeloop-mapper.ERT.yaml", mapper=True,
         note="Jinja: rendered input")
T2 = "tutorial_exercises/02_interface_and_design_space_exploration_2024/outputs"
case("tutorial 02", [f"{T2}/parsed-processed-input.yaml"],
     [f"{T2}/parsed-processed-input.yaml"], f"{T2}/timeloop-mapper.map.yaml",
     f"{T2}/timeloop-mapper.stats.txt", f"{T2}/timeloop-mapper.ERT.yaml",
     mapper=True, note="Jinja: rendered input")


def parse_stats(path):
    """Timeloop's stats.txt: per level its per-dataspace counts, utilized
    instances and energies; the compute unit; cycles."""
    levels = []
    cur = None
    ds = None
    cycles = None
    with open(path) as f:
        for line in f:
            if line.startswith("Networks") or line.startswith("Operational Intensity"):
                break
            m = re.match(r"=== (\S+) ===", line)
            if m:
                cur = dict(name=m.group(1), spaces={}, leak=0.0, compute=None)
                levels.append(cur)
                ds = None
                continue
            if cur is None:
                continue
            m = re.match(r"\s+Computes \(total\)\s+: (\d+)", line)
            if m:
                cur["compute"] = int(m.group(1))
            m = re.match(r"\s+Energy \(total\)\s+: ([\d.e+-]+) pJ", line)
            if m and ds is None and cur["compute"] is not None:
                cur["compute_energy"] = float(m.group(1))
            m = re.match(r"\s+Leakage energy \(total\)\s+: ([\d.e+-]+) pJ", line)
            if m:
                cur["leak"] = float(m.group(1))
            m = re.match(r"    (\w+):$", line)
            if m and m.group(1) not in ("SPECS", "STATS", "MAPPING"):
                ds = dict()
                cur["spaces"][m.group(1)] = ds
                continue
            if ds is None:
                continue
            for key, pat in [("inst", r"Utilized instances \(max\)"),
                             ("reads", r"Scalar reads \(per-instance\)"),
                             ("fills", r"Scalar fills \(per-instance\)"),
                             ("updates", r"Scalar updates \(per-instance\)"),
                             ("energy", r"Energy \(total\)")]:
                m = re.match(r"\s+" + pat + r"\s+: ([\d.e+-]+)", line)
                if m:
                    ds[key] = float(m.group(1))
    with open(path) as f:
        for line in f:
            m = re.match(r"Cycles: (\d+)", line)
            if m:
                cycles = int(m.group(1))
    return levels, cycles


def tl_list(root, paths):
    return "timeloop:" + ",".join(os.path.join(root, p) for p in paths)


def run(cmd, timeout=3600):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.time() - t


args_verbose = False


def evaluate(ffm, arch, work, mapping):
    out = f"/tmp/ffm-tl-{os.getpid()}.json"
    p, secs = run([ffm, "eval", "--arch", arch, "--workload", work,
                   "--mapping", mapping, "--json", out])
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr else "failed", secs
    with open(out) as f:
        r = json.load(f)
    os.unlink(out)
    return r, None, secs


def compare(c, root, ffm, use_parsed=False):
    stats = os.path.join(root, c["stats"])
    levels, cycles = parse_stats(stats)
    mapping = tl_list(root, [c["mapping"]])
    if use_parsed:
        arch = tl_list(root, [c["parsed"], c["ert"]])
        work = tl_list(root, [c["parsed"]])
    else:
        arch = tl_list(root, c["arch"] + [c["ert"]])
        work = tl_list(root, c["problem"])
    r, err, secs = evaluate(ffm, arch, work, mapping)
    if r is None:
        return dict(error=err)
    e = r["per_einsum"][0]
    ffm_counts = {(t["component"], t["tensor"]): t for t in e["per_tensor"]}
    ffm_levels = {c["name"]: c["energy_j"] * 1e12 for c in r["per_component"]}
    tl_energy = 0.0
    n_counts = n_equal = 0
    diffs = []
    worst = 0.0          # largest relative energy difference of a level
    for lv in levels:    # whose counts all agree
        lv_energy = lv["leak"]
        lv_equal = True
        n_values = 1
        if lv.get("compute") is not None:
            lv_energy += lv.get("compute_energy", 0.0)
        for dsn, ds in lv["spaces"].items():
            lv_energy += ds.get("energy", 0.0)
            n_values += 1
            inst = ds.get("inst", 0)
            t = ffm_counts.get((lv["name"], dsn))
            for k in ("reads", "fills", "updates"):
                want = ds.get(k, 0) * inst
                got = t[k] if t is not None else 0
                if want == 0 and got == 0:
                    continue
                n_counts += 1
                if abs(got - want) <= 1e-9 * max(abs(want), 1):
                    n_equal += 1
                else:
                    lv_equal = False
                    diffs.append(f"{lv['name']}.{dsn}.{k} {got:g} vs {want:g}")
        tl_energy += lv_energy
        mine = ffm_levels.get(lv["name"], 0.0)
        # stats.txt prints energies to 0.01 pJ
        if lv_equal and abs(mine - lv_energy) > 0.005 * n_values:
            worst = max(worst, abs(mine - lv_energy) / max(lv_energy, 1e-30))
        if args_verbose and abs(mine - lv_energy) > 0.005 * n_values:
            diffs.append(f"{lv['name']} energy {mine:.2f} vs {lv_energy:.2f} pJ")
    ffm_cycles = r["latency_s"] / 1e-9
    return dict(cycles=cycles, ffm_cycles=ffm_cycles, counts=n_counts,
                equal=n_equal, diffs=diffs, tl_energy=tl_energy,
                ffm_energy=r["energy_j"] * 1e12, secs=secs, worst=worst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?",
                    default=os.environ.get("FFM_TIMELOOP_EXERCISES"),
                    help="the exercises' checkout (default: "
                    "$FFM_TIMELOOP_EXERCISES)")
    ap.add_argument("--ffm", default=os.path.join(os.path.dirname(__file__),
                                                  "..", "build", "cli", "ffm"))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--map", action="store_true",
                    help="also run ffm map under Timeloop's constraints on the "
                    "mapper cases")
    ap.add_argument("--estimators", action="store_true",
                    help="also cost Timeloop's mappings with ffm's component "
                    "estimators in place of the ERT")
    ap.add_argument("--max-memory", default="3G")
    ap.add_argument("--timeout", type=float, default=1200)
    args = ap.parse_args()
    global args_verbose
    args_verbose = args.verbose
    if args.root is None:
        print("skipped: no checkout of Accelergy-Project/"
              "timeloop-accelergy-exercises given (an argument or "
              "FFM_TIMELOOP_EXERCISES)", file=sys.stderr)
        return 77
    root = args.root
    if os.path.isdir(os.path.join(root, "workspace")):
        root = os.path.join(root, "workspace")
    if not os.path.isdir(os.path.join(root, "example_designs")):
        print(f"skipped: {args.root} is not a checkout of "
              "Accelergy-Project/timeloop-accelergy-exercises (fetch it first)",
              file=sys.stderr)
        return 77
    print("| case | cycles (Timeloop's) | counts equal | energy ffm / Timeloop (pJ) | difference | levels with equal counts: largest energy difference |")
    print("|---|---|---|---|---|---|")
    failed = 0
    for c in CASES:
        if args.only and args.only not in c["name"]:
            continue
        res = compare(c, root, args.ffm)
        if "error" in res:
            failed += 1
            print(f"| {c['name']} | error: {res['error']} | | | | |")
            continue
        if c["parsed"] not in c["arch"][0] and os.path.exists(os.path.join(root, c["parsed"])):
            # The same mapping on the architecture Timeloop's front end
            # rendered from the files: the two readings must agree.
            alt = compare(c, root, args.ffm, use_parsed=True)
            if "error" in alt:
                print(f"| {c['name']} (rendered input) | error: {alt['error']} | | | | |")
            elif alt["ffm_energy"] != res["ffm_energy"]:
                print(f"| {c['name']} (its files) | the stored outputs were made "
                      f"from other files: ffm costs {res['ffm_energy']:.2f} pJ "
                      f"from the design's files, {alt['ffm_energy']:.2f} pJ "
                      f"from the input the run rendered | | | | |")
                res = alt
                c = dict(c, name=c["name"] + " (rendered input)")
        rel = (res["ffm_energy"] - res["tl_energy"]) / res["tl_energy"]
        cyc = "equal" if abs(res["ffm_cycles"] - res["cycles"]) < 0.5 else \
            f"{res['ffm_cycles']:.0f} / {res['cycles']}"
        print(f"| {c['name']} | {cyc} ({res['cycles']}) | {res['equal']} of "
              f"{res['counts']} | {res['ffm_energy']:.2f} / {res['tl_energy']:.2f} "
              f"| {rel * 100:+.4f} % | {res['worst'] * 100:.4f} % |")
        if args.verbose:
            for d in res["diffs"]:
                print(f"  - {d}")
    if args.estimators:
        failed += estimators_table(root, args)
    if args.map:
        failed += map_table(root, args)
    return 1 if failed else 0


def estimators_table(root, args):
    """Timeloop's stored mapping costed with energies from ffm's component
    estimators (no ERT given: the design's compound classes and attributes)
    against the same mapping with the ERT of the run (same counts, so the
    ratio is the estimators' alone) and against Timeloop's stored total."""
    print()
    print("| case | input | ffm, the run's ERT (pJ) | ffm, estimators, no ERT (pJ) | estimators / ERT | estimators / Timeloop | levels: estimators / ERT |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for c in CASES:
        if args.only and args.only not in c["name"]:
            continue
        levels, cycles = parse_stats(os.path.join(root, c["stats"]))
        tl_energy = 0.0
        for lv in levels:
            tl_energy += lv["leak"] + lv.get("compute_energy", 0.0)
            for ds in lv["spaces"].values():
                tl_energy += ds.get("energy", 0.0)
        mapping = tl_list(root, [c["mapping"]])
        inputs = [("its files", c["arch"], c["problem"])]
        if c["parsed"] not in c["arch"][0] and os.path.exists(os.path.join(root, c["parsed"])):
            inputs.append(("rendered", [c["parsed"]], [c["parsed"]]))
        elif c["parsed"] in c["arch"][0]:
            inputs = [("rendered", c["arch"], c["problem"])]
        for label, arch_files, prob_files in inputs:
            work = tl_list(root, prob_files)
            with_ert, err1, _ = evaluate(args.ffm, tl_list(root, arch_files + [c["ert"]]),
                                         work, mapping)
            est, err2, _ = evaluate(args.ffm, tl_list(root, arch_files), work, mapping)
            if with_ert is None or est is None:
                failed += 1 if est is None and with_ert is not None else 0
                print(f"| {c['name']} | {label} | "
                      f"{with_ert['energy_j'] * 1e12:.2f} | " if with_ert else
                      f"| {c['name']} | {label} | {err1} | ", end="")
                print(f"{err2 or ''} | | | |")
                continue
            a = {x["name"]: x["energy_j"] for x in with_ert["per_component"]}
            b = {x["name"]: x["energy_j"] for x in est["per_component"]}
            per = []
            for name, e in a.items():
                if e > 0 and name in b:
                    per.append(f"{name} {b[name] / e:.3f}")
            ea, eb = with_ert["energy_j"], est["energy_j"]
            print(f"| {c['name']} | {label} | {ea * 1e12:.2f} | {eb * 1e12:.2f} | "
                  f"{eb / ea:.4f} | {eb * 1e12 / tl_energy:.4f} | {', '.join(per)} |")
    return failed


def map_table(root, args):
    """ffm map under Timeloop's constraints (EDP) against the mapping
    Timeloop's mapper stored: Timeloop's EDP in its model, that mapping's
    EDP in ffm's model, ffm's best EDP in ffm's model."""
    print()
    print("| case | Timeloop's mapper: EDP (J·cycle), Timeloop's model | the same mapping, ffm's model | ffm map: EDP, ffm's model | ffm / Timeloop's mapping (one model) | ffm map time (s), peak memory |")
    print("|---|---|---|---|---|---|")
    failed = 0
    for c in CASES:
        if not c["mapper"] or (args.only and args.only not in c["name"]):
            continue
        levels, cycles = parse_stats(os.path.join(root, c["stats"]))
        tl_energy = 0.0
        for lv in levels:
            tl_energy += lv["leak"] + lv.get("compute_energy", 0.0)
            for ds in lv["spaces"].values():
                tl_energy += ds.get("energy", 0.0)
        tl_edp = tl_energy * 1e-12 * cycles
        arch = tl_list(root, c["arch"] + [c["ert"]])
        work = tl_list(root, c["problem"])
        same, err, _ = evaluate(args.ffm, arch, work, tl_list(root, [c["mapping"]]))
        out = f"/tmp/ffm-tl-map-{os.getpid()}.json"
        cmd = ["/usr/bin/time", "-f", "%e %M", args.ffm, "map", "--arch", arch,
               "--workload", work, "--json", out, "--max-memory", args.max_memory,
               "--quiet"]
        theirs = same["energy_j"] * same["latency_s"] / 1e-9 if same else float("nan")
        note = ""
        for attempt in (0, 1):
            try:
                p, secs = run(cmd, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                p = None
                break
            tail = p.stderr.strip().splitlines()
            wall, rss = tail[-1].split() if tail else ("?", "0")
            msg = [l for l in tail[:-1] if "warning" not in l
                   and not l.startswith("Command exited")]
            if p.returncode == 0 or attempt == 1 or not msg \
               or "needs more memory than the budget" not in msg[-1]:
                break
            # Timeloop's clusters keep the tile search from pruning rows
            # early: search with every instance paying its access, then
            # evaluate the mapping found with Timeloop's counting.
            note = (f" (with Timeloop's clusters the search passed the "
                    f"{args.max_memory} budget after {wall} s: searched "
                    f"with ffm_conventions=clusters, evaluated with "
                    f"Timeloop's counting)")
            cmd = cmd[:cmd.index("--workload")] + [
                "--arch-param", "ffm_conventions=clusters"] + \
                cmd[cmd.index("--workload"):]
        if p is None:
            print(f"| {c['name']} | {tl_edp:.4g} | {theirs:.4g} | timed out after "
                  f"{args.timeout:.0f} s | | |")
            failed += 1
            continue
        if p.returncode != 0 or not os.path.exists(out):
            print(f"| {c['name']} | {tl_edp:.4g} | {theirs:.4g} | failed: "
                  f"{msg[-1] if msg else '?'} | | {wall} s, {int(rss) // 1024} MiB |")
            failed += 1
            continue
        if note:
            r, err, _ = evaluate(args.ffm, arch, work, out)
            if r is None:
                print(f"| {c['name']} | {tl_edp:.4g} | {theirs:.4g} | {err} | | |")
                failed += 1
                continue
        else:
            with open(out) as f:
                r = json.load(f)
        os.unlink(out)
        mine = r["energy_j"] * r["latency_s"] / 1e-9
        print(f"| {c['name']} | {tl_edp:.4g} | {theirs:.4g} | {mine:.4g}{note} | "
              f"{mine / theirs:.4f} | {wall} s, {int(rss) // 1024} MiB |")
    return failed


if __name__ == "__main__":
    sys.exit(main())
