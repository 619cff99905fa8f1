/* The query commands' reads of a PROF dir (query.c). */
#pragma once

#include <sqlite3.h>

#include "export/export.h"

/* The current database of prof_dir (parsed first when there is none or it
 * is stale), opened read-only (query.c); rep->message says why not. */
int exp_open_current(const char *prof_dir, sqlite3 **ret, struct export_report *rep);
