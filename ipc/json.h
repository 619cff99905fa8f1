/* Small cJSON helpers shared by ipc/ and daemon/: a cleanup attribute and
 * typed, range-checked field getters for untrusted messages.  Not part of the
 * launcher contract (ipc.h); internal to the folders that link ipc_dep. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "common/cjson-cleanup.h"

/* Largest integer that survives a round trip through cJSON: it prints
 * numbers beyond int range with "%1.15g" (and accepts that as exact within a
 * relative epsilon), so 15 digits is the limit for ids and counters. */
#define JSON_MAX_INT 999999999999999ULL

/* Read obj[key] as an integer in [min, max].  A missing key gives def when
 * required is false, -ENOENT otherwise; a non-integer -EINVAL; out of range
 * -ERANGE. */
int json_get_u64(const cJSON *obj, const char *key, uint64_t min, uint64_t max,
		 bool required, uint64_t def, uint64_t *ret);
/* obj[key] as a string (pointer into obj); same rules, def may be NULL. */
int json_get_str(const cJSON *obj, const char *key, bool required, const char *def,
		 const char **ret);
/* obj[key] as a boolean. */
int json_get_bool(const cJSON *obj, const char *key, bool required, bool def, bool *ret);
/* An integer value (not a key lookup) in [min, max]. */
int json_value_u64(const cJSON *v, uint64_t min, uint64_t max, uint64_t *ret);
