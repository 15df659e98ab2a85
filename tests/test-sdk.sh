#!/bin/sh
# test-sdk.sh BUILD SOURCE: the SDK as a third party gets it.
#
# Installs this build into a temporary folder (meson install --destdir),
# builds the out-of-tree example strategy docs/examples/search-plugin/
# with cc against the installed ffm.pc (a copy whose prefix line points
# into the temporary folder), loads it through FFM_PLUGIN_PATH into
# the built ffm and runs it. Checks the public tier as installed
# (docs/layout.md): <ffm/ffm.h> and every installed header alone compile
# with the one -I the .pc gives; the .pc's private requirements resolve
# (pkg-config --static); the installed ffm and plugins load the installed
# libffm (ldd, no LD_LIBRARY_PATH) and the installed ffm runs; the
# documentation ffm's help points to is installed, the installed docs
# mention no file an install lacks but where they say it is in ffm's
# source tree (the SDK's documents none), the API reference is installed when
# built. Then the example ils.c reaches ffm's optimum on a small problem,
# and the meson plugin template (docs/examples/plugin-template) builds
# against the installed ffm, installs and runs.
set -eu
build=$1
src=$2
exe=${FFM_EXE:?FFM_EXE is not set: run this test through meson test}
dest=$(mktemp -d "${TMPDIR:-/tmp}/ffm-sdk-XXXXXX")
trap 'rm -rf "$dest"' EXIT

fail () {
  echo "test-sdk: $*" >&2
  exit 1
}

if ! meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$dest/install.log" 2>&1; then
  cat "$dest/install.log" >&2
  fail "meson install failed"
fi
pc=$(find "$dest" -name ffm.pc | head -n 1)
[ -n "$pc" ] || fail "ffm.pc was not installed"
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$dest/pc/ffm.pc"
export PKG_CONFIG_PATH="$dest/pc"
pkg () {
  pkg-config "$@" ffm
}

for f in ffm/ffm.h ffm/ffm-mapspace.h ffm/ffm-search-meter.h ffm/ffm-version.h; do
  [ -f "$dest$prefix/include/$f" ] || fail "header $f was not installed"
done
[ -n "$(find "$dest" -path '*/doc/ffm/docs/plugin-guide.md')" ] || fail "docs/ was not installed"
[ -n "$(find "$dest" -path '*/doc/ffm/docs/examples/search-plugin/hillclimb.c')" ] \
  || fail "the example strategy was not installed with the docs"
# Every document an installed header cites is installed with the docs.
for ref in $(grep -rhoE '[A-Za-z0-9_./-]+\.md' "$dest$prefix/include" | sort -u); do
  [ -n "$(find "$dest" -path '*/doc/ffm/*' -name "$(basename "$ref")")" ] \
    || fail "an installed header cites $ref, which is not installed"
done

