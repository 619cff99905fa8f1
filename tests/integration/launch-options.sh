#!/bin/bash
# The msprof command line against the real binary: every bad option exits
# non-zero with msprof's exact message on stderr and leaves no PROF dir; the
# application checks; forbidden and unwritable output directories; --help,
# --version; the option forms that must work (--opt value, --application,
# --environment, "useless" warnings).
. "$SRCDIR/tests/integration/lib.sh"

cd "$T_WORK" || exit 1
mkdir -p out
OUT=$T_WORK/out

# No PROF dir anywhere under the work dir.
no_prof_dir() {
	local n
	n=$(find "$T_WORK" -name 'PROF_*' -type d | wc -l)
	[ "$n" -eq 0 ]
}

# expect_err "what" "exact stderr line" msprof-args...
expect_err() {
	local what=$1 want=$2; shift 2
	"$MSPROF" "$@" >"$T_WORK/stdout" 2>"$T_WORK/stderr"
	local rc=$?
	if [ "$rc" -eq 0 ]; then t_fail "$what: exit 0"; return; fi
	if ! grep -qxF -- "$want" "$T_WORK/stderr"; then
		t_fail "$what: stderr lacks the line: $want"
		echo "--- stderr:" >&2; head -5 "$T_WORK/stderr" >&2
		return
	fi
	if ! no_prof_dir; then t_fail "$what: a PROF dir was left"; find "$T_WORK" -name 'PROF_*' >&2; return; fi
	t_ok "$what (exit $rc)"
}

APP=/bin/true
PID_GONE=2147483647   # above any pid_max

# --- getopt-level -----------------------------------------------------------
expect_err "unknown option" "$MSPROF: unrecognized option '--frobnicate=1'" --frobnicate=1 $APP
# a hint of two lines, not the usage of every option
t_grep "hint after an unknown option" "\`msprof --help\` lists every option; \`man msprof\` describes them." \
	"$T_WORK/stderr"
t_eq "no more than a hint after an unknown option" "$(wc -l <"$T_WORK/stderr")" 3
expect_err "ambiguous prefix" \
	"$MSPROF: option '--host-sys-u=cpu' is ambiguous; possibilities: '--host-sys-usage-freq' '--host-sys-usage'" \
	--host-sys-u=cpu $APP
t_grep "the option meant after an ambiguous prefix" "Did you mean '--host-sys-usage'?" "$T_WORK/stderr"
# a misspelt option: the one meant, and a hint
expect_err "misspelt option" "$MSPROF: option '--host-sy=cpu' is ambiguous; possibilities: '--host-sys-usage-freq' \
'--host-sys' '--host-sys-pid' '--host-sys-usage' '--host-sys-freq'" --host-sy=cpu $APP
t_grep "the option meant after a misspelt one" "Did you mean '--host-sys'?" "$T_WORK/stderr"
expect_err "misspelt option, no prefix" "$MSPROF: unrecognized option '--outptu=x'" --outptu=x $APP
t_grep "the option meant after a misspelt one" "Did you mean '--output'?" "$T_WORK/stderr"
t_eq "four lines for a misspelt option" "$(wc -l <"$T_WORK/stderr")" 4
expect_err "--help takes no value" "$MSPROF: option '--help' doesn't allow an argument" --help=yes

# --- values -------------------------------------------------------------------
expect_err "--type" "[ERROR] Argument --type: invalid value: xml. Please input 'text' or 'db'." --type=xml $APP
expect_err "--type without value" "[ERROR] Argument --type: expected one argument" --type
expect_err "--export" "[ERROR] Argument --export: invalid value: maybe. Please input 'on' or 'off'." \
	--export=maybe --output="$OUT"
expect_err "--storage-limit below" \
	"[ERROR] Argument --storage-limit 199MB is invalid, valid range is 200MB~4294967295MB" --storage-limit=199MB $APP
