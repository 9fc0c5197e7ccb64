#!/usr/bin/env bash
# Auto mode against dummy and stock mode on PyTorch's OpInfo suite at every
# sample and dtype (README, "Auditing"): 75,777 cases per mode, too long for one
# run, so it goes in shards that each finish in under an hour on two cores.
#
#   scripts/opinfo-every-sample.sh OUT [SHARDS [audit arguments]]     default SHARDS: 16
#
# (e.g. `--opinfo-ops '^(softmax|logspace)$'` for every sample of a few ops only).
#
# Each shard runs auto mode whole; dummy and stock mode then re-run only the
# cases auto did not run right (--rerun-unpassed), which is all the comparison
# needs. A shard whose report exists is skipped, so an interrupted run resumes
# where it stopped; the comparison at the end reads the shards done so far.
# JOBS (default 2) worker processes; PYTHON: the interpreter with tosa_custom
# installed (default .venv/bin/python if present, else python3).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?give the output folder}
shards=${2:-16}
shift $(( $# < 2 ? $# : 2 ))
if [[ -z ${PYTHON:-} ]]; then
  if [[ -x $root/.venv/bin/python ]]; then PYTHON=$root/.venv/bin/python; else PYTHON=python3; fi
fi
suite=(--suite opinfo --samples all --dtypes all --no-progress -j "${JOBS:-2}" "$@")

run() {  # run MODE SHARD [audit arguments]: one report, written only when the run completes
  local mode=$1 k=$2 dest=$out/$1/$2
  shift 2
  [[ -f $dest/audit.json ]] && return 0
  local started=$SECONDS
  "$PYTHON" -m tosa_custom.e2e.audit --mode "$mode" "${suite[@]}" --shard "$k/$shards" --report "$dest.tmp" "$@" \
    > "$out/$mode-$k.log" 2>&1
  local status=$?
  # Exit status 1 means unexpected results, which is what the run is for; 2 and above, that it did not run.
  if [[ $status -le 1 && -f $dest.tmp/audit.json ]]; then
    rm -rf "$dest" && mv "$dest.tmp" "$dest"
    echo "$mode $k/$shards: $(head -1 "$out/$mode-$k.log") [$((SECONDS - started)) s]"
  else
    echo "$mode $k/$shards: did not complete (exit $status), see $out/$mode-$k.log" >&2
    return 1
  fi
}

mkdir -p "$out/auto" "$out/dummy" "$out/stock"
for k in $(seq 1 "$shards"); do
  run auto "$k" || continue
  for mode in dummy stock; do
    if [[ -z $("$PYTHON" -c "from tosa_custom.e2e import compare; print(*compare.unpassed('$out/auto/$k'))") ]]; then
      continue  # auto ran every case of the shard right
    fi
    run "$mode" "$k" --rerun-unpassed "$out/auto/$k"
  done
done
if compgen -G "$out/dummy/*/audit.json" > /dev/null && compgen -G "$out/stock/*/audit.json" > /dev/null; then
  "$PYTHON" -m tosa_custom.e2e.compare "$out/auto" "$out/dummy" "$out/stock"
else
  echo "auto mode ran every case of the shards done right: nothing to compare"
fi
