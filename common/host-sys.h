/* The --host-sys and --host-sys-usage flags, and the range of
 * --osrt-threshold: one home, low enough for every folder.  The settings
 * table (ipc/settings.c) gives the flags their names and is their only
 * parser; the launcher sets defaults with them, msprofd hands them to the
 * samplers (collectors/host.c), the agent takes the threshold, and the
 * export reads them back from host/sample.json.  Header only, libc only:
 * the agent includes it too. */
#pragma once

enum host_sys_flags {
	HOST_SYS_CPU = 1 << 0,
	HOST_SYS_MEM = 1 << 1,
	HOST_SYS_DISK = 1 << 2,
	HOST_SYS_NETWORK = 1 << 3,
	/* not sampled by msprofd: the agent's osrt build records OS runtime
	 * calls inside the application; the flag stays on the command line and
	 * in sample.json, and travels to msprofd as its own "osrt" switch */
	HOST_SYS_OSRT = 1 << 4,
};

/* What msprofd's samplers take (collectors/host.c refuses the rest). */
#define HOST_SYS_SAMPLED (HOST_SYS_CPU | HOST_SYS_MEM | HOST_SYS_DISK | HOST_SYS_NETWORK)

/* The usage flags are the --host-sys ones of the same name, so that a
 * reader of either list (the export's domains) tests one constant. */
enum host_usage_flags {
	HOST_USAGE_CPU = HOST_SYS_CPU,
	HOST_USAGE_MEM = HOST_SYS_MEM,
};

/* --osrt-threshold, in nanoseconds. */
#define OSRT_THRESHOLD_DEFAULT_NS 1000ULL
#define OSRT_THRESHOLD_MAX_NS 1000000000ULL
