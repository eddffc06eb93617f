# Sourced by .ci/run, scripts/test and the suites' scripts: each stage of a
# run names itself and prints its wall time and the CPU time its processes
# took (user + system: on CI's two cores, the figure that says what a stage
# costs the others running beside it; only of the processes waited for, so
# not of Spark's JVMs or Chromium, which their launchers leave to exit on
# their own), and `side_by_side` runs stages at once. With STAGE_TIMES set
# to a file, each stage's times are also appended to it, for a summary at
# the end of the run.

# cpu_seconds VAR: sets VAR to the user + system seconds of this shell's
# finished children (the second line of `times`), whole seconds. Not a
# command substitution: a subshell's `times` starts again from zero.
cpu_seconds() {
  local f
  f=$(mktemp)
  times >"$f"
  printf -v "$1" '%s' "$(awk 'NR == 2 {
    s = 0
    for (i = 1; i <= NF; i++) { split($i, p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
    printf "%d", s }' "$f")"
  rm -f "$f"
}

# stage NAME COMMAND...: runs COMMAND as the stage NAME.
stage() {
  local name=$1 start=$SECONDS rc=0 cpu0 cpu1
  shift
  printf '\n== %s\n' "$name"
  cpu_seconds cpu0
  "$@" || rc=$?
  cpu_seconds cpu1
  stage_done "$name" $((SECONDS - start)) $rc $((cpu1 - cpu0))
  return $rc
}

# stage_done NAME SECONDS RC CPU: the line that closes a stage.
stage_done() {
  local status=ok
  [ "$3" -eq 0 ] || status="FAILED (exit $3)"
  printf '== %s: %s s, cpu %s s, %s\n' "$1" "$2" "$4" "$status"
  if [ -n "${STAGE_TIMES:-}" ]; then
    printf '%-40s %5s s  cpu %5s s  %s\n' "$1" "$2" "$4" "$status" >>"$STAGE_TIMES"
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
      cpu_seconds cpu
      echo "$((SECONDS - s)) $rc $cpu" >"$dir/$i.done"
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
    read -r took rc cpu <"$dir/$i.done" || { took=?; rc=1; cpu=?; }
    stage_done "${names[$i]}" "$took" "$rc" "$cpu"
    [ "$rc" -eq 0 ] || failed=1
  done
  rm -rf "$dir"
  return $failed
}
