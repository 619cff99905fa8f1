# Shared by the tests whose job is test-capture-app's `steps` (schedule.sh,
# flight-recorder.sh), sourced after lib.sh: the marks of each step the job
# printed ("marks s3 15") against those a PROF dir's export holds.

# cap_tx_marks DIR [A B [PID]]: the marks per step in PROF dir DIR's
# msprof_tx CSV (domain default), of pid PID when given: "s3:15 s4:15";
# steps A..B each, none counted 0, or every step present when no A B.
cap_tx_marks() {
	python3 - "$@" <<'PY'
import collections, csv, glob, os, sys
d = sys.argv[1]
pid = sys.argv[4] if len(sys.argv) > 4 else ""
n = collections.Counter()
for path in glob.glob(os.path.join(d, "mindstudio_profiler_output", "msprof_tx_*.csv")):
    for r in csv.DictReader(open(path)):
        if r["domain"] == "default" and (not pid or r["pid"] == pid) and r["message"].startswith("s"):
            n[r["message"].split("-")[0]] += 1
if len(sys.argv) > 3:
    steps = ["s%d" % k for k in range(int(sys.argv[2]), int(sys.argv[3]) + 1)]
else:
    steps = sorted(n, key=lambda k: int(k[1:]))
print(" ".join("%s:%d" % (k, n[k]) for k in steps))
PY
}

# cap_job_marks FILE A B: what the job printed into FILE for steps A..B:
# "s3:15 s4:15"
cap_job_marks() {
	local k out=""
	for ((k = $2; k <= $3; k++)); do
		out+="s$k:$(sed -n "s/^marks s$k \([0-9]*\)$/\1/p" "$1") "
	done
	echo "${out% }"
}
