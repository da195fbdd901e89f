#!/usr/bin/env bash
# tools/scripts/get_data.sh — `make data`: fetch the book's data archives into data/ and check them.
#
#   data/fra-eng/fra.txt        English–French pairs (9.5, sec_machine_translation)
#   data/snli_1.0/...           Stanford NLI corpus (15.4, sec_natural-language-inference-and-dataset)
#   data/glove.6B.100d/vec.txt  GloVe vectors, only with --glove (15.5 uses them)
#
# Each archive's SHA-1 is the one in the book's DATA_HUB; a mismatch deletes the file.
# Offline, or behind a proxy, put the .zip files in data/ yourself and rerun: an archive
# already there with the right SHA-1 is not downloaded again. Without data/ the chapter
# programs fall back to the small corpora in chapters/data/ and say so.
set -uo pipefail

usage() {
  echo "usage: tools/scripts/get_data.sh [--glove]   (run from anywhere; writes <repo>/\${DATA_DIR:-data})"
  echo "  --glove  also fetch glove.6B.100d.zip (~130 MB)"
}
want_glove=0
for arg in "$@"; do
  case "$arg" in
    --glove) want_glove=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "get_data.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/../.." || exit 1  # the repository root
DATA_DIR="${DATA_DIR:-data}"
mkdir -p "$DATA_DIR" || exit 1

for tool in curl sha1sum unzip; do
  command -v "$tool" >/dev/null || { echo "get_data.sh: '$tool' not found (Debian: apt-get install $tool)" >&2; exit 1; }
done

# fetch NAME URL SHA1 MARKER: make $DATA_DIR/MARKER exist, from $DATA_DIR/NAME.zip.
fetch() {
  local name="$1" url="$2" sha1="$3" marker="$4"
  local zip="$DATA_DIR/$name.zip"
  if [[ -e "$DATA_DIR/$marker" ]]; then
    echo "[data] $DATA_DIR/$marker already there"
    return 0
  fi
  if [[ ! -e "$zip" ]]; then
    echo "[data] downloading $url"
    # --fail: an HTTP error is an error; --connect-timeout and --speed-* make a dead or
    # stalled connection fail within a minute instead of hanging; .part until complete.
    if ! curl --fail --location --silent --show-error --connect-timeout 15 \
        --speed-limit 1024 --speed-time 60 -o "$zip.part" "$url"; then
      rm -f "$zip.part"
      echo "[data] ERROR: could not download $url (no network?)." >&2
      echo "[data]   Download it elsewhere, save it as $zip and rerun \`make data\`." >&2
      return 1
    fi
    mv "$zip.part" "$zip"
  fi
  local got
  got="$(sha1sum "$zip" | cut -d' ' -f1)"
  if [[ "$got" != "$sha1" ]]; then
    echo "[data] ERROR: $zip has SHA-1 $got, expected $sha1; deleted it, rerun \`make data\`." >&2
    rm -f "$zip"
    return 1
  fi
  echo "[data] $zip: SHA-1 ok"
  # Unpack into a scratch directory, then move the archive's top folder into place, so
  # an interrupted unzip never leaves a half-written folder where programs look.
  local tmp="$DATA_DIR/.unpack-$name"
  rm -rf "$tmp" && mkdir -p "$tmp"
  if ! unzip -q "$zip" -d "$tmp"; then
    rm -rf "$tmp"
    echo "[data] ERROR: could not unpack $zip; delete it and rerun \`make data\`." >&2
    return 1
  fi
  local top="${marker%%/*}"
  if [[ ! -e "$tmp/$marker" ]]; then
    rm -rf "$tmp"
    echo "[data] ERROR: $zip does not contain $marker." >&2
    return 1
  fi
  rm -rf "${DATA_DIR:?}/$top" && mv "$tmp/$top" "$DATA_DIR/$top" && rm -rf "$tmp"
  echo "[data] wrote $DATA_DIR/$marker"
}

failed=()
fetch fra-eng http://d2l-data.s3-accelerate.amazonaws.com/fra-eng.zip \
  94646ad1522d915e7b0f9296181140edcf86a4f5 fra-eng/fra.txt || failed+=(fra-eng)
fetch snli_1.0 https://nlp.stanford.edu/projects/snli/snli_1.0.zip \
  9fcde07509c7e87ec61c640c1b2753d9041758e4 snli_1.0/snli_1.0_train.txt || failed+=(snli_1.0)
if [[ $want_glove == 1 ]]; then
  fetch glove.6B.100d http://d2l-data.s3-accelerate.amazonaws.com/glove.6B.100d.zip \
    cd43bfb07e44e6f27cbcc7bc9ae3d80284fdaf5a glove.6B.100d/vec.txt || failed+=(glove.6B.100d)
fi

if (( ${#failed[@]} > 0 )); then
  echo "[data] FAILED: ${failed[*]}. The chapter programs will use the small corpora in chapters/data/." >&2
  exit 1
fi
echo "[data] all data in $DATA_DIR/"
