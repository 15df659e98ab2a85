#!/bin/sh
# test-header-tiers.sh BUILD SOURCE: the header tiers of docs/layout.md hold.
#
#   1. Plugins (plugins/, arch-models/, estimators/, the examples in
#      docs/examples/, the fixture plugins) include public headers only, as
#      <ffm/NAME.h>, and otherwise system headers or their own folder's.
#   2. The public headers include each other as <ffm/NAME.h> and nothing of
#      ffm's but public headers.
#   3. The command (cli/) includes public headers, internal headers
#      (core/internal/) and its own, never a private header of core.
#   4. The built plugins import no symbol of libffm that the public headers
#      do not declare (an internal symbol, exported for the command and the
#      tests, stays out of their reach unless declared by hand).
#   5. libffm exports nothing that neither a public nor an internal header
#      declares.
set -eu
build=$1
src=$2
public="$src/core/include/ffm"
internal="$src/core/internal"
probe=$(mktemp -d "${TMPDIR:-/tmp}/ffm-tiers-XXXXXX")
trap 'rm -rf "$probe"' EXIT
errors="$probe/errors.txt"
: > "$errors"

fail () {
  echo "test-header-tiers: $*" >> "$errors"
}

# check_includes ALLOWED FILE...: every #include of each FILE is a system
# header, <ffm/PUBLIC.h>, or a quoted header found in the file's own folder
# or one of the folders ALLOWED (colon-separated). Prints what is not.
check_includes () {
  allowed=$1
  shift
  { ls "$public"; echo "ffm-version.h"; } | sed 's/\.in$//' > "$probe/public-names.txt"
  # every header of the files' folders and of ALLOWED, as FOLDER/NAME
  { for f in "$@"; do dirname "$f"; done; echo "$allowed" | tr ':' '\n'; } \
    | grep . | sort -u | while IFS= read -r d; do
        find "$d" -maxdepth 1 -name '*.h' 2>/dev/null
      done | sort -u > "$probe/headers.txt"
  grep -Hn '^[[:space:]]*#[[:space:]]*include' "$@" /dev/null | awk -v allowed="$allowed" '
    FILENAME == ARGV[1] { public[$0] = 1; next }
    FILENAME == ARGV[2] { header[$0] = 1; next }
    {
      split ($0, part, ":"); file = part[1]; line = part[2]
      text = substr ($0, length (file) + length (line) + 3)
      if (!match (text, /[<"][^>"]*[>"]/)) { print file ":" line ": unreadable include"; next }
      inc = substr (text, RSTART, RLENGTH)
      name = substr (inc, 2, length (inc) - 2)
      dir = file; sub (/\/[^\/]*$/, "", dir)
      if (inc ~ /^<ffm\//) {
        if (!(substr (name, 5) in public)) print file ":" line ": " inc " is not a public header"
      } else if (inc ~ /^<ffm/) {
        print file ":" line ": " inc ": include the public headers as <ffm/NAME.h>"
      } else if (inc ~ /^"/) {
        ok = (dir "/" name) in header
        n = split (allowed, dirs, ":")
        for (i = 1; i <= n; i++)
          if (dirs[i] != "" && (dirs[i] "/" name) in header)
            ok = 1
        if (!ok) print file ":" line ": " inc " is not a header this file'"'"'s tier may include"
      }
    }' "$probe/public-names.txt" "$probe/headers.txt" -
}

report () {   # records each line of stdin as a failure
  sed 's/^/test-header-tiers: /' >> "$errors"
}

# 1. plugins (the fixture plugins share one header of their own)
# shellcheck disable=SC2046
check_includes "" $(find "$src/plugins" "$src/arch-models" "$src/estimators" "$src/docs/examples" -name '*.[ch]' | sort) \
  | report
# shellcheck disable=SC2046
check_includes "$src/tests/fixtures/plugins" $(find "$src/tests/fixtures/plugins" -name '*.[ch]' | sort) \
  | report

# 2. public headers: their own tier only, written <ffm/NAME.h>
grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$public"/*.h "$public"/*.h.in \
  | sed 's|$| (public headers include <ffm/NAME.h>)|' | report
check_includes "" "$public"/*.h "$public"/*.h.in | report

# 3. the command
# shellcheck disable=SC2046
check_includes "$internal:$build/core/internal" $(find "$src/cli" -name '*.[ch]' | sort) | report

# The checks above must see what they check: a plugin that includes an
# internal or private header is caught (the rule itself is tested).
printf '#include <ffm/ffm.h>\n#include "ffm-pmapping-jobs.h"\n#include "../../core/ffm-pmapping-private.h"\n#include <ffm/ffm-json-util.h>\n#include <ffm.h>\n' \
  > "$probe/bad.c"
[ "$(check_includes "" "$probe/bad.c" | wc -l)" = 4 ] \
  || fail "the include check does not catch a plugin's internal, private and old-style includes"

# 4. and 5. symbols
declared () {   # the ffm_ names that headers in folder $1 declare or define (ffm-version.h.in too)
  cat "$1"/*.h "$1"/*.h.in 2>/dev/null | grep -oE '\bffm_[a-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*(//' | sort -u
}
declared "$public" > "$probe/public.txt"
declared "$internal" > "$probe/internal.txt"
[ -s "$probe/public.txt" ] || fail "no declaration found in $public"
libffm=$(find "$build/core" -maxdepth 1 -name 'libffm.so.*.*' | head -n 1)
[ -n "$libffm" ] || fail "no libffm in $build/core"
plugins=$(find "$build/plugins" "$build/arch-models" "$build/estimators" -name 'ffm-*.so' | sort)
n_plugins=$(echo "$plugins" | grep -c . || true)
for so in $plugins; do
  nm -D --undefined-only "$so" | awk '{ print $NF }' | grep '^ffm_' | sed 's/@.*//' | sort -u \
    | comm -23 - "$probe/public.txt" \
    | sed "s|^|$(basename "$so") imports |; s|\$|, which no public header declares|"
done | report
[ "$n_plugins" -ge 5 ] || fail "only $n_plugins plugins found under $build"
if [ -n "$libffm" ]; then
  nm -D --defined-only "$libffm" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" { print $3 }' \
    | grep -v '^_' | sed 's/@.*//' | sort -u > "$probe/exported.txt"
  sort -u "$probe/public.txt" "$probe/internal.txt" | comm -23 "$probe/exported.txt" - \
    | sed 's|^|libffm exports |; s|$|, which no public or internal header declares|' | report
  n_internal=$(comm -12 "$probe/exported.txt" "$probe/internal.txt" | comm -23 - "$probe/public.txt" | wc -l)
  echo "test-header-tiers: libffm exports $(wc -l < "$probe/exported.txt") symbols, $n_internal of them internal"
fi

if [ -s "$errors" ]; then
  cat "$errors" >&2
  exit 1
fi
echo "test-header-tiers: plugins, public headers and the command keep to their tiers"
