# Sourced by the bench-gift-vs-rebuild scripts. timed LABEL COMMAND…: runs COMMAND under
# /usr/bin/time as round $r's LABEL (its output in $WORK/out), prints the load before it, its
# summary lines and its time; on failure prints its output and exits.
timed() {
  local label=$1; shift
  echo "round $r $label load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "round $r $label %e s wall, %U s user, %S s sys, %M KB max RSS" "$@" > "$WORK/out" 2>&1 \
    || { cat "$WORK/out"; exit 1; }
  grep -E "^Applied|^Outbox|^No changes|round" "$WORK/out" | sed "s/^/  /"
}