expect_err "--storage-limit above" \
	"[ERROR] Argument --storage-limit 4294967296MB is invalid, valid range is 200MB~4294967295MB" \
	--storage-limit=4294967296MB $APP
expect_err "--storage-limit without MB" \
	"[ERROR] Argument --storage-limit 300 is invalid, valid range is 200MB~4294967295MB" --storage-limit=300 $APP
expect_err "--host-sys value" \
	"[ERROR] Argument --host-sys: invalid value:gpu. Please input in the range of 'cpu|mem|disk|network|osrt'" \
	--output="$OUT" --host-sys=cpu,gpu $APP
expect_err "--host-sys empty" \
	"[ERROR] Argument --host-sys is empty. Please input in the range of 'cpu|mem|disk|network|osrt'" --host-sys= $APP
expect_err "--host-sys before --output" \
	"[ERROR] If you want to use this parameter:--host-sys, please put it behind the --output or --application." \
	--host-sys=osrt --output="$OUT" $APP
expect_err "--osrt-threshold without osrt" \
	"[ERROR] Argument --osrt-threshold must be used with --host-sys=osrt." \
	--output="$OUT" --host-sys=cpu --osrt-threshold=10 $APP
expect_err "--osrt-threshold range" \
	"[ERROR] Argument --osrt-threshold: invalid int value: 2000000000.Please input data is in 0 to 1000000000." \
	--output="$OUT" --host-sys=osrt --osrt-threshold=2000000000 $APP
expect_err "--host-sys-usage" \
	"[ERROR] Argument --host-sys-usage=cpu,disk is invalid. Please input in the range of 'cpu|mem'." \
	--host-sys-usage=cpu,disk $APP
expect_err "--host-sys-usage-freq 0" \
	"[ERROR] Argument --host-sys-usage-freq: invalid int value: 0.Please input data is in 1 to 50." \
	--host-sys-usage-freq=0 $APP
expect_err "--host-sys-usage-freq 51" \
	"[ERROR] Argument --host-sys-usage-freq: invalid int value: 51.Please input data is in 1 to 50." \
	--host-sys-usage-freq 51 $APP
expect_err "--host-sys-usage-freq text" \
	"[ERROR] Argument --host-sys-usage-freq: invalid value: fast.Please input an integer value in 1-50." \
	--host-sys-usage-freq=fast $APP
expect_err "--host-sys-freq 1001" \
	"[ERROR] Argument --host-sys-freq: invalid int value: 1001.Please input data is in 1 to 1000." \
	--host-sys-freq=1001 $APP
expect_err "--host-sys-freq 0" \
	"[ERROR] Argument --host-sys-freq: invalid int value: 0.Please input data is in 1 to 1000." \
	--host-sys-freq=0 $APP
expect_err "--host-sys-pid text" \
	"[ERROR] Argument --host-sys-pid: invalid value: me.Please input an integer value.The min value is 0." \
	--host-sys-pid=me
expect_err "--host-sys-pid gone" \
	"[ERROR] Argument --host-sys-pid: invalid int value: $PID_GONE.The process cannot be found, please enter a correct host-sys-pid." \
	--host-sys-pid=$PID_GONE
expect_err "--sys-period 0" \
	"[ERROR] Argument --sys-period: invalid int value: 0.The range of period is 1~2592000 seconds." --sys-period=0
expect_err "--environment empty" "[ERROR] Argument --environment: expected one argument" --environment= $APP
expect_err "--application empty" "[ERROR] Argument --application: expected one argument" --application=
expect_err "--output empty" "[ERROR] Argument --output: expected one argument" --output= $APP

# --- modes --------------------------------------------------------------------
expect_err "nothing to do" \
	"[ERROR] No valid argument found in --application --sys-devices --host-sys --host-sys-usage --parse --query --export --analyze" --output="$OUT"
