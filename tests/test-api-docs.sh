#!/bin/sh
# test-api-docs.sh HEADERS_DIR GENERATED_HEADERS_DIR API_BUILD_DIR: the
# generated API reference (docs/api) documents every FFM_API function of
# every public header, with the header's comment. Skipped (exit 77) when
# the build has no reference (no doxygen: -Dapi_docs=auto).
set -eu
headers=$1
generated=$2
api=$3

fail () {
  echo "test-api-docs: $*" >&2
  exit 1
}

if [ ! -f "$api/xml/index.xml" ]; then
  echo "test-api-docs: SKIP: no API reference in this build (doxygen not found; -Dapi_docs)"
  exit 77
fi
[ -f "$api/html/index.html" ] || fail "no html/index.html in $api"

# Every FFM_API function: the identifier before the first '(' of the
# declaration (which may span lines).
names=$(cat "$headers"/*.h "$generated"/ffm-version.h \
  | awk '/^FFM_API/ { decl = ""; on = 1 }
         on { decl = decl " " $0; if (index ($0, "(")) { on = 0; print decl } }' \
  | sed -E 's/\(.*//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$/\1/' | sort -u)
n=$(echo "$names" | grep -c .)
[ "$n" -ge 300 ] || fail "only $n FFM_API functions found in $headers: the parser broke"

documented=$(sed -n 's/.*<member refid="[^"]*" kind="function"><name>\([^<]*\)<\/name>.*/\1/p' \
  "$api/xml/index.xml" | sort -u)
missing=$(echo "$names" | grep -vxF "$documented" || true)
[ -z "$missing" ] || fail "FFM_API functions missing from the reference: $(echo "$missing" | tr "\n" " ")"

# The comments are read: a function's leading comment is its description.
grep -rq "libffm running now is compatible" "$api/xml" \
  || fail "ffm_check_version's comment is not in the reference (INPUT_FILTER not applied?)"
grep -rq "Evaluates compatible" "$api/xml" \
  || fail "ffm_mapspace_evaluate's comment is not in the reference"
echo "test-api-docs: $n FFM_API functions, all in the reference"
