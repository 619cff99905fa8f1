#!/bin/bash
# Disk full during an export: the golden PROF dir is exported on a 2 MiB
# tmpfs filled so that the export runs out of room at a different point
# each time (the database, a summary, the timeline, README.txt).  A failed
# export names ENOSPC ("No space left on device") and a path on that file
# system as its error, above a harmless note made earlier (end_info is
# taken away, so the export notes that first); no file is left under a
# final name that differs from the same export made with room, and no
# temporary file is left behind.
. "$SRCDIR/tests/integration/lib.sh"
export TZ=UTC LC_ALL=C

command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to compare databases"
[ "$(id -u)" -eq 0 ] || t_skip "mounting a tmpfs needs root"
MNT="$T_WORK/mnt"
mkdir -p "$MNT"
mount -t tmpfs -o size=2m tmpfs "$MNT" 2>/dev/null || t_skip "cannot mount a tmpfs here (no privilege)"
trap 'umount "$MNT" 2>/dev/null; t_cleanup' EXIT

SRC=$(ls -d "$SRCDIR"/tests/golden/prof/PROF_*) || exit 1
NAME=$(basename "$SRC")

# outputs of an export: "key path" lines, the key without the export's time
list_outputs() {
	(cd "$1" && find . -name 'msprof_*.db' -o -path './mindstudio_profiler_output/*' -type f) |
		while read -r f; do echo "$(echo "$f" | sed 's/_[0-9]\{14\}\././') $f"; done
}

# the export with room, for the files a failed one may keep
REF="$T_WORK/ref/$NAME"
mkdir -p "$REF"
cp -r "$SRC"/. "$REF"/
rm -f "$REF/host/end_info"
"$MSPROF" --export=on --output="$REF" >"$T_WORK/ref.log" 2>&1 || t_fail "export with room failed: $(cat "$T_WORK/ref.log")"
t_grep "the export with room notes the missing end_info" "end_info' is missing" "$T_WORK/ref.log"
NEED=$(du -sk --apparent-size "$REF" | cut -f1)
declare -A REFS
while read -r key f; do REFS[$key]=$f; done < <(list_outputs "$REF")

failed=0 ok=0 db_failed=0 out_failed=0
# free space from nothing to more than the export needs, in 16 KiB steps
# around the database and 4 KiB steps over the outputs
for free_kb in 0 16 64 160 320 480 640 800 960 1024 1040 1056 1060 1064 1068 1072 1080 1088 1096 1104 1120 1152 1280; do
	rm -rf "${MNT:?}"/*
	d="$MNT/$NAME"
	mkdir -p "$d"
	cp -r "$SRC"/. "$d"/
	rm -f "$d/host/end_info"
	avail=$(df -B1024 --output=avail "$MNT" | tail -n 1 | tr -d ' ')
	fill=$((avail - free_kb))
	[ "$fill" -gt 0 ] && { dd if=/dev/zero of="$MNT/filler" bs=1024 count="$fill" 2>/dev/null || true; }
	log="$T_WORK/free-$free_kb.log"
	if "$MSPROF" --export=on --output="$d" >"$log" 2>&1; then
		ok=$((ok + 1))
	else
		failed=$((failed + 1))
		err=$(grep '^\[ERROR\] cannot export' "$log" | head -n 1)
		case "$err" in
		*"No space left on device"*) ;;
		*) t_fail "free ${free_kb} KiB: the error does not name ENOSPC: '$err'"; cat "$log" >&2 ;;
		esac
		case "$err" in
		*"'$MNT/"*) ;;
		*) t_fail "free ${free_kb} KiB: the error names no path under $MNT: '$err'" ;;
		esac
		case "$err" in
		*end_info*) t_fail "free ${free_kb} KiB: the error is the earlier note: '$err'" ;;
		esac
		grep -q "end_info' is missing" "$log" || t_fail "free ${free_kb} KiB: the earlier note is lost"
		case "$err" in
		*database*) db_failed=$((db_failed + 1)) ;;
		*) out_failed=$((out_failed + 1)) ;;
		esac
	fi
	# every file under a final name is whole: the same as with room
	while read -r key f; do
		r=${REFS[$key]:-}
		[ -n "$r" ] || { t_fail "free ${free_kb} KiB: '$f' is not an output of the export with room"; continue; }
		case "$key" in
		*.db) # a database is compared by its tables, not its bytes
			[ "$(sqlite3 "$d/$f" .dump 2>&1 | md5sum)" = "$(sqlite3 "$REF/$r" .dump 2>&1 | md5sum)" ] ||
				t_fail "free ${free_kb} KiB: '$f' is not whole" ;;
		*/README.txt) [ -s "$d/$f" ] || t_fail "free ${free_kb} KiB: README.txt is empty" ;;
		# the report by its numbers: its JSON without the path and time of the export
		*/report.html)
			# (the export's notes name files under its own folder)
			diff <(python3 "$SRCDIR/tests/helpers/report-data.py" --golden "$d/$f" 2>&1 | sed "s|$T_WORK/[a-z]*/|DIR/|g") \
				<(python3 "$SRCDIR/tests/helpers/report-data.py" --golden "$REF/$r" 2>&1 | sed "s|$T_WORK/[a-z]*/|DIR/|g") \
				>"$T_WORK/report.diff" ||
				{ t_fail "free ${free_kb} KiB: '$f' is not whole"; head -20 "$T_WORK/report.diff" >&2; } ;;
		*) cmp -s "$d/$f" "$REF/$r" || t_fail "free ${free_kb} KiB: '$f' is not whole" ;;
		esac
	done < <(list_outputs "$d")
	left=$(find "$d" -name '.*.??????' | head -n 3)
	[ -z "$left" ] || t_fail "free ${free_kb} KiB: temporary files left: $left"
done
echo "# $ok exports fitted, $failed failed ($db_failed in the database, $out_failed in the outputs); the export needs about ${NEED} KiB"
[ "$db_failed" -gt 0 ] || t_fail "no export ran out of room in the database"
[ "$out_failed" -gt 0 ] || t_fail "no export ran out of room in the outputs"
[ "$ok" -gt 0 ] || t_fail "no export fitted"
[ "$T_FAILS" -eq 0 ] && t_ok "disk full: ENOSPC and the path named, no partial file under a final name"
grep -h "^\[ERROR\] cannot export" "$T_WORK"/free-*.log | sed "s|$MNT|MNT|" | sort | uniq -c | sed "s/^/# /"
exit $((T_FAILS > 0))
