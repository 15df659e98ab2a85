#!/usr/bin/env python3
"""Writes the workload library's JSON files into workloads/.

Run by developers after changing a model here (python3
workloads/generators/generate.py); never by the build, the tests or users:
the committed JSON files are what ffm loads. Python 3.7+, standard library
only.

Writes: the transformer decoder layers (transformers.py), the
compute-in-memory per-layer networks (cim.py, cim_layers.py), matmul-chain,
mobilenet-28 and mamba (small.py). matmuls.json, matvecs.json and
three-matmuls.json are written by hand and not touched here.

Before writing, the layer tables are checked against the reference's
Einsum counts and sums (cim_layers.REFERENCE_TOTALS)."""

import os
import sys

sys.dont_write_bytecode = True  # keep workloads/generators free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cim  # noqa: E402
import cim_layers  # noqa: E402
import ffmjson  # noqa: E402
import small  # noqa: E402
import transformers  # noqa: E402


def main():
    out_dir = os.path.dirname(HERE)
    for name, layers in cim_layers.LAYERS.items():
        got = cim_layers.totals(layers)
        want = cim_layers.REFERENCE_TOTALS[name]
        if got != want:
            sys.exit("%s: layer table gives (Einsums, MACs, bits) %s, reference %s"
                     % (name, got, want))
    workloads = (transformers.all_models()
                 + [cim.workload(name) for name in cim_layers.LAYERS]
                 + [small.matmul_chain(), small.mobilenet_28(), small.mamba()])
    for workload in workloads:
        path = os.path.join(out_dir, workload["name"] + ".json")
        ffmjson.write(path, workload)
        print("wrote", os.path.relpath(path))


if __name__ == "__main__":
    main()
