#!/usr/bin/env bash
# The style rules Skiff declares, checked (issue 21):
#   1. clang-format (.clang-format) over every tracked C++ source: no file
#      would change (--dry-run --Werror);
#   2. lizard: no function of the broker (tests/ aside: a TEST_CASE is a
#      scenario read top to bottom) over 60 lines of code (NLOC) or cyclomatic
#      complexity 20, declarative tables listed in scripts/lizard-allow.txt
#      aside (the generated codec is not tracked, so never checked);
#   (with 1.) the layer rules of docs/architecture.md: scripts/check-layers.py
#      over the include graph and the CMake target links;
#   3. clang-tidy (.clang-tidy) over the .cc files changed since BASE, with
#      BUILD/compile_commands.json (configure and build first: the generated
#      codec headers must exist); skipped with a note when there is no
#      compilation database or no clang-tidy. BASE by default: the merge base
#      with main (else origin/main, origin/HEAD) when HEAD is ahead of it; on
#      main itself, or in a clone without those refs (CI), HEAD~1, so the
#      files of the last commit (a merge: the whole merged branch); with no
#      parent either (a one-commit shallow clone), tidy is skipped with a note.
#      At most SKIFF_TIDY_MAX_FILES files (default 60, the rest named), run
#      SKIFF_TIDY_JOBS at a time (default: nproc).
# Exit 0 when all pass, 1 when something is out of line (each finding is
# printed), 2 for a usage error or a missing tool (scripts/install-deps.sh
# installs them). Bounded: format and lizard take seconds; tidy only reads
# the changed files.
#
#   scripts/check-style.sh [--base REF] [--build DIR] [--no-format] [--no-lizard] [--no-tidy]
#   scripts/check-style.sh --fix-format    # rewrite files in place instead of checking
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "${ROOT}"

BASE=""
BUILD="${ROOT}/build"
DO_FORMAT=1 DO_LIZARD=1 DO_TIDY=1 FIX=0
NLOC_MAX=60
CCN_MAX=20
while (($#)); do
  case "$1" in
    --base) BASE="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    --no-format) DO_FORMAT=0; shift ;;
    --no-lizard) DO_LIZARD=0; shift ;;
    --no-tidy) DO_TIDY=0; shift ;;
    --fix-format) FIX=1; DO_LIZARD=0; DO_TIDY=0; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "usage: $0 [--base REF] [--build DIR] [--no-format] [--no-lizard] [--no-tidy] [--fix-format]" >&2; exit 2 ;;
  esac
done

# A tool by its plain name, or Debian's versioned one (clang-format-14).
find_tool() {
  local name="$1" v
  command -v "${name}" 2>/dev/null && return 0
  for v in 19 18 17 16 15 14; do command -v "${name}-${v}" 2>/dev/null && return 0; done
  return 1
}
# lizard from PATH, else the venv scripts/install-deps.sh makes.
find_lizard() {
  command -v lizard 2>/dev/null && return 0
  local venv="${SKIFF_TOOLS_VENV:-${HOME}/.cache/skiff/tools-venv}"
  [[ -x "${venv}/bin/lizard" ]] && echo "${venv}/bin/lizard" && return 0
  return 1
}

# The commit tidy compares with when --base is not given (see the header).
pick_base() {
  local head ref mb
  head="$(git rev-parse HEAD)"
  for ref in main origin/main origin/HEAD; do
    mb="$(git merge-base HEAD "${ref}" 2>/dev/null)" || continue
    [[ "${mb}" != "${head}" ]] && { echo "${mb}"; return 0; }
    break  # HEAD is that branch: fall back to its last commit
  done
  git rev-parse --verify -q HEAD~1 2>/dev/null
}

