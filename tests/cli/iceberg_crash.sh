#!/usr/bin/env bash
# Commits killed with SIGKILL at random points: `basalt iceberg append`,
# `delete --mode mor` and `compact` start in the background and are killed
# after a random delay. After each kill the table must load, each of its
# snapshots must read (no file it names is missing) with the row count the
# snapshot list implies, and the next append must succeed. Once on a SQLite
# catalog (v2: position-delete files) and once on a file-system catalog (v3:
# deletion vectors).
#
# The expected counts come from the snapshot list alone: every append adds
# copies of a.parquet (3000 rows, ids 0..2999, each id once), delete number
# r removes `id = r`, so one row from every copy appended before it, and a
# compaction changes no count. BASALT_CRASH_ROUNDS sets the rounds per
# catalog (default 15); BASALT_CRASH_SEED the random seed.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/iceberg_inputs.bash"
rounds=${BASALT_CRASH_ROUNDS:-15}
RANDOM=${BASALT_CRASH_SEED:-$$}
echo "seed ${BASALT_CRASH_SEED:-$$}"
copies=("$in/a.parquet" "$in/a.parquet" "$in/a.parquet" "$in/a.parquet")

# expected_counts: reads `iceberg snapshots --format json` on stdin, prints
# "SNAPSHOT-ID ROWS" for every snapshot, walking each one's ancestry.
expected_counts() {
  node -e '
    // Snapshot ids pass 2^53: they stay the text the CLI printed.
    const snaps = new Map();
    for (const line of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) {
      const s = JSON.parse(line);
      s.id = line.match(/"snapshot_id":(\d+)/)[1];
      s.parent = (line.match(/"parent_snapshot_id":(\d+)/) || [])[1];
      snaps.set(s.id, s);
    }
    for (const id of snaps.keys()) {
      const chain = [];
      for (let at = id; at; at = snaps.get(at) && snaps.get(at).parent) chain.unshift(snaps.get(at));
      let rows = 0, batches = 0;
      for (const s of chain) {
        const added = Number(s.summary["added-records"] || 0);
        if (s.operation === "append") { rows += added; batches += added / 3000; }
        else if (s.operation === "delete") rows -= batches;
        else if (s.operation !== "replace") rows = NaN;
      }
      console.log(id, rows);
    }'
}

# verify CATALOG-OPTIONS WHAT: the table loads, every snapshot counts as
# expected, the current one too, and an append goes through.
verify() {
  local cat=$1 what=$2 id want got current
  if ! "$basalt" iceberg snapshots db.t $cat --format json >"$tmp/snaps" 2>"$tmp/err"; then
    check "$what: the table loads ($(head -1 "$tmp/err"))" false
    return 1
  fi
  expected_counts <"$tmp/snaps" >"$tmp/expected"
  current=$("$basalt" iceberg describe db.t $cat --format json |
    grep -o '"current_snapshot_id":[0-9]*' | cut -d: -f2)
  local ok=true
  while read -r id want; do
    got=$("$basalt" iceberg count db.t --snapshot "$id" $cat 2>"$tmp/err")
    if [ "$got" != "$want" ]; then
      echo "  $what: snapshot $id counts '$got', want $want: $(head -1 "$tmp/err")"
      ok=false
    fi
    [ "$id" = "$current" ] && [ "$("$basalt" iceberg count db.t $cat)" != "$want" ] && ok=false
  done <"$tmp/expected"
  check "$what: every snapshot reads with the rows the snapshot list implies" $ok
  expect 0 "$basalt" iceberg append db.t "$in/a.parquet" $cat
}

# crash_rounds CATALOG-OPTIONS NAME: the rounds on one table.
crash_rounds() {
  local cat=$1 name=$2 r op delay pid killed=0 finished=0 landed=0 before
  for r in $(seq 1 "$rounds"); do
    case $((r % 3)) in
      0) op=(append db.t "${copies[@]}") ;;
      1) op=(delete db.t --mode mor --where "id = $r") ;;
      2) op=(compact db.t --all) ;;
    esac
    delay=$((RANDOM % 150))
    before=$(wc -l <"$tmp/snaps")
    "$basalt" iceberg "${op[@]}" $cat >/dev/null 2>&1 &
    pid=$!
    sleep "$(printf '0.%03d' "$delay")"
    if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); else finished=$((finished + 1)); fi
    wait "$pid" 2>/dev/null
    verify "$cat" "$name round $r (${op[0]}, killed after ${delay} ms)" || break
    # the verify's own append adds one snapshot
    [ "$(wc -l <"$tmp/snaps")" -gt $((before + 1)) ] && landed=$((landed + 1))
  done
  echo "$name: $killed killed ($landed of all rounds committed), $finished finished before the kill"
}

mkdir -p "$tmp/wh" "$tmp/fs"
cat="--catalog sqlite:$tmp/wh/catalog.db"
expect 0 "$basalt" iceberg create db.t --like "$in/a.parquet" --format-version 2 $cat
expect 0 "$basalt" iceberg append db.t "$in/a.parquet" $cat
verify "$cat" "sqlite start"
crash_rounds "$cat" sqlite

fs="--catalog file:$tmp/fs"
expect 0 "$basalt" iceberg create db.t --like "$in/a.parquet" --format-version 3 $fs
expect 0 "$basalt" iceberg append db.t "$in/a.parquet" $fs
verify "$fs" "file start"
crash_rounds "$fs" file

finish
