#!/usr/bin/env python3
"""compare-erts.py: ffm's component estimators against the energy tables
(ERTs) Accelergy stored in the timeloop-accelergy-exercises.

    tools/estimators/compare-erts.py EXERCISES_DIR FFM [--markdown | --csv]

EXERCISES_DIR is a copy of github.com/Accelergy-Project/timeloop-accelergy-
exercises (its workspace/ folder). FFM is the ffm command. For every stored
ERT (ref_outputs/, outputs/, ref-output/) that has the flattened
architecture beside it, each component's class and attributes are read from
the flattened architecture, the compound classes from the stored
parsed-processed-input.yaml (the definitions Accelergy used for that ERT)
or, where none was stored, the design's own component files,
and `ffm estimate CLASS ATTR=VALUE... --components FILE --action A --json -`
is compared with the ERT's energy of A (pJ). The leak action is an energy
per global cycle in Accelergy: ffm's leakage power times
global_cycle_seconds. Prints one row per (design, component, action) and
a summary per class; --csv prints the rows as CSV.

Not part of the build or of CI (it needs the exercises and PyYAML)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import yaml


class TagLoader(yaml.SafeLoader):
    """Reads the front end's tagged YAML (!Component ...) as plain data."""


def _tagged(loader, suffix, node):
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


TagLoader.add_multi_constructor("!", _tagged)


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=TagLoader)


def stored_runs(root):
    """(ERT path, flattened architecture path, compound source) per run."""
    for dirpath, _, files in os.walk(root):
        erts = [f for f in files if f.endswith("ERT.yaml")]
        flats = [f for f in files if f.endswith("flattened_architecture.yaml")]
        if not erts or not flats or "/input" in dirpath:
            continue
        parsed = os.path.join(dirpath, "parsed-processed-input.yaml")
        source = parsed if os.path.exists(parsed) else own_components(dirpath)
        for ert in sorted(erts):
            yield (os.path.join(dirpath, ert), os.path.join(dirpath, sorted(flats)[0]),
                   source)


def own_components(dirpath):
    """The design's own compound class files, for runs stored without
    parsed-processed-input.yaml: the nearest inputs/components.yaml,
    input/components/ or arch/components/ above the run's folder."""
    here = dirpath
    for _ in range(3):
        for rel in ("inputs/components.yaml", "input/components", "arch/components"):
            candidate = os.path.join(here, rel)
            if os.path.exists(candidate):
                return candidate
        here = os.path.dirname(here)
    return None


def attribute_text(value):
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def ffm_estimate(ffm, cls, attrs, action, components):
    args = [ffm, "estimate", cls]
    for key, value in attrs.items():
        if value is None or isinstance(value, (dict, list)):
            continue
        args.append(f"{key}={attribute_text(value)}")
    args += ["--action", action, "--json", "-"]
    if components:
        args += ["--components", components]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip().splitlines()[-1] if run.stderr else "failed"
    return json.loads(run.stdout), None


