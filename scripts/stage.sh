# Sourced by .ci/run, scripts/test and the suites' scripts: each stage of a
# run names itself and prints its wall time, and `side_by_side` runs
# stages at once. With STAGE_TIMES set to a file, each stage's time is also
# appended to it, for a summary at the end of the run.

# stage NAME COMMAND...: runs COMMAND as the stage NAME.
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  printf '\n== %s\n' "$name"
  "$@" || rc=$?
  stage_done "$name" $((SECONDS - start)) $rc
  return $rc
}

# stage_done NAME SECONDS RC: the line that closes a stage.
stage_done() {
  local status=ok
  [ "$3" -eq 0 ] || status="FAILED (exit $3)"
  printf '== %s: %s s, %s\n' "$1" "$2" "$status"
  if [ -n "${STAGE_TIMES:-}" ]; then
    printf '%-40s %5s s  %s\n' "$1" "$2" "$status" >>"$STAGE_TIMES"
  fi
}

# side_by_side NAME1 'COMMAND1' NAME2 'COMMAND2' ...: runs the commands at
# once (each a bash command line), each one's output into its own log,
# printed whole once all have ended, in the order given, so that no two
# suites' lines interleave. Fails if any failed.
side_by_side() {
  local names=() logs=() pids=() i failed=0
  local dir
  dir=$(mktemp -d)
  while [ $# -ge 2 ]; do
    i=${#names[@]}
    names+=("$1")
    logs+=("$dir/$i.log")
    (
      s=$SECONDS rc=0
      bash -c "$2" >"$dir/$i.log" 2>&1 || rc=$?
      echo "$((SECONDS - s)) $rc" >"$dir/$i.done"
    ) &
    pids+=($!)
    shift 2
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || true
  done
  for i in "${!names[@]}"; do
    printf '\n== %s\n' "${names[$i]}"
    cat "${logs[$i]}"
    read -r took rc <"$dir/$i.done" || { took=?; rc=1; }
    stage_done "${names[$i]}" "$took" "$rc"
    [ "$rc" -eq 0 ] || failed=1
  done
  rm -rf "$dir"
  return $failed
}