expect_err "host-sys without pid" \
	"[ERROR] The argument --host-sys-pid are required when app is empty and --host-sys is on." \
	--output="$OUT" --host-sys=cpu
expect_err "host-sys-usage without output" \
	"[ERROR] The argument --output is neccessary when --host-sys-usage is not empty" --host-sys-usage=cpu
expect_err "export without output" "[ERROR] The argument --output is neccessary when --export is not empty" --export=on
expect_err "export, type db, without output" \
	"[ERROR] The argument --output is neccessary when --export and --type is not empty" --export=on --type=db
expect_err "export of a missing dir" "[ERROR] Analysis output path($T_WORK/none) does not exist." \
	--export=on --output="$T_WORK/none"
expect_err "export with no PROF dir" "[ERROR] no PROF_* directory in '$OUT': give a PROF_* directory or the directory that holds them" --export=on --output="$OUT"

# --- the application ----------------------------------------------------------
printf 'not a program\n' >"$T_WORK/data.txt"
chmod 0644 "$T_WORK/data.txt"
mkdir -p "$T_WORK/adir"
expect_err "missing app" "[ERROR] App path($T_WORK/no/such/app) does not exist or permission denied!!!" \
	--output="$OUT" "$T_WORK/no/such/app"
expect_err "missing app, relative" "[ERROR] App path($T_WORK/./nope) does not exist or permission denied!!!" \
	--output="$OUT" ./nope
expect_err "app not on PATH" "[ERROR] App path(msprof-no-such-tool) does not exist or permission denied!!!" \
	--output="$OUT" msprof-no-such-tool arg
expect_err "app is a directory" \
	"[ERROR] Argument --application:$T_WORK/adir is a directory, please enter the executable file path." \
	--output="$OUT" "$T_WORK/adir"
expect_err "--application missing app" \
	"[ERROR] App path($T_WORK/nope) does not exist or permission denied!!!" --application="$T_WORK/nope -x"
expect_err "--application too long" "[ERROR] Argument --application: expected param length less than 2048" \
	--application="$(printf '/bin/true%02040d' 0)"
if [ "$(id -u)" -ne 0 ]; then
	expect_err "app not executable" "[ERROR] This app($T_WORK/data.txt) has no executable permission!" \
		--output="$OUT" "$T_WORK/data.txt"
fi

# --- the output directory -----------------------------------------------------
expect_err "forbidden character" "[ERROR] Argument --output $T_WORK/a\$b contains invalid character." \
	--output="$T_WORK/a\$b" $APP
expect_err "forbidden character, relative" "[ERROR] Argument --output $T_WORK/x|y contains invalid character." \
	--output 'x|y' $APP
expect_err "output is a file" "[ERROR] Argument --output $T_WORK/data.txt is not a dir." --output="$T_WORK/data.txt" $APP
expect_err "output under a file" "[ERROR] Create output dir failed.ErrorCode: 20, ErrorInfo: Not a directory." \
	--output="$T_WORK/data.txt/sub" $APP
[ -e "$T_WORK/a\$b" ] && t_fail "a directory with a forbidden name was made"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	# nobody must reach the work dir and run the binary, but not write here
	mkdir -p "$T_WORK/rootonly"
	chmod 0755 "$T_WORK" "$T_WORK/rootonly"
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	if as_nobody test -x "$MSPROF"; then
		expect_err_nobody() {
			local what=$1 want=$2; shift 2
			as_nobody env MSPROF_RUNTIME_DIR="$T_WORK/nobody-run" "$MSPROF" "$@" \
				>"$T_WORK/stdout" 2>"$T_WORK/stderr"
			local rc=$?
			if [ "$rc" -ne 0 ] && grep -qxF -- "$want" "$T_WORK/stderr" && no_prof_dir &&
			   [ ! -e "$T_WORK/rootonly/sub" ]; then
				t_ok "$what (exit $rc)"
			else
				t_fail "$what: exit $rc"; cat "$T_WORK/stderr" >&2
			fi
		}
		expect_err_nobody "unwritable output dir" "[ERROR] Argument --output $T_WORK/rootonly permission denied." \
			--output="$T_WORK/rootonly" $APP
		expect_err_nobody "uncreatable output dir" \
			"[ERROR] Create output dir failed.ErrorCode: 13, ErrorInfo: Permission denied." \
			--output="$T_WORK/rootonly/sub" $APP
		cd "$T_WORK/rootonly" || exit 1
		expect_err_nobody "unwritable current dir" \
			"[ERROR] Profiling output path $T_WORK/rootonly is not a dir or can not accessible." $APP
		cd "$T_WORK" || exit 1
	else
		echo "# nobody cannot run $MSPROF here: unwritable-dir checks skipped"
	fi