# The installed docs are self-contained (docs/layout.md, "Installed
# files"): every file of ffm's source tree a page mentions (core/...,
# cli/..., plugins/..., tests/..., docs/..., workloads/...) is installed,
# or the page says where it is: in a paragraph that says "source tree"
# (a fenced block or a table belongs to the paragraph above it, and what
# follows a paragraph that ends with a colon belongs to it), or
# anywhere in a page about ffm's internals, which says "This page is about
# ffm's source tree" in its first lines. The SDK's documents
# (plugin-guide.md, the examples' READMEs) mention installed files only.
# Every <ffm/NAME.h> a page names is an installed header.
docdir=$(find "$dest" -type d -path '*/doc/ffm' | head -n 1)
datadir=$(pkg --variable=datadir)
includedir=$dest$prefix/include
paragraphs_not_in_source_tree () {
  awk '
    function flush () {
      if (para != "" && tolower (para) !~ /source[ \t]+tree/) print para
      para = ""
    }
    /^[ \t]*```/ { gap = 0; fence = !fence; para = para " " $0; next }
    fence { para = para " " $0; next }
    /^[ \t]*$/ { gap = 1; next }
    { if (gap && $0 !~ /^[ \t]*\|/ && para !~ /:[ \t]*$/) flush (); gap = 0; para = para " " $0 }
    END { flush () }' "$1"
}
about_source_tree () {
  head -n 8 "$1" | tr '\n' ' ' | grep -q "This page is about ffm's source tree"
}
unresolved_in () {
  grep -oE '(^|[^A-Za-z0-9_./-])(core|cli|plugins|arch-models|estimators|tools|tests|docs|workloads|policies)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' \
    | sed -E 's/^[^a-z]//' | sort -u | while read -r ref; do
      case $ref in
        docs/api/*) there=$docdir/${ref#docs/} ;;
        docs/*) there=$docdir/$ref ;;
        workloads/* | policies/*) there=$datadir/$ref ;;
        *) there= ;;
      esac
      # A name the page completes (docs/compare/gpt3-full.{csv,json}).
      [ -n "$there" ] && { [ -e "$there" ] || ls -d "$there".* >/dev/null 2>&1; } || echo "$ref"
    done
  return 0
}
unresolved_headers_in () {
  # A name in capitals is a placeholder (<ffm/ffm-NAME.h>).
  grep -oE '<ffm/[a-z0-9_.-]+\.h>' | sort -u | while read -r ref; do
    h=${ref#<}
    [ -f "$includedir/${h%>}" ] || echo "$ref"
  done
  return 0
}
unresolved () {
  if [ "${2:-}" = strict ]; then
    unresolved_in < "$1"
  elif ! about_source_tree "$1"; then
    paragraphs_not_in_source_tree "$1" | unresolved_in
  fi
  unresolved_headers_in < "$1"
}
# The check itself, on pages made up to fail and to pass.
printf '# A page\n\nThe loader (core/ffm-arch.c) is tested in\ntests/test-arch.c.\n\nSee <ffm/ffm-nothing.h>.\n' > "$dest/bad.md"
[ "$(unresolved "$dest/bad.md" | tr '\n' ' ')" = "core/ffm-arch.c tests/test-arch.c <ffm/ffm-nothing.h> " ] \
  || fail "the installed-docs check does not catch a page that names uninstalled files"
printf '# A page\n\nIn ffm'"'"'s source tree the loader is\ncore/ffm-arch.c:\n\n```sh\nffm eval tests/data/x.json\n```\n\nSee <ffm/ffm.h>, docs/plugin-guide.md.\n' > "$dest/good.md"
[ -z "$(unresolved "$dest/good.md")" ] && [ -n "$(unresolved "$dest/good.md" strict)" ] \
  || fail "the installed-docs check refuses a page that says where its files are"
n_sdk_docs=0
for doc in "$docdir/docs/plugin-guide.md" "$docdir"/docs/examples/*/README.md; do
  [ -f "$doc" ] || fail "$doc was not installed"
  n_sdk_docs=$((n_sdk_docs + 1))
  missing=$(unresolved "$doc" strict)
  [ -z "$missing" ] || fail "${doc#"$docdir"/} mentions files an install does not have: $(echo "$missing" | tr "\n" " ")"
done
[ "$n_sdk_docs" -ge 4 ] || fail "only $n_sdk_docs SDK documents found under $docdir"
n_docs=0
n_internals=0
n_bad=0
for doc in $(find "$docdir" -name '*.md' | sort); do
  n_docs=$((n_docs + 1))
  about_source_tree "$doc" && n_internals=$((n_internals + 1))
  missing=$(unresolved "$doc")
  if [ -n "$missing" ]; then
    echo "test-sdk: ${doc#"$docdir"/} mentions files an install does not have, outside a paragraph that says they are in ffm's source tree: $(echo "$missing" | tr "\n" " ")" >&2
    n_bad=$((n_bad + 1))
  fi
done
[ "$n_bad" = 0 ] || fail "$n_bad installed documents are not self-contained"
[ "$n_docs" -ge 20 ] || fail "only $n_docs installed documents found under $docdir"
echo "test-sdk: $n_docs installed documents self-contained ($n_sdk_docs SDK documents strictly, $n_internals about ffm's internals)"
# The API reference, when this build made one.
if [ -f "$build/docs/api/html/index.html" ]; then
  [ -f "$docdir/api/html/index.html" ] || fail "the API reference was built but not installed"
fi

printf '#include <ffm/ffm.h>\nint main (void) { return ffm_plugin_kind_to_string (FFM_PLUGIN_KIND_SEARCH) == NULL; }\n' \
  > "$dest/inc.c"
# shellcheck disable=SC2046
cc -std=gnu11 -Wall -Wextra -Werror -o "$dest/inc" "$dest/inc.c" $(pkg --cflags --libs) \
  || fail "#include <ffm/ffm.h> does not build with pkg-config --cflags --libs ffm"
# One include root: the headers include each other as <ffm/...>.
[ "$(pkg --cflags-only-I | tr ' ' '\n' | grep -c "^-I$dest")" = 1 ] \
  || fail "pkg-config --cflags ffm gives more than one -I of ffm's: $(pkg --cflags-only-I)"
# Each installed header compiles alone (it includes what it uses).
for h in "$dest$prefix"/include/ffm/*.h; do
  printf '#include <ffm/%s>\n' "$(basename "$h")" > "$dest/alone.c"
  # shellcheck disable=SC2046
  cc -std=gnu11 -Wall -Wextra -Werror -c -o "$dest/alone.o" "$dest/alone.c" $(pkg --cflags) \
    || fail "the installed header $(basename "$h") does not compile alone"
done
# Static linking needs libffm's own libraries: the .pc names them.
pkg --static --libs | grep -q -- '-lyaml' || fail "ffm.pc: no yaml-0.1 among the private requirements"
pkg --static --libs | grep -q -- '-ljson-glib' || fail "ffm.pc: no json-glib among the private requirements"

# The installed binaries find the installed libffm by themselves.
installed_libffm=$(find "$dest" -name 'libffm.so.*' | head -n 1)
[ -n "$installed_libffm" ] || fail "libffm was not installed"
installed_exe=$(find "$dest" -path '*/bin/ffm' | head -n 1)
n_modules=0
for so in "$installed_exe" $(find "$dest" -path '*/ffm/ffm-*.so'); do
  n_modules=$((n_modules + 1))
  out=$(env -u LD_LIBRARY_PATH ldd "$so") || fail "ldd $so failed"
  echo "$out" | grep -q 'not found' && { echo "$out" >&2; fail "$so: a library is not found"; }
  loaded=$(echo "$out" | sed -n 's/^[[:space:]]*libffm\.so\.0 => \([^ ]*\) .*/\1/p')
  [ -n "$loaded" ] && [ "$(realpath "$(dirname "$loaded")")" = "$(realpath "$(dirname "$installed_libffm")")" ] \
    || { echo "$out" >&2; fail "$so does not load the installed libffm"; }
done
[ "$n_modules" -ge 5 ] || fail "only $n_modules installed binaries and plugins found"
env -u LD_LIBRARY_PATH "$installed_exe" version > "$dest/version.txt" 2>&1 \
  || { cat "$dest/version.txt" >&2; fail "the installed ffm does not run"; }

mkdir "$dest/plugins"
# shellcheck disable=SC2046
cc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
  -o "$dest/plugins/ffm-search-hillclimb.so" "$src/docs/examples/search-plugin/hillclimb.c" \
  $(pkg --cflags --libs) -lm || fail "the example strategy does not build"

FFM_PLUGIN_PATH="$dest/plugins" "$exe" list > "$dest/list.txt" 2>&1 || fail "ffm list failed"
grep -q "hillclimb 1.0: Example: hill climbing" "$dest/list.txt" \
  || { cat "$dest/list.txt" >&2; fail "ffm list does not show the example"; }
grep -q "rows " "$dest/list.txt" || fail "ffm list does not show the example's parameter"
FFM_PLUGIN_PATH="$dest/plugins" "$exe" map --strategy hillclimb --arch tpuv4i \
  --workload matmuls --param n_einsums=3 --max-evaluations 500 --json "$dest/out.json" \
  > "$dest/map.txt" 2>&1 || { cat "$dest/map.txt" >&2; fail "ffm map --strategy hillclimb failed"; }
grep -Eq '"strategy" ?: ?"hillclimb"' "$dest/out.json" || fail "no result from the example"
grep -Eq '"evaluations" ?: ?500[,}]?' "$dest/out.json" || fail "the example did not spend its budget"
echo "test-sdk: the example strategy builds against the installed SDK and runs"

# The iterated local search example reaches ffm's optimum on a small problem.
# shellcheck disable=SC2046
cc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
  -o "$dest/plugins/ffm-search-ils.so" "$src/docs/examples/search-plugin/ils.c" \
  $(pkg --cflags --libs) -lm || fail "the example ils.c does not build"
edp () {
  sed -nE 's/.*"edp_js" ?: ?([0-9.eE+-]+).*/\1/p' "$1" | head -n 1
}
for strategy in ffm ils; do
  FFM_PLUGIN_PATH="$dest/plugins" "$exe" map --strategy $strategy --arch tpuv4i \
    --workload matmuls --param n_einsums=3 --max-evaluations 300 --json "$dest/$strategy.json" \
    > "$dest/map.txt" 2>&1 || { cat "$dest/map.txt" >&2; fail "ffm map --strategy $strategy failed"; }
done
awk -v a="$(edp "$dest/ils.json")" -v b="$(edp "$dest/ffm.json")" \
  'BEGIN { exit !(a != "" && b > 0 && a <= b * (1 + 1e-9)) }' \
  || fail "ils did not reach ffm's optimum: EDP $(edp "$dest/ils.json") against $(edp "$dest/ffm.json")"
echo "test-sdk: the example ils reaches the optimum ($(edp "$dest/ffm.json") J s)"

# The plugin template: a meson project built against the installed ffm,
# installed into a plugin folder of its own, listed and run.
if ! { PKG_CONFIG_PATH="$dest/pc" meson setup "$dest/template-build" \
          "$src/docs/examples/plugin-template" -Dplugindir="$dest/template-plugins" \
        && ninja -C "$dest/template-build" \
        && meson install -C "$dest/template-build" --quiet; } > "$dest/template.log" 2>&1; then
  cat "$dest/template.log" >&2
  fail "the plugin template does not build and install"
fi
[ -f "$dest/template-plugins/ffm-search-mine.so" ] || fail "the template's plugin was not installed"
FFM_PLUGIN_PATH="$dest/template-plugins" "$exe" list > "$dest/list.txt" 2>&1 || fail "ffm list failed"
grep -q "mine 0.1: Template" "$dest/list.txt" \
  || { cat "$dest/list.txt" >&2; fail "ffm list does not show the template's strategy"; }
FFM_PLUGIN_PATH="$dest/template-plugins" "$exe" map --strategy mine --arch tpuv4i \
  --workload matmuls --param n_einsums=3 --max-evaluations 200 --json "$dest/mine.json" \
  > "$dest/map.txt" 2>&1 || { cat "$dest/map.txt" >&2; fail "ffm map --strategy mine failed"; }
grep -Eq '"strategy" ?: ?"mine"' "$dest/mine.json" || fail "no result from the template"
echo "test-sdk: the plugin template builds with meson against the installed SDK and runs"
