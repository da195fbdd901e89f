#!/usr/bin/env bash
# tools/scripts/suite_sources.sh — the library sources that a test binary of some suites can
# use (the Makefile's SUITES build, .ci/run's sanitizer pass), so that build compiles only
# those instead of the whole library.
#
#   suite_sources.sh ROOT... -- LIBSRC...
#
# ROOT: the files the binary and its programs are made of (test files, programs' sources);
# LIBSRC: the library's .cpp files. Prints the LIBSRC files reachable from the roots, where a
# file reaches the headers it includes ("..." includes, transitively), and a header reaches the
# library files that define what it declares, and those files' includes in turn:
#   - dir/name.cpp defines dir/name.h when that header exists;
#   - a .cpp without such a header (core/ops/*.cpp, the kernels' files, ...) defines what is
#     declared in the headers of its own folder that it includes, in the header named after
#     its folder (core/ops.h for core/ops/*.cpp) and in the header of its own name one folder
#     up (core/kernels/softmax.h for core/kernels/reference/softmax.cpp).
# Reading every `#include`, even one behind an #if, can only add files: the linker takes from
# the archive only what is used, so an extra file costs its compile time; a missing one would
# be an undefined symbol at link time, never a silent difference.
set -euo pipefail
cd "$(dirname "$0")/../.."
roots=()
while (($#)) && [ "$1" != -- ]; do roots+=("$1"); shift; done
(($#)) && shift
mapfile -t files < <(find core layers tools tests chapters -name '*.h' -o -name '*.cpp' | sort)
{
  printf 'lib %s\n' "$@"
  printf 'root %s\n' "${roots[@]}"
  printf 'file %s\n' "${files[@]}"
  grep -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "${files[@]}" |
    sed -E 's/^([^:]*):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/inc \1 \2/'
} | awk '
  function dir_of(f, d) { d = f; if (!sub(/\/[^\/]*$/, "", d)) d = "."; return d }
  function resolve(f, p, d) {  # as the compiler does with -I.: beside the file, then from the root
    d = dir_of(f)
    if ((d "/" p) in exists) return d "/" p
    if (p in exists) return p
    return ""
  }
  function reach(f) { if (!(f in seen)) { seen[f] = 1; queue[++tail] = f } }
  $1 == "lib"  { lib[$2] = 1; next }
  $1 == "root" { roots[++nroots] = $2; next }
  $1 == "file" { exists[$2] = 1; next }
  $1 == "inc"  { ninc[$2]++; incs[$2, ninc[$2]] = $3; next }
  END {
    for (c in lib) {
      h = c; sub(/\.cpp$/, ".h", h)
      if (h in exists) { nprov[h]++; prov[h, nprov[h]] = c; continue }
      d = dir_of(c)
      if ((d ".h") in exists) { nprov[d ".h"]++; prov[d ".h", nprov[d ".h"]] = c }
      up = dir_of(d) "/" substr(h, length(d) + 2)
      if (up in exists) { nprov[up]++; prov[up, nprov[up]] = c }
      for (i = 1; i <= ninc[c]; ++i) {
        h = resolve(c, incs[c, i])
        if (h != "" && dir_of(h) == d) { nprov[h]++; prov[h, nprov[h]] = c }
      }
    }
    for (i = 1; i <= nroots; ++i) reach(roots[i])
    for (head = 1; head <= tail; ++head) {
      f = queue[head]
      for (i = 1; i <= ninc[f]; ++i) {
        h = resolve(f, incs[f, i])
        if (h == "" || (h in seen)) continue
        reach(h)
        for (j = 1; j <= nprov[h]; ++j) reach(prov[h, j])
      }
    }
    for (c in lib) if (c in seen) print c
  }' | sort
