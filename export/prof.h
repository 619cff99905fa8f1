/* A PROF dir opened for an export (prof.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "export/export.h"

struct exp;

/* Whether pid is one of the PROF dir's processes. */
bool exp_own_process(const struct exp *e, uint32_t pid);
/* What e->prof_dir's host/ files say (info.json, sample.json, start_info,
 * end_info), into e; what is missing or damaged goes to the notes. */
void exp_read_host(struct exp *e);
/* What exp_read_host allocated, freed. */
void exp_release_host(struct exp *e);
/* e->rep->db_path opened read-only as e->db. */
int exp_open_db(struct exp *e);
/* A PROF dir's database (db_path, from export_prof_dir) opened read-only
 * in e with what its host/ files say (info.json, sample.json, start_info,
 * end_info), as the export's writers read them; rep gets the
 * notes.  exp_close_prof after it, whatever it returned. */
int exp_open_prof(struct exp *e, const char *prof_dir, const char *db_path, struct export_report *rep);
void exp_close_prof(struct exp *e);
/* Close e's connection and forget its interned strings (0, or -EIO). */
int exp_close_db(struct exp *e);
