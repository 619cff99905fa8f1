/* Files of the export (files.c): output files written under a hidden
 * temporary name and renamed when complete, older exports' files removed,
 * and the databases and device dirs of a PROF dir found. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct exp;

/* Output files: written under a hidden temporary name in the same dir and
 * renamed when complete, so a reader never sees half a file. */
struct exp_out {
	FILE *f;
	char *vbuf;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
	char name[NAME_MAX + 1];
};
int exp_out_open(struct exp_out *o, const char *dir, const char *name);
/* A write stream on fd (taken) whose exp_fclose returns the first write
 * error as the system gave it (-ENOSPC on a full disk), 0 when all was
 * written; the output files are written through these. */
FILE *exp_fdopen_w(int fd);
int exp_fclose(FILE *f);
int exp_out_commit(struct exp *e, struct exp_out *o);
/* Give the file another final name in dir before it is committed. */
void exp_out_rename(struct exp_out *o, const char *dir, const char *name);
/* Remember a deliverable for README.txt. */
void exp_note_written(struct exp *e, const char *name);
/* Remove this type's files other than the `pieces` this export wrote
 * (plain when 1, slice_0.. otherwise): "{stem}_{ts}{suffix}" and
 * "{stem}_slice_{n}_{ts}{suffix}" of older exports, and of an export in
 * the same second that was split differently. */
void exp_remove_stale(const char *dir, const char *stem, const char *suffix, const char *ts, unsigned pieces);
void exp_out_abort(struct exp_out *o);
/* The device ids N with a device_<N> directory in prof_dir, N below
 * DEV_MAX_DEVICES (collectors/device.h), marked in ret (that many entries);
 * their count. */
unsigned exp_list_devices(const char *prof_dir, bool *ret);
/* The newest msprof_{14 digits}.db of prof_dir into path. */
bool exp_newest_db(const char *prof_dir, char *path, size_t size);
/* An in-memory stream (a table's row, a timeline's metadata) and its
 * buffer, closed and freed if open. */
void exp_memstream_drop(FILE **f, char **buf);
/* "{stem}_{ts}{suffix}" or "{stem}_slice_{n}_{ts}{suffix}" */
void exp_piece_name(char *buf, size_t size, const char *stem, bool sliced, unsigned n, const char *ts,
		    const char *suffix);
