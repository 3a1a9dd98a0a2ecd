#!/usr/bin/env bash
# The house format (.clang-format: Google's style, 120 columns) over every C and C++ source git
# tracks. `scripts/format.sh` rewrites them in place; `scripts/format.sh --check` changes nothing
# and fails, naming the files, when one differs (make test: style.clang_format).
set -euo pipefail
cd "$(dirname "$0")/.."
format=clang-format-14
command -v "$format" > /dev/null || { echo "format.sh: $format is missing (scripts/install-deps.sh test)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' | grep -v '^web/npm/node_modules/')
if [ "${1:-}" = --check ]; then
  "$format" --dry-run --Werror "${files[@]}" 2>&1 | grep -E '^[^ ].*: (error|warning):' | cut -d: -f1 | sort -u | sed 's/^/not formatted: /' || true
  "$format" --dry-run --Werror "${files[@]}" > /dev/null 2>&1 || { echo "format.sh: run scripts/format.sh to format them" >&2; exit 1; }
  echo "format.sh: ${#files[@]} files formatted"
else
  "$format" -i "${files[@]}"
fi
