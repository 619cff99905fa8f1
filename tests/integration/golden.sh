#!/bin/bash
# Golden export: a small recorded PROF dir (tests/golden/prof: host CPU,
# memory, disk, network, per-process usage, OS runtime calls, mstx
# annotations and steps, fake-CUPTI device tasks and runtime calls,
# fake-NVML device samples) is exported in each of msprof's forms and every
# output is compared, file by file, with tests/golden/expected.  The export
# is a pure function of the raw files, so any difference is a change of
# behaviour: the proof that a restructure changed none.
#
# The timestamp msprof puts in output names (_YYYYMMDDhhmmss) is the time of
# the export; it is taken out of names before comparing.  report.html is
# compared as the data it embeds, less the export's path and time.  The database is
# compared as sqlite3's .dump.
#
# After a change of output that is meant (and shown to the readers in
# ../shared/readers), GOLDEN_UPDATE=1 writes the new expected files:
#   GOLDEN_UPDATE=1 meson test -C build golden
. "$SRCDIR/tests/integration/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to dump the database"
export TZ=UTC LC_ALL=C

GOLD="$SRCDIR/tests/golden"
SRC=$(ls -d "$GOLD"/prof/PROF_*) || exit 1
NAME=$(basename "$SRC")

# $1 form: a fresh copy of the raw files, exported with msprof's options $2..
export_form() {
	local form=$1 d
	shift
	d="$T_WORK/$form/$NAME"
	mkdir -p "$d"
	cp -r "$SRC"/. "$d"/
	if ! "$MSPROF" --export=on --output="$d" "$@" >"$T_WORK/$form.log" 2>&1; then
		t_fail "$form: msprof --export=on $* failed: $(tail -n 3 "$T_WORK/$form.log")"
		return 1
	fi
}

# $1 form: its outputs, names without the export's time, in $T_WORK/got/$1
collect() {
	local form=$1 d="$T_WORK/$1/$NAME" out="$T_WORK/got/$1" f
	mkdir -p "$out"
	for f in "$d"/mindstudio_profiler_output/*; do
		case $f in
		# the report's numbers: its JSON without the path and time of the export
		*/report.html) python3 "$SRCDIR/tests/helpers/report-data.py" --golden "$f" >"$out/report.data.json" ;;
		*) [ -f "$f" ] && cp "$f" "$out/$(basename "$f" | sed 's/_[0-9]\{14\}\././')" ;;
		esac
	done
	for f in "$d"/msprof_*.db; do
		[ -f "$f" ] && sqlite3 "$f" .dump >"$out/msprof.db.dump"
	done
	return 0
}

export_form text && collect text
export_form json --summary-format=json && collect json
export_form step --model-id=4294967295 --iteration-id=2 && collect step
export_form db --type=db && collect db
# the query's table, from the text form's database
"$MSPROF" --query=on --output="$T_WORK/text/$NAME" >"$T_WORK/got/query.txt" 2>&1 ||
	t_fail "query: msprof --query=on failed: $(cat "$T_WORK/got/query.txt")"

if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
	rm -rf "$GOLD/expected"
	cp -r "$T_WORK/got" "$GOLD/expected"
	t_ok "expected outputs written to $GOLD/expected"
	t_done
fi

# Every expected file is there and the same, and nothing else was written.
for form in text json step db; do
	t_eq "$form: the same files" "$(cd "$T_WORK/got/$form" && ls)" "$(cd "$GOLD/expected/$form" && ls)"
	for f in "$GOLD/expected/$form"/*; do
		if diff -u "$f" "$T_WORK/got/$form/$(basename "$f")" >"$T_WORK/diff" 2>&1; then
			t_ok "$form/$(basename "$f") as expected"
		else
			t_fail "$form/$(basename "$f") differs from the golden copy: $(head -c 3000 "$T_WORK/diff")"
		fi
	done
done
t_check "query: as expected" diff -u "$GOLD/expected/query.txt" "$T_WORK/got/query.txt"
t_done
