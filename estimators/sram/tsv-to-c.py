#!/usr/bin/env python3
"""tsv-to-c.py: the CACTI grid (cacti-grid.tsv) as a C table for the sram
estimator, at build time: tsv-to-c.py IN.tsv OUT.c

Rows CACTI found no organisation for ("nan") are left out. Numbers are
copied as written in the TSV, so the C table holds exactly the data file."""
import sys

COLUMNS = ["node_nm", "capacity_bytes", "block_bytes", "banks", "ports",
           "read_pj", "write_pj", "leak_mw", "area_mm2", "cycle_ns"]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="ascii") as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    header = lines[0].split("\t")
    if header != COLUMNS:
        sys.exit(f"{src}: header {header} is not {COLUMNS}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(COLUMNS):
            sys.exit(f"{src}:{number}: {len(fields)} fields, expected {len(COLUMNS)}")
        if "nan" in fields:
            continue
        for field in fields:
            float(field)  # every field must read as a number
        rows.append(fields)
    with open(dst, "w", encoding="ascii") as out:
        out.write("/* Generated from cacti-grid.tsv by tsv-to-c.py at build "
                  "time: do not edit. */\n")
        out.write('#include "cacti-table.h"\n\n')
        out.write("const CactiRow cacti_rows[] = {\n")
        for r in rows:
            out.write("  { %s },\n" % ", ".join(r))
        out.write("};\n\n")
        out.write("const guint cacti_n_rows = G_N_ELEMENTS (cacti_rows);\n")


if __name__ == "__main__":
    main()
