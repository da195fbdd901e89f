#!/usr/bin/env bash
# tools/scripts/get_data.sh — `make data`: fetch the book's data archives into data/ and check them.
#
#   data/fra-eng/fra.txt                    English–French pairs (9.5, sec_machine_translation)
#   data/snli_1.0/snli_1.0_{train,test}.txt Stanford NLI corpus (15.4, sec_natural-language-inference-and-dataset)
#   data/glove.6B.100d/vec.txt              100-d GloVe vectors (14.7; 15.5 starts its embedding from them)
#
# These are the archives, URLs and SHA-1 sums of the book's DATA_HUB, unpacked as the book's
# download_extract leaves them. A mismatching SHA-1 deletes the archive. Offline, or behind a
# proxy, put the .zip files in data/ yourself and rerun: an archive already there with the
# right SHA-1 is not downloaded again. Without data/ the chapter programs fall back to the
# small corpora in chapters/data/ and say so.
#
# Options:
#   --no-glove       skip glove.6B.100d.zip (~130 MB); 15.5 then trains its embedding from scratch
#   --dry-run        say what would be downloaded, checked and unpacked; touch nothing
#   --manifest FILE  read the archives from FILE instead of the book's table: one
#                    "NAME URL SHA1 MARKER" per line (# comments), e.g. for a local mirror
#                    (file:// URLs work with curl)
# Environment: DATA_DIR (default data, relative to the repository root).
# Downloads with curl, or wget when curl is not installed; needs sha1sum and unzip.
set -uo pipefail

usage() {
  echo "usage: tools/scripts/get_data.sh [--no-glove] [--dry-run] [--manifest FILE]"
  echo "  writes <repo>/\${DATA_DIR:-data}; see the comment at the top of this script"
}
want_glove=1
dry_run=0
manifest=""
while (( $# > 0 )); do
  case "$1" in
    --no-glove) want_glove=0 ;;
    --dry-run) dry_run=1 ;;
    --manifest)
      [[ $# -ge 2 ]] || { echo "get_data.sh: --manifest needs a file" >&2; exit 2; }
      manifest="$(cd "$(dirname "$2")" 2>/dev/null && pwd)/$(basename "$2")"
      [[ -f $manifest ]] || { echo "get_data.sh: manifest '$2' not found" >&2; exit 2; }
      shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "get_data.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

cd "$(dirname "$0")/../.." || exit 1  # the repository root
DATA_DIR="${DATA_DIR:-data}"

# The book's DATA_HUB entries: NAME URL SHA1 MARKER (a file the archive must unpack to).
book_table() {
  echo "fra-eng http://d2l-data.s3-accelerate.amazonaws.com/fra-eng.zip 94646ad1522d915e7b0f9296181140edcf86a4f5 fra-eng/fra.txt"
  echo "snli_1.0 https://nlp.stanford.edu/projects/snli/snli_1.0.zip 9fcde07509c7e87ec61c640c1b2753d9041758e4 snli_1.0/snli_1.0_train.txt"
  if [[ $want_glove == 1 ]]; then
    echo "glove.6B.100d http://d2l-data.s3-accelerate.amazonaws.com/glove.6B.100d.zip cd43bfb07e44e6f27cbcc7bc9ae3d80284fdaf5a glove.6B.100d/vec.txt"
  fi
}

downloader=""
if command -v curl >/dev/null; then downloader=curl
elif command -v wget >/dev/null; then downloader=wget
fi
if (( dry_run == 0 )); then
  [[ -n $downloader ]] || { echo "get_data.sh: neither curl nor wget found (Debian: apt-get install curl)" >&2; exit 1; }
  for tool in sha1sum unzip; do
    command -v "$tool" >/dev/null || { echo "get_data.sh: '$tool' not found (Debian: apt-get install $tool)" >&2; exit 1; }
  done
  mkdir -p "$DATA_DIR" || exit 1
fi

# download URL FILE: the whole file or nothing. --fail / an HTTP error is an error; the
# timeouts make a dead or stalled connection fail within a minute instead of hanging.
download() {
  if [[ $downloader == curl ]]; then
    curl --fail --location --silent --show-error --connect-timeout 15 \
      --speed-limit 1024 --speed-time 60 -o "$2" "$1"
  else
    wget --quiet --tries=2 --timeout=60 -O "$2" "$1"
  fi
}

# fetch NAME URL SHA1 MARKER: make $DATA_DIR/MARKER exist, from $DATA_DIR/NAME.zip.
fetch() {
  local name="$1" url="$2" sha1="$3" marker="$4"
  local zip="$DATA_DIR/$name.zip"
  if [[ -e "$DATA_DIR/$marker" ]]; then
    echo "[data] $DATA_DIR/$marker already there"
    return 0
  fi
  if (( dry_run == 1 )); then
    if [[ -e "$zip" ]]; then echo "[data] would check $zip against SHA-1 $sha1"
    else echo "[data] would download $url to $zip and check SHA-1 $sha1"; fi
    echo "[data] would unpack it to $DATA_DIR/$marker"
    return 0
  fi
  if [[ ! -e "$zip" ]]; then
    echo "[data] downloading $url ($downloader)"
    # Into .part until complete, so an interrupted download never looks like an archive.
    if ! download "$url" "$zip.part"; then
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
entries=0
while read -r name url sha1 marker rest; do
  [[ -z ${name:-} || $name == \#* ]] && continue
  if [[ -z ${marker:-} || -n ${rest:-} ]]; then
    echo "[data] ERROR: ${manifest:-the table}: expected 'NAME URL SHA1 MARKER', got '$name $url $sha1 ${marker:-} ${rest:-}'" >&2
    exit 2
  fi
  entries=$((entries + 1))
  fetch "$name" "$url" "$sha1" "$marker" || failed+=("$name")
done < <(if [[ -n $manifest ]]; then cat "$manifest"; else book_table; fi)

if (( entries == 0 )); then
  echo "[data] ERROR: ${manifest:-the table} lists no archives" >&2
  exit 2
fi
if (( ${#failed[@]} > 0 )); then
  echo "[data] FAILED: ${failed[*]}. The chapter programs will use the small corpora in chapters/data/." >&2
  exit 1
fi
if (( dry_run == 1 )); then echo "[data] dry run: nothing written"
else echo "[data] all data in $DATA_DIR/"; fi
