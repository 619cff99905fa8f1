/* The timeline's files (timeline-writer.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "export/files.h"
#include "export/tables.h"

struct exp;
struct exp_buf;

/* The timeline: events through exp_tl_event (one JSON object
 * each, no separator), metadata events through exp_tl_meta.  Split in
 * pieces of about e->tl_slice_bytes, each a JSON array with every
 * metadata event appended. */
struct exp_tl {
	struct exp *e;
	const char *dir, *stem;
	uint64_t limit;
	struct exp_out o;
	unsigned n_pieces;
	char **tmp;                 /* temporary name of each piece */
	uint64_t *events;           /* events in each piece */
	uint64_t events_in_piece, n_events, n_meta;
	unsigned since_check;
	FILE *meta;
	char *meta_buf;
	size_t meta_size;
	int err;
	bool spool;                 /* a layer written ahead: see exp_tl_spool_open */
};
int exp_tl_open(struct exp *e, struct exp_tl *t, const char *dir, const char *stem);
FILE *exp_tl_event(struct exp_tl *t);
FILE *exp_tl_meta(struct exp_tl *t);
/* A process's process_name, process_labels and process_sort_index, and a
 * thread's thread_name ("<kind> <tid>") and thread_sort_index (the tid). */
void exp_tl_process(struct exp_tl *t, unsigned pid, const char *name, const char *label, unsigned sort);
void exp_tl_thread(struct exp_tl *t, unsigned pid, int64_t tid, const char *kind);
/* The same named "<name> (<tid>)" where name is not empty (JSON-escaped). */
void exp_tl_thread_named(struct exp_tl *t, unsigned pid, int64_t tid, const char *kind, const char *name);
/* exp_tl_process for device dev's process of layer k, labelled "NPU <dev>"
 * (reference §9).  Process names must be unique in a file (MindSpore's
 * parser rejects a repeat, readers/NOTES.md §5), yet readers find a layer
 * by its exact name ("Ascend Hardware"): the first device of the layer
 * (first) keeps the name, every other one is "<name> (device <dev>)". */
void exp_tl_device_process(struct exp_tl *t, unsigned pid, const struct export_track_info *k, int64_t dev,
			   bool first);
/* A device layer's rows, ordered by device: a device's process (pid) and,
 * when the next device begins and after the last (exp_tl_devices_end),
 * its process metadata (exp_tl_device_process). */
struct exp_tl_devices {
	struct exp_tl *t;
	const struct export_track_info *k;
	uint32_t app_pid;
	int64_t dev;                /* -1: no row yet */
	unsigned pid;
	unsigned n_devs;            /* devices whose metadata is written */
};
/* Whether dev is a device id the timeline's pid packing holds (0 to 30;
 * a row of another is left out). */
bool exp_tl_device_valid(int64_t dev);
/* A row of device dev (valid): the metadata of the device before it when
 * dev is another one, and dev's pid in w->pid. */
void exp_tl_devices_enter(struct exp_tl_devices *w, int64_t dev);
void exp_tl_devices_end(struct exp_tl_devices *w);
int exp_tl_commit(struct exp_tl *t);
void exp_tl_abort(struct exp_tl *t);
/* A layer written ahead, by another thread, into a file of its own (one
 * event per line, never sliced) and a metadata buffer of its own; then
 * exp_tl_append puts both into t as if the layer had been written there,
 * pieces sliced where they would have been, and discards the spool (as
 * exp_tl_abort does when it is not appended). */
int exp_tl_spool_open(struct exp *e, struct exp_tl *t, const char *dir, const char *stem);
int exp_tl_append(struct exp_tl *t, struct exp_tl *spool);
/* exp_tl_append with every event and metadata event of the spool (one
 * JSON object, no separator) handed to map, which writes what goes into t
 * in its place into out (empty: nothing); <0 from map stops with that
 * error.  For the cluster timeline (cluster.c), which renames processes. */
typedef int exp_tl_map_fn(void *ctx, const char *ev, size_t len, struct exp_buf *out);
int exp_tl_append_map(struct exp_tl *t, struct exp_tl *spool, exp_tl_map_fn *map, void *ctx);
