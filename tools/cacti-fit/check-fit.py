#!/usr/bin/env python3
"""check-fit.py: the sram estimator against CACTI at points off its grid.

    tools/cacti-fit/check-fit.py CHECK.tsv FFM

CHECK.tsv is what `run-cacti.sh CACTI_DIR CHECK.tsv check` writes (CACTI's
answers at odd capacities, words, banks, ports and nodes); FFM the ffm
command. For each point the SRAM of that shape is estimated (width = the
word in bits, depth = capacity / word) and the relative error of read
energy, write energy, leakage and area printed as a Markdown table, then
the largest, the 90th-percentile and the median error of each, for the
points inside the stated range (22-45 nm; banks or ports, not both) and
for each kind of point outside it."""
import csv
import json
import statistics
import subprocess
import sys


def estimate(ffm, node, cap, block, banks, ports):
    width = block * 8
    depth = cap / block
    args = [ffm, "estimate", "SRAM", f"width={width:g}", f"depth={depth:.17g}",
            f"n_banks={banks:g}", f"n_rdwr_ports={ports:g}", f"technology={node:g}",
            "--json", "-"]
    out = json.loads(subprocess.run(args, capture_output=True, text=True,
                                    check=True).stdout)
    actions = {a["action"]: a["energy_j"]["value"] for a in out["actions"]}
    return (actions["read"] * 1e12, actions["write"] * 1e12,
            out["leak_power_w"]["value"] * 1e3, out["area_m2"]["value"] * 1e6)


def main():
    path, ffm = sys.argv[1], sys.argv[2]
    rows = [r for r in csv.DictReader(open(path), delimiter="\t")
            if r["read_pj"] != "nan"]
    groups = {}
    print("| node (nm) | capacity (B) | word (B) | banks | ports | read | write | "
          "leakage | area |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        node, cap, block, banks, ports = (float(r[k]) for k in
                                          ("node_nm", "capacity_bytes", "block_bytes",
                                           "banks", "ports"))
        ours = estimate(ffm, node, cap, block, banks, ports)
        cacti = [float(r[k]) for k in ("read_pj", "write_pj", "leak_mw", "area_mm2")]
        if not 22 <= node <= 45:
            group = "nodes outside 22-45 nm"
        elif banks > 1 and ports > 1:
            group = "banks and ports together"
        else:
            group = "inside the range"
        errors = groups.setdefault(group, {"read": [], "write": [], "leakage": [],
                                           "area": []})
        cells = []
        for name, o, c in zip(errors, ours, cacti):
            e = o / c - 1
            errors[name].append(abs(e))
            cells.append(f"{100 * e:+.1f} %")
        print(f"| {node:g} | {cap:g} | {block:g} | {banks:g} | {ports:g} | "
              + " | ".join(cells) + " |")
    for group, errors in groups.items():
        print()
        print(f"{group}:")
        for name, values in errors.items():
            values = sorted(values)
            p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
            print(f"  {name}: largest {100 * values[-1]:.1f} %, 90th percentile "
                  f"{100 * p90:.1f} %, median {100 * statistics.median(values):.1f} % "
                  f"over {len(values)} points")

if __name__ == "__main__":
    main()