# clang-tidy over the compiled .cc files changed since BASE (translation
# units only: a header is checked through the .cc files that include it,
# .clang-tidy's HeaderFilterRegex), bounded in count and run in parallel.
tidy_changed() {
  local max="${SKIFF_TIDY_MAX_FILES:-60}" jobs="${SKIFF_TIDY_JOBS:-$(nproc)}" out
  # One entry per source even when BUILD is a unity build (scripts/test.sh).
  local db="${BUILD}/per-source-db"
  scripts/per_source_compile_db.py "${BUILD}" "${db}"
  mapfile -t CHANGED < <( { git diff --name-only --diff-filter=d "${BASE}" -- '*.cc';
                            git ls-files --others --exclude-standard -- '*.cc'; } | sort -u |
                          while read -r f; do grep -q "\"file\": \"[^\"]*/${f}\"" "${db}/compile_commands.json" && echo "$f"; done)
  if ((${#CHANGED[@]} == 0)); then
    echo "check-style: clang-tidy: no compiled .cc file changed since ${BASE}"
    return
  fi
  if ((${#CHANGED[@]} > max)); then
    echo "check-style: clang-tidy: ${#CHANGED[@]} files changed since ${BASE}; checking the first ${max}" \
         "(SKIFF_TIDY_MAX_FILES), not: ${CHANGED[*]:max}"
    CHANGED=("${CHANGED[@]:0:max}")
  fi
  out="$(printf '%s\n' "${CHANGED[@]}" | xargs -r -n 2 -P "${jobs}" "${CT}" -p "${db}" --quiet 2>/dev/null |
         grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' | sort -u)"
  if [[ -n "${out}" ]]; then
    echo "${out}"
    echo "check-style: clang-tidy: $(wc -l <<<"${out}") findings in ${#CHANGED[@]} files changed since ${BASE}"
    failed=1
  else
    echo "check-style: clang-tidy: ${#CHANGED[@]} files changed since ${BASE} clean"
  fi
}

mapfile -t SOURCES < <(git ls-files '*.cc' '*.h' | grep -v '^tests/fuzz/corpus/')
failed=0

# The layer rules of docs/architecture.md (includes and CMake links), with
# the formatting pass: seconds.
if ((DO_FORMAT)); then
  python3 scripts/check-layers.py || failed=1
  # ctest names a Catch2 test by its TEST_CASE name and splits it at ';':
  # such a test would run nothing of what it names and fail.
  if semi="$(grep -n 'TEST_CASE("[^"]*;' -r tests --include='*.cc')"; then
    echo "${semi}"
    echo "check-style: a TEST_CASE name holds ';' (ctest splits names there): use ',' or 'and'"
    failed=1
  fi
fi

if ((DO_FORMAT)); then
  CF="$(find_tool clang-format)" || { echo "check-style: clang-format not found (scripts/install-deps.sh)" >&2; exit 2; }
  if ((FIX)); then
    "${CF}" -i "${SOURCES[@]}"
    echo "check-style: formatted ${#SOURCES[@]} files with $("${CF}" --version)"
    exit 0
  fi
  out="$("${CF}" --dry-run --Werror "${SOURCES[@]}" 2>&1)"
  if [[ -n "${out}" ]]; then
    files="$(grep -oE '^[^:]+:[0-9]+:[0-9]+: (error|warning)' <<<"${out}" | cut -d: -f1 | sort -u | wc -l)"
    lines="$(grep -cE '^[^:]+:[0-9]+:[0-9]+: (error|warning)' <<<"${out}")"
    echo "${out}" | head -200
    echo "check-style: clang-format: ${lines} places in ${files} files differ from .clang-format" \
         "(scripts/check-style.sh --fix-format rewrites them)"
    failed=1
  else
    echo "check-style: clang-format: ${#SOURCES[@]} files clean"
  fi
fi

if ((DO_LIZARD)); then
  LZ="$(find_lizard)" || { echo "check-style: lizard not found (scripts/install-deps.sh)" >&2; exit 2; }
  mapfile -t BROKER < <(printf '%s\n' "${SOURCES[@]}" | grep -v '^tests/')
  out="$("${LZ}" -w -T nloc="${NLOC_MAX}" -C "${CCN_MAX}" -W scripts/lizard-allow.txt "${BROKER[@]}" 2>&1)"
  if [[ -n "${out}" ]]; then
    echo "${out}"
    echo "check-style: lizard: $(wc -l <<<"${out}") functions over ${NLOC_MAX} NLOC or CCN ${CCN_MAX}" \
         "(split them; a declarative table goes in scripts/lizard-allow.txt)"
    failed=1
  else
    echo "check-style: lizard: no function over ${NLOC_MAX} NLOC or CCN ${CCN_MAX}"
  fi
fi

if ((DO_TIDY)); then
  CT="$(find_tool clang-tidy)" || CT=""
  if [[ -z "${CT}" ]]; then
    echo "check-style: clang-tidy not found: tidy skipped (scripts/install-deps.sh)"
  elif [[ ! -f "${BUILD}/compile_commands.json" ]]; then
    echo "check-style: no ${BUILD}/compile_commands.json (configure with cmake first): tidy skipped"
  else
    [[ -n "${BASE}" ]] || BASE="$(pick_base)" || BASE=""
    if [[ -z "${BASE}" ]]; then
      echo "check-style: clang-tidy: no base to compare with (no main, origin/main or parent commit): tidy skipped"
    else
      tidy_changed
    fi
  fi
fi

exit "${failed}"
