/* The cleanup attribute for a cJSON tree, for the folders that use cJSON
 * (the agent does not: it stays out of util.h). */
#pragma once

#include <cjson/cJSON.h>

static inline void cjson_freep(cJSON **p) { cJSON_Delete(*p); }
#define _cleanup_json_ __attribute__((cleanup(cjson_freep)))
