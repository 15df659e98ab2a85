/* cacti-table.h: the CACTI runs the sram estimator interpolates
 * (cacti-grid.tsv, compiled into cacti-table.c at build time). */
#pragma once

#include <glib.h>

/* One CACTI 7 run: a scratchpad SRAM of @capacity_bytes with
 * @block_bytes-byte words, @banks banks and @ports read-write ports at
 * @node_nm, and what CACTI answered for it. */
typedef struct {
  double node_nm;
  double capacity_bytes;
  double block_bytes;
  double banks;
  double ports;
  double read_pj;       /* dynamic read energy per access */
  double write_pj;      /* dynamic write energy per access */
  double leak_mw;       /* standby leakage, all banks */
  double area_mm2;
  double cycle_ns;      /* random cycle time */
} CactiRow;

extern const CactiRow cacti_rows[];
extern const guint cacti_n_rows;
