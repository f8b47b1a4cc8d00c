# steps.sh — sourced, from the repository root, by the scripts of
# tools/scripts that run long, noisy steps (consumers.sh, likwid.sh), so that
# their output is one line per step they report themselves. Sets $jobs (one
# per core) and $tmp, a scratch directory removed when the script exits.

jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cws-$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# quietly WHAT CMD...: runs CMD with its output in $tmp/log, shown only on
# failure, after which the script exits 1 with "<script>: WHAT failed".
quietly() {
  local what=$1; shift
  if ! "$@" >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    echo "$(basename "$0" .sh): $what failed" >&2
    exit 1
  fi
}
