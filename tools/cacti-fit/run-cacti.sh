#!/bin/bash
# run-cacti.sh: runs CACTI 7 over the grid of SRAM organisations that the
# sram estimator's table holds (estimators/sram/cacti-grid.tsv), or over
# the off-grid points its error is measured at. A tool, not part of the
# build or of CI: ffm ships CACTI's numbers, never its code, and this
# script neither fetches nor builds CACTI.
#
#   tools/cacti-fit/run-cacti.sh CACTI_DIR OUT.tsv [grid|check]
#
# CACTI_DIR is a folder holding a CACTI 7 executable named `cacti` and
# CACTI's tech_params/ folder (CACTI reads them relative to where it runs).
# The table was made with github.com/HewlettPackard/cacti at commit
# 1ffd8df. OUT.tsv gets one row per organisation; rows already in OUT.tsv
# are not run again, so an interrupted run resumes. `check` runs the
# off-grid points docs/estimators.md compares the estimator against: 20
# chosen ones (odd sizes, banks and ports together, nodes outside the
# table) and 80 drawn at random inside the stated range.
#
# The CACTI configuration is the one Accelergy's CACTI plug-in writes for its
# SRAM class (a scratchpad "ram", low-standby-power ITRS cells and
# periphery, 300 K, "fast" access, design objective leakage, one
# read-write port per port asked): the stored ERTs of the
# timeloop-accelergy-exercises were made with it, and this configuration
# reproduces them to CACTI's printed digits (e.g. 64 b x 16384 at 32 nm:
# read 18.1554 pJ, write 14.1095 pJ, leakage 5.64529 uW).
set -euo pipefail

cacti_dir=$(cd "${1:?usage: $0 CACTI_DIR OUT.tsv [grid|check]}" && pwd)
out=${2:?usage: $0 CACTI_DIR OUT.tsv [grid|check]}
mode=${3:-grid}
cacti="$cacti_dir/cacti"
[ -x "$cacti" ] && [ -d "$cacti_dir/tech_params" ] \
  || { echo "$0: $cacti_dir holds no executable 'cacti' and tech_params/" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ffm-cacti.XXXXXX")
trap 'rm -rf "$work"' EXIT

base="$work/base.cfg"
cat >"$base" <<'CFG'
-Array Power Gating - "false"
-WL Power Gating - "false"
-CL Power Gating - "false"
-Bitline floating - "false"
-Interconnect Power Gating - "false"
-Power Gating Performance Loss 0.01
-exclusive read port 0
-exclusive write port 0
-single ended read ports 0
-page size (bits) 0
-burst length 8
-internal prefetch width 8
-Data array cell type - "itrs-lstp"
-Data array peripheral type - "itrs-lstp"
-Tag array cell type - "itrs-lstp"
-Tag array peripheral type - "itrs-lstp"
-operating temperature (K) 300
-cache type "ram"
-tag size (b) "default"
-associativity 1
-access mode (normal, sequential, fast) - "fast"
-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:0:1000000:0:0
-deviate (delay, dynamic power, leakage power, cycle time, area) 20:10:100000:100:100
-NUCAdesign objective (weight delay, dynamic power, leakage power, cycle time, area) 100:100:0:0:100
-NUCAdeviate (delay, dynamic power, leakage power, cycle time, area) 10:10000:10000:10000:10000
-Optimize ED or ED^2 (ED, ED^2, NONE): "ED^2"
-Cache model (NUCA, UCA)  - "UCA"
-NUCA bank count 0
-Wire signaling (fullswing, lowswing, default) - "Global_30"
-Wire inside mat - "semi-global"
-Wire outside mat - "semi-global"
-Interconnect projection - "normal"
-Core count 1
-Cache level (L2/L3) - "L3"
-Add ECC - "false"
-Print level (DETAILED, CONCISE) - "CONCISE"
-Print input parameters - "false"
-Force cache config - "false"
-Ndwl 1
-Ndbl 1
-Nspd 0
-Ndcm 1
-Ndsam1 0
-Ndsam2 0
-dram_type "DDR3"
-io state "WRITE"
-addr_timing 1.0
-mem_density 4 Gb
-bus_freq 800 MHz
-duty_cycle 1.0
-activity_dq 1.0
-activity_ca 0.5
-num_dq 72
-num_dqs 18
-num_ca 25
-num_clk  2
-num_mem_dq 2
-mem_data_width 8
-rtt_value 10000
-ron_value 34
-tflight_value
-num_bobs 1
-capacity 80
-num_channels_per_bob 1
-first metric "Cost"
-second metric "Bandwidth"
-third metric "Energy"
-DIMM model "ALL"
-mirror_in_bob "F"
CFG

header="node_nm	capacity_bytes	block_bytes	banks	ports	read_pj	write_pj	leak_mw	area_mm2	cycle_ns"
[ -s "$out" ] || echo "$header" >"$out"

# One CACTI run; appends a row (or a row of "nan" when CACTI finds no
# organisation, so that the point is not tried again).
run_point() {
  local node=$1 cap=$2 block=$3 banks=$4 ports=$5
  local key="$node	$cap	$block	$banks	$ports	"
  if grep -q "^$key" "$out"; then return; fi
  local cfg="$work/p.cfg"
  cp "$base" "$cfg"
  printf -- '-size (bytes) %s\n-read-write port %s\n-block size (bytes) %s\n-technology (u) %s\n-output/input bus width %s\n-UCA bank count %s\n' \
    "$cap" "$ports" "$block" "$(awk -v n="$node" 'BEGIN { printf "%.3f", n / 1000 }')" \
    $((block * 8)) "$banks" >>"$cfg"
  rm -f "$cfg.out"
  if (cd "$cacti_dir" && timeout 600 "$cacti" -infile "$cfg" >"$work/p.log" 2>&1) \
     && [ -s "$cfg.out" ]; then
    # CSV columns: read (nJ) 9, write (nJ) 10, standby leakage per bank
    # (mW) 11, area (mm2) 12, random cycle time (ns) 7.
    awk -F, -v key="$key" -v banks="$banks" 'NR == 2 {
      printf "%s%.6g\t%.6g\t%.6g\t%.6g\t%.6g\n", key, $9 * 1000, $10 * 1000,
             $11 * banks, $12, $7 }' "$cfg.out" >>"$out"
  else
    printf '%snan\tnan\tnan\tnan\tnan\n' "$key" >>"$out"
  fi
}