else
	echo "# not root or no setpriv: unwritable-dir checks skipped"
fi

# --- --help, --version, no arguments ------------------------------------------
"$MSPROF" --help >"$T_WORK/help" 2>"$T_WORK/stderr"
t_check "--help exits 0" [ $? -eq 0 ]
t_check "--help writes nothing on stderr" [ ! -s "$T_WORK/stderr" ]
t_grep "--help usage line" "      ./msprof [--options]" "$T_WORK/help"
for opt in output storage-limit application environment type export sys-period host-sys-usage-freq \
	   host-sys host-sys-pid host-sys-usage host-sys-freq help version; do
	line=$(printf '%8s%-32s<Optional> ' -- "$opt")
	if grep -qF -- "$line" "$T_WORK/help"; then t_ok "--help lists --$opt"; else t_fail "--help lacks --$opt"; fi
done
t_check "--help is the same with other options first" \
	bash -c '"$1" --type=db --help | cmp -s - "$2"' _ "$MSPROF" "$T_WORK/help"

"$MSPROF" --version >"$T_WORK/version"
t_check "--version exits 0" [ $? -eq 0 ]
t_check "--version prints the version" grep -qE '^msprof [0-9]+\.[0-9]+\.[0-9]+' "$T_WORK/version"

"$MSPROF" >"$T_WORK/stdout" 2>"$T_WORK/stderr"
t_check "no arguments fails" [ $? -ne 0 ]
t_grep "no arguments prints the usage" "Options:" "$T_WORK/stderr"

# --- forms that must work (these run msprofd) ---------------------------------
"$MSPROF" --output "$OUT/a" --export=on --environment 'MSPROF_T1=one;MSPROF_T2=two=2;junk' \
	/bin/sh -c 'echo "env:$MSPROF_T1:$MSPROF_T2"; exit 5' >"$T_WORK/stdout" 2>"$T_WORK/stderr"
rc=$?
t_check "launch: exit status of the app" [ "$rc" -eq 5 ]
t_grep "launch: --environment reaches the app" "env:one:two=2" "$T_WORK/stdout"
t_grep "launch: useless option warned" \
	"[WARNING] The argument --export is useless when --application is not empty" "$T_WORK/stdout"
t_grep "launch: bad --environment item warned" "[WARNING] Invalid app_env params junk" "$T_WORK/stdout"
t_grep "launch: start line" "[INFO] Start profiling...." "$T_WORK/stdout"
t_grep "launch: finished line" "[INFO] Profiling finished." "$T_WORK/stdout"
if dir=$(t_prof_dir "$OUT/a"); then
	t_grep "launch: data path printed" "[INFO] Process profiling data complete. Data is saved in $dir" "$T_WORK/stdout"
	t_grep "launch: info.json names the app pid's program" '"pid_name":"sh"' "$dir/host/info.json"
fi

"$MSPROF" --output="$OUT/b" --application="/bin/sh -c exit" >"$T_WORK/stdout" 2>"$T_WORK/stderr"
t_check "--application form runs" [ $? -eq 0 ]
t_prof_dir "$OUT/b" >/dev/null

t_done
