/* Read one process's agent files (agent_<pid>.data.slice_*) back for the
 * tests: every record decoded, in file order, with the checks that hold for
 * any agent file (header source and pid, PROCESS first in every slice, no
 * damage, COUNTERS last). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ar_event {
	uint16_t rec;          /* RAW_AGENT_MARK / _RANGE_START / _RANGE_END / _OSRT (type: api, id: end) */
	uint64_t ts;
	uint32_t tid, type;
	uint64_t id, domain, category;
	uint32_t color;
	char *msg;             /* NULL for an END */
	uint32_t msg_len;
};

struct ar_name {
	uint64_t key, key2;    /* tid / domain id / (domain, category) */
	char *name;
};

struct ar_file {
	uint32_t pid, ppid;
	int32_t rank;
	int32_t local_rank, world_size, local_world_size, node_rank, device; /* -1: unknown or absent */
	char *name, *cmdline;
	unsigned slices, processes;
	unsigned windows;      /* PROCESS records flagged RAW_AGENT_WINDOW_START */
	struct ar_event *ev;
	size_t n_ev;
	struct ar_name *threads, *domains, *categories;
	size_t n_threads, n_domains, n_categories;
	uint64_t events, dropped, bad, truncated;  /* last COUNTERS */
	uint64_t gpu_lost, gpu_untimed, gpu_bad;     /* last COUNTERS: device records not written */
	/* last COUNTERS: dropped by cause (they add up to dropped) */
	uint64_t dropped_full, dropped_nested, dropped_noslot, dropped_unopened, dropped_write;
	uint64_t ended;           /* the last COUNTERS' ended (RAW_AGENT_ENDED_LOST) */
	unsigned n_counters;
	bool counters_last;    /* the file's last record is COUNTERS */
	bool counters_final;   /* the last COUNTERS is the window's final one (0 in a flush's) */
	uint64_t damage;       /* bad records, skipped or torn bytes */
	char problem[256];     /* first format problem found, "" if none */
};

/* 0, or -errno (-ENOENT: no slices for that pid). */
int ar_load(const char *data_dir, uint32_t pid, struct ar_file *ret);
void ar_free(struct ar_file *f);

/* Lookups (NULL when absent; the last record wins for names). */
const char *ar_thread_name(const struct ar_file *f, uint32_t tid);
const char *ar_domain_name(const struct ar_file *f, uint64_t id);
uint64_t ar_domain_id(const struct ar_file *f, const char *name); /* 0: default or absent */
const char *ar_category_name(const struct ar_file *f, uint64_t domain, uint64_t category);
/* Events of one thread, in file order, into a malloc'd array. */
size_t ar_thread_events(const struct ar_file *f, uint32_t tid, const struct ar_event ***ret);
/* The first event with this kind and message, or NULL. */
const struct ar_event *ar_find(const struct ar_file *f, uint16_t rec, const char *msg);
/* The END of a start/end range id, or NULL. */
const struct ar_event *ar_find_end(const struct ar_file *f, uint64_t id);
size_t ar_count(const struct ar_file *f, uint16_t rec);
