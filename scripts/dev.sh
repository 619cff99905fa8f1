#!/bin/sh
# The two set-up commands of the README, for a fresh Debian 12 machine:
#   scripts/dev.sh sample   install what is missing, build, profile the sample workload
#   scripts/dev.sh test     install what is missing, build, run the whole test suite
#                           in the plain build, then again under ASan+UBSan (the quick
#                           tests and the slow suite's fault tests at reduced sizes),
#                           then build the tree with clang too (ASan+UBSan, warnings as
#                           errors, the fuzz targets) and run its quick unit tests and
#                           each fuzz target for a few seconds;
#                           the last line is "N passed, N failed, N skipped"
# Between edits, `meson test -C build --suite quick` leaves out the tests of the slow
# suite (those over ~10 s; tests/meson.build lists them).
set -eu
cd "$(dirname "$0")/.."

PKGS="gcc meson ninja-build pkg-config libuv1-dev libcjson-dev libsqlite3-dev sqlite3 python3 python3-dev util-linux"
# The test command's second compiler: clang, and its runtimes of ASan,
# UBSan and libFuzzer (libclang-rt-dev: only recommended by clang's
# packages, which --no-install-recommends leaves out).
TEST_BUILD_PKGS="clang libclang-rt-dev"

install_missing() { # install_missing [packages]: PKGS by default
	missing=""
	for p in ${1:-$PKGS}; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "installing:$missing"
	if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# For the tests only: the browser that loads report.html (agent-report), the
# shell that runs the zsh completion (completion-zsh) and Debian's PyTorch
# (python-mstx's mstx.torch part, about 40 s to install).  Their tests skip,
# saying so, where they cannot be installed, so a failure here is not one of
# the set-up.
TEST_PKGS="chromium zsh python3-torch"

install_test_extras() {
	for p in $TEST_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" && continue
		echo "installing $p (for the tests)"
		if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
			{ $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
				--no-install-recommends "$p" >/dev/null; } ||
			echo "cannot install $p: the tests that need it skip"
	done
}

configure() { # configure DIR [meson options...]
	dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >/dev/null
	fi
}

build() { # build DIR [meson options...]
	configure "$@"
	ninja -C "$1" >/dev/null
}

# Count meson's results from its JSON log: passed, failed (fail, timeout,
# error, unexpected pass), skipped.
count() {
	python3 - "$@" <<'PY'
import json, sys
p = f = s = 0
for log in sys.argv[1:]:
    try:
        lines = open(log).read().splitlines()
    except OSError:
        continue
    for line in lines:
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"): p += 1
        elif r == "SKIP": s += 1
        else: f += 1
print(f"{p} passed, {f} failed, {s} skipped")
PY
}

case "${1:-}" in
sample)
	install_missing
	build build
	out="$PWD/prof"
	mkdir -p "$out"
	./build/launcher/msprof --output="$out" --host-sys=cpu,mem,disk,network \
		--host-sys-usage=cpu,mem ./build/sample/msprof-sample --epochs 5 --dir "$out"
	echo "profile written under $out:"
	ls -d "$out"/PROF_*
	;;
test)
	install_missing
	install_missing "$TEST_BUILD_PKGS"
	install_test_extras
	build build
	configure build-asan -Db_sanitize=address,undefined -Db_lundef=false
	# The tests' checkers start python3 from PATH some 230 times a build.
	# Where something else stands first on PATH (pyenv's shim: 0.2 s a
	# start, against 0.03 s), they get the python3 installed above; the
	# Python under test (the mstx package's) is meson's MSTX_PYTHON.
	if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
		mkdir -p build/dev-bin
		ln -sf /usr/bin/python3 build/dev-bin/python3
		PATH="$PWD/build/dev-bin:$PATH"
		export PATH
	fi
	rc=0
	# The plain build's tests that must run alone (suite serial: their
	# ground truth is machine-wide, loopback bytes and disk writes) first,
	# with nothing else on the machine, then those kept from beside the
	# build below (suite early; tests/meson.build says why).
	meson test -C build --print-errorlogs --num-processes 2 --suite serial --suite early --logbase early || rc=1
	# Then its other tests, while the sanitized build compiles at the lowest
	# CPU and I/O priority: those tests mostly wait (they leave about a
	# third of two cores idle), and the build takes that instead of its own
	# minutes before them.  It gets a session of its own and that session's
	# autogroup (where the kernel groups tasks by session) the lowest
	# priority: nice alone only ranks tasks inside their group, and meson
	# runs each test in a session of its own, so a niced build in this
	# session's group took an equal share beside each test (a third more
	# time for the CPU-bound ones; none with its group niced).
	setsid -w sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
		command -v ionice >/dev/null 2>&1 && exec nice -n 19 ionice -c 3 ninja -C build-asan
		exec nice -n 19 ninja -C build-asan' >build-asan/ninja.log 2>&1 &
	asan_build=$!
	meson test -C build --print-errorlogs --num-processes 2 --no-suite serial --no-suite early || rc=1
	if ! wait "$asan_build"; then
		cat build-asan/ninja.log
		echo "the sanitized build failed"
		count build/meson-logs/early.json build/meson-logs/testlog.json
		exit 1
	fi
	# The sanitized build: the quick tests, then the slow suite's fault
	# tests at reduced sizes (suite fault); the slow suite's others ran at
	# their full sizes in the plain build above.
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	# The clang build compiles beside them, as the sanitized build did
	# beside the plain build's tests: the whole tree, warnings as errors,
	# sanitized, with the fuzz targets (tests/fuzz, docs/FUZZING.md).
	[ -f build-clang/build.ninja ] || CC=clang meson setup build-clang -Db_sanitize=address,undefined \
		-Db_lundef=false --werror -Dfuzz=enabled >/dev/null
	setsid -w sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
		command -v ionice >/dev/null 2>&1 && exec nice -n 19 ionice -c 3 ninja -C build-clang
		exec nice -n 19 ninja -C build-clang' >build-clang/ninja.log 2>&1 &
	clang_build=$!
	meson test -C build-asan --print-errorlogs --num-processes 2 --no-suite slow || rc=1
	MSPROF_TEST_REDUCED=1 meson test -C build-asan --print-errorlogs --num-processes 2 --suite fault \
		--logbase fault || rc=1
	logs="build/meson-logs/early.json build/meson-logs/testlog.json build-asan/meson-logs/testlog.json
		build-asan/meson-logs/fault.json"
	if ! wait "$clang_build"; then
		cat build-clang/ninja.log
		echo "the clang build failed"
		count $logs
		exit 1
	fi
	echo "built the tree with $(clang --version | head -n 1) in build-clang (ASan+UBSan, warnings as errors," \
		"the fuzz targets: $(cd build-clang/tests/fuzz && ls -d fuzz-* | grep -v '\.' | tr '\n' ' ' | sed 's/ *$//'))"
	# its quick unit tests, and each fuzz target for a few seconds
	meson test -C build-clang --print-errorlogs --num-processes 2 --suite unit --suite fuzz --no-suite slow \
		|| rc=1
	count $logs build-clang/meson-logs/testlog.json
	exit $rc
	;;
*)
	echo "usage: scripts/dev.sh sample|test" >&2
	exit 2
	;;
esac