def short(path, root):
    rel = os.path.relpath(path, root)
    rel = re.sub(r"(example_designs/)+", "", rel)
    rel = re.sub(r"/(ref_outputs|outputs|ref-output|output)/.*", "", rel)
    return rel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises")
    parser.add_argument("ffm")
    parser.add_argument("--csv", action="store_true")
    parser.add_argument("--by-component", action="store_true",
                        help="one row per design and component, the ratio of each "
                             "action in it; runs with the same rows are merged")
    options = parser.parse_args()

    rows = []
    skipped = 0
    for ert_path, flat_path, parsed in stored_runs(options.exercises):
        ert = load(ert_path)
        flat = load(flat_path)
        components = None
        own = None
        if parsed is not None and not parsed.endswith("parsed-processed-input.yaml"):
            own = parsed
        elif parsed is not None:
            spec = load(parsed)
            if spec.get("compound_components"):
                tmp = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
                yaml.safe_dump({"compound_components": spec["compound_components"]}, tmp,
                               sort_keys=False)
                tmp.close()
                components = tmp.name
        local = {c["name"]: c for c in flat["architecture"].get("local", [])}
        for table in ert["ERT"]["tables"]:
            comp = local.get(table["name"])
            if comp is None:
                continue
            attrs = comp.get("attributes") or {}
            # Timeloop's "class: storage" names the Accelergy class as subclass.
            cls = comp.get("subclass") or comp["class"]
            cycle = float(attrs.get("global_cycle_seconds", 1e-9) or 1e-9)
            for action in table["actions"]:
                stored = float(action["energy"])
                name = action["name"]
                # Energies that depend on action arguments (address_delta,
                # data_delta: the 2020 tutorials' primitive library) are
                # not modelled: counted, not compared.
                arguments = set((action.get("arguments") or {}).keys())
                if arguments - {"global_cycle_seconds", "action_latency_cycles"}:
                    skipped += 1
                    continue
                est, error = ffm_estimate(options.ffm, cls, attrs, name,
                                          components or own)
                ours = None
                if est is not None:
                    if name == "leak":
                        ours = (est["leak_power_w"]["value"] or 0) * cycle * 1e12
                    else:
                        ours = est["actions"][0]["energy_j"]["value"] * 1e12
                rows.append({
                    "design": short(ert_path, options.exercises),
                    "component": re.sub(r"\[.*\]$", "", table["name"]).split(".")[-1],
                    "class": cls, "action": name, "ert_pj": stored,
                    "ffm_pj": ours, "error": error,
                })
        if components:
            os.unlink(components)

    if options.csv:
        print("design,component,class,action,ert_pj,ffm_pj,ratio,error")
        for r in rows:
            ratio = r["ffm_pj"] / r["ert_pj"] if r["ffm_pj"] is not None and r["ert_pj"] else ""
            print(f'{r["design"]},{r["component"]},{r["class"]},{r["action"]},'
                  f'{r["ert_pj"]},{r["ffm_pj"] if r["ffm_pj"] is not None else ""},'
                  f'{ratio},"{r["error"] or ""}"')
        return
    if options.by_component:
        print_by_component(rows, skipped)
        return
    print("| design | component | class | action | ERT (pJ) | ffm (pJ) | ffm / ERT |")
    print("|---|---|---|---|---|---|---|")
    by_class = {}
    for r in rows:
        if r["ffm_pj"] is None:
            cell = f'error: {r["error"]}'
            ratio = "-"
        else:
            cell = f'{r["ffm_pj"]:.6g}'
            ratio = f'{r["ffm_pj"] / r["ert_pj"]:.3f}' if r["ert_pj"] else (
                "both 0" if r["ffm_pj"] == 0 else "ERT 0")
            if r["ert_pj"]:
                by_class.setdefault((r["class"], r["action"] == "leak"), []).append(
                    r["ffm_pj"] / r["ert_pj"])
        print(f'| {r["design"]} | {r["component"]} | {r["class"]} | {r["action"]} | '
              f'{r["ert_pj"]:.6g} | {cell} | {ratio} |')
    print()
    print(f"{skipped} ERT entries with action arguments (address_delta, data_delta) "
          "were not compared.")
    print()
    print("| class | energies or leakage | n | min | median | max |")
    print("|---|---|---|---|---|---|")
    for (cls, leak), ratios in sorted(by_class.items()):
        print(f'| {cls} | {"leakage" if leak else "energies"} | {len(ratios)} | '
              f'{min(ratios):.3f} | {statistics.median(ratios):.3f} | {max(ratios):.3f} |')


def ratio_text(r):
    if r["ffm_pj"] is None:
        return None
    if not r["ert_pj"]:
        return "0 / 0" if r["ffm_pj"] == 0 else "ERT 0"
    return f'{r["ffm_pj"] / r["ert_pj"]:.3f}'


def print_by_component(rows, skipped):
    """Per design and component, `action ratio` for each action compared,
    the reason for those that could not be; designs whose component rows
    are identical are merged."""
    designs = {}
    for r in rows:
        comps = designs.setdefault(r["design"], {})
        comps.setdefault((r["component"], r["class"]), []).append(r)
    merged = {}
    for design, comps in designs.items():
        lines = []
        for (component, cls), rs in comps.items():
            cells, errors = [], set()
            order = ["read", "write", "update", "compute", "leak"]
            rs = sorted(rs, key=lambda r: (order.index(r["action"]) if r["action"] in order
                                           else len(order), r["action"]))
            for r in rs:
                t = ratio_text(r)
                if t is None:
                    errors.add(re.sub(r" \(known classes: .*\)$", "",
                                      r["error"].split(": ", 2)[-1]) if r["error"]
                               else "failed")
                else:
                    cells.append(f'{r["action"]} {t}')
            text = ", ".join(dict.fromkeys(cells))
            if errors:
                text += ("; " if text else "") + "not compared: " + "; ".join(sorted(errors))
            lines.append((component, cls, text))
        merged.setdefault(tuple(lines), []).append(design)
    print("| designs | component | class | ffm / ERT per action |")
    print("|---|---|---|---|")
    for lines, names in merged.items():
        first = True
        for component, cls, text in lines:
            print(f'| {"<br>".join(names) if first else ""} | {component} | {cls} | {text} |')
            first = False
    print()
    print(f"{skipped} ERT entries with action arguments (address_delta, data_delta) "
          "were not compared.")


if __name__ == "__main__":
    sys.exit(main())
