#!/bin/sh
# test-generator-layers.sh BUILD [MODULE PATTERN FILE...]: the files of a
# module of libffm split into files form no circle. They are listed top to
# bottom (as the module's private header lists them); each file's object
# may call (nm -u) only functions that files below it define, so a call
# that runs back up, which would close a circle, fails here and names the
# file, the function and its file. Every file of core/ named PATTERN must
# be in the list. With BUILD alone: the pmapping generator, listed here
# (ffm-pmapping-private.h); another module gives its name, the pattern of
# its files and its files, top first (the workload loader: tests/meson.build).
set -eu
build=$1
objdir=$(find "$build/core" -maxdepth 1 -type d -name 'libffm.so*.p' | head -n 1)
[ -n "$objdir" ] || { echo "test-generator-layers: no libffm objects under $build/core" >&2; exit 1; }
shift
if [ $# -gt 0 ]; then
  module=$1
  pattern=$2
  shift 2
  layers=$(printf '%s\n' "$@")
else
module=generator
pattern='ffm-pmapping*.c'
layers="
ffm-pmapping.c
ffm-pmapping-waves.c
ffm-pmapping-set.c
ffm-pmapping-signature.c
ffm-template-result-bytes.c
ffm-pmapping-storage.c
ffm-pmapping-template.c
ffm-pmapping-tiles.c
ffm-pmapping-tiles-extend.c
ffm-pmapping-tiles-leaves.c
ffm-pmapping-tiles-taken.c
ffm-pmapping-tiles-incumbent.c
ffm-pmapping-tiles-dfs.c
ffm-pmapping-tiles-table.c
ffm-pmapping-tiles-leaf.c
ffm-pmapping-tiles-group-front.c
ffm-pmapping-tiles-units.c
ffm-pmapping-tiles-joinable.c
ffm-pmapping-tiles-setup.c
ffm-pmapping-tiles-chains.c
ffm-pmapping-terms.c
ffm-pmapping-imperfect.c
ffm-pmapping-rows.c
ffm-pmapping-options.c
"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ffm-layers-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for f in $layers; do
  [ -f "$objdir/$f.o" ] \
    || { echo "test-generator-layers: $objdir/$f.o is missing (a $module file renamed? update the list)" >&2; exit 1; }
done

# Which layer defines each function: "SYMBOL LAYER".
i=0
for f in $layers; do
  i=$((i + 1))
  nm --defined-only "$objdir/$f.o" | awk -v i="$i" '$2 == "T" { print $3, i }'
done | sort > "$tmp/defined.txt"

# Every file of the module is in the list.
for c in $(find "$(dirname "$0")/../core" -maxdepth 1 -name "$pattern" -exec basename {} \;); do
  echo "$layers" | grep -qx "$c" \
    || { echo "test-generator-layers: $c is not in the list of layers" >&2; exit 1; }
done

failed=0
i=0
for f in $layers; do
  i=$((i + 1))
  nm -u "$objdir/$f.o" | awk '{ print $NF }' | sort -u \
    | join - "$tmp/defined.txt" > "$tmp/uses.txt" || true
  while read -r sym layer; do
    if [ "$layer" -lt "$i" ]; then
      callee=$(echo "$layers" | grep . | sed -n "${layer}p")
      echo "test-generator-layers: $f calls $sym of $callee, which is above it: a circle" >&2
      failed=1
    fi
  done < "$tmp/uses.txt"
done
[ "$failed" = 0 ] || exit 1
echo "test-generator-layers: the $module's $(echo "$layers" | grep -c .) files, every call runs down"