# Capacities 256 B .. 128 MiB: powers of two and the 1.5x points between.
capacities() {
  local k c
  for k in $(seq 8 27); do
    c=$((1 << k)); echo "$c"
    [ "$k" -lt 27 ] && echo $((c + c / 2))
  done
}

if [ "$mode" = grid ]; then
  for node in 45 32 22; do
    for cap in $(capacities); do
      for block in 4 8 16 32 64 128 256; do
        [ $((cap / block)) -ge 64 ] && run_point "$node" "$cap" "$block" 1 1
      done
    done
  done
  # Banks and ports: factors over the one-bank one-port organisation, at
  # two nodes (the factors change little with the node); banks at every
  # power-of-two capacity and every word (CACTI's choice of organisation
  # makes them irregular in both), ports on a coarser grid.
  for node in 45 22; do
    for k in $(seq 10 27); do
      cap=$((1 << k))
      for block in 4 8 16 32 64 128 256; do
        for banks in 2 4 8 16 32; do
          [ $((cap / block / banks)) -ge 64 ] && run_point "$node" "$cap" "$block" "$banks" 1
        done
      done
    done
    for k in 10 13 16 19 22 25 27; do
      cap=$((1 << k))
      for block in 8 128; do
        for ports in 2 4; do
          [ $((cap / block)) -ge 64 ] && run_point "$node" "$cap" "$block" 1 "$ports"
        done
      done
    done
  done
else
  # Off-grid points: odd capacities and widths, mixed banks and ports,
  # nodes between the tabulated ones.
  for spec in "45 3000 8 1 1" "45 100000 16 1 1" "32 700000 32 2 1" \
              "22 5000000 128 16 1" "22 40000000 128 16 1" "28 2000000 64 4 1" \
              "40 50000 8 1 2" "55 300000 32 8 1" "65 12000 4 1 1" \
              "32 90000000 64 8 1" "45 6000000 16 1 1" "22 200000 256 1 1" \
              "36 1200 4 1 1" "45 20000 32 4 2" "24 10000000 128 32 1" \
              "60 1000000 64 2 1" "32 160000 8 1 1" "45 600 4 1 1" \
              "22 2500000 32 1 4" "50 30000000 128 16 1"; do
    run_point $spec
  done
  # And 80 points drawn at random inside the range docs/estimators.md
  # states (22-45 nm, 512 B to 64 MiB, words of 4-256 B, 1-16 banks, 1 or
  # 2 ports), from a fixed seed (Park-Miller, exact in awk's doubles, so
  # every awk draws the same points).
  awk 'BEGIN {
    x = 43
    for (i = 0; i < 80; i++) {
      x = (x * 16807) % 2147483647; node = 22 + int(x / 2147483647 * 24)
      x = (x * 16807) % 2147483647; cap = int(exp(log(512) + x / 2147483647 * log(131072)))
      x = (x * 16807) % 2147483647; block = 2 ^ (2 + int(x / 2147483647 * 7))
      while (cap / block < 64) block /= 2
      x = (x * 16807) % 2147483647; banks = 2 ^ int(x / 2147483647 * 5)
      while (cap / block / banks < 64) banks /= 2
      x = (x * 16807) % 2147483647; ports = x / 2147483647 < 0.15 ? 2 : 1
      print node, cap, block, banks, ports
    } }' | while read -r spec; do
    # shellcheck disable=SC2086
    run_point $spec
  done
fi
