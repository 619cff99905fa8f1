# The mstx loader path without LD_PRELOAD and without our library: a
# program with its own CANN-style loader gets the agent only through
# MSTX_INJECTION_PATH, and the agent fills the tables as the protocol says.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/mstx-loader-app
dir=$T_WORK/loader
if MSTX_INJECTION_PATH="$AGENT" MSPROF_AGENT_OUTPUT="$dir" "$APP" run >"$T_WORK/out" 2>"$T_WORK/err"; then
	t_ok "the loader found InitInjectionMstx and the tables are filled as §6 says"
	read -r pid tid <"$T_WORK/out"
	t_check "file holds exactly the calls" "$APP" check "$dir/host/data" "$pid" "$tid"
	a_expect_stderr "$T_WORK/err"
else
	t_fail "the loader program failed"; cat "$T_WORK/err" >&2
fi
# the agent is not in the program's symbol table (RTLD_LOCAL): nothing of
# it leaked out but the injection entry points, checked with nm
# the interposed OS runtime calls (osrt.c), the 64 variants included
OSRT_APIS='pthread_mutex_lock|pthread_cond_wait|pthread_cond_timedwait|pthread_join|nanosleep|usleep|sleep|clock_nanosleep|read|write|pread|pwrite|pread64|pwrite64|readv|writev|send|recv|sendto|recvfrom|poll|ppoll|select|epoll_wait|fsync|fdatasync|open|open64|openat|openat64|mmap|mmap64|munmap|sem_wait|sem_timedwait|sem_clockwait|pthread_cond_clockwait|pthread_mutex_timedlock|accept|accept4|connect|recvmsg|sendmsg|epoll_pwait|pselect|__read_chk|__pread_chk|__pread64_chk|__recv_chk|__recvfrom_chk|__poll_chk|__ppoll_chk'
# the calls that end a process image (exitflush.c), in both builds
EXIT_APIS='execve|execv|execvp|execvpe|execl|execlp|execle|fexecve|execveat|exit|_exit|_Exit|wait|waitpid|wait3|wait4|waitid'
# NCCL's profiler plugin interface (nccl.c), every version NCCL looks up
NCCL_APIS='ncclProfiler_v1|ncclProfiler_v2|ncclProfiler_v3|ncclProfiler_v4|ncclProfiler_v5|ncclProfiler_v6'
ENTRIES='InitInjectionMstx|InitializeInjectionNvtx2|InitializeInjection|msprofStart|msprofStop|msprofSchedule|mstx(MarkA|RangeStartA|RangeEnd|DomainCreateA|DomainDestroy|DomainMarkA|DomainRangeStartA|DomainRangeEnd|GetToolId|Step|StepEnd|NameOsThreadA)|'"$NCCL_APIS"'|'"$EXIT_APIS"
if command -v nm >/dev/null; then
	# the plain agent wraps no libc call but exec, exit, _exit and wait: a job that does
	# not ask for osrt pays nothing on its system calls
	syms=$(nm -D --defined-only "$AGENT" | awk '{print $3}')
	extra=$(echo "$syms" | grep -v -E '^('"$ENTRIES"')$' || true)
	missing=$(echo "$EXIT_APIS|$NCCL_APIS" | tr '|' '\n' | while read -r s; do echo "$syms" | grep -qx "$s" || echo "$s"; done)
	if [ -z "$extra" ] && [ -z "$missing" ]; then
		t_ok "the agent exports only its entry points, the mstx API, NCCL's profiler plugin and the calls that end an image, exit and the wait family (--dump-on)"
	else
		t_fail "the agent exports more: '$extra', lacks: '$missing'"
	fi
	# the osrt build: the same, and every osrt call
	syms=$(nm -D --defined-only "$AGENT_OSRT" | awk '{print $3}')
	extra=$(echo "$syms" | grep -v -E '^('"$ENTRIES"'|'"$OSRT_APIS"')$' || true)
	missing=$(echo "$OSRT_APIS" | tr '|' '\n' | while read -r s; do echo "$syms" | grep -qx "$s" || echo "$s"; done)
	if [ -z "$extra" ] && [ -z "$missing" ]; then
		t_ok "the osrt agent exports the entry points, the mstx API, the calls that end an image, exit, the wait family and the 52 wrapped calls"
	else
		t_fail "the osrt agent exports more: '$extra', lacks: '$missing'"
	fi
	libs=$(objdump -p "$AGENT" 2>/dev/null | awk '/NEEDED/ {print $2}' | grep -v -E '^(libc|libpthread|libdl|ld-linux.*)\.so' || true)
	if [ "${SANITIZE:-none}" != none ]; then
		t_ok "sanitized build ($SANITIZE): the agent's libraries not checked"
	elif [ -z "$libs" ]; then
		t_ok "the agent needs libc/libpthread/libdl only"
	else
		t_fail "the agent needs: $libs"
	fi
fi
t_done
