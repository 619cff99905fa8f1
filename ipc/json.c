/* Typed getters for cJSON objects that came from a socket. */
#include <errno.h>
#include <math.h>

#include "ipc/json.h"

int json_value_u64(const cJSON *v, uint64_t min, uint64_t max, uint64_t *ret)
{
	if (!cJSON_IsNumber(v))
		return -EINVAL;
	double d = v->valuedouble;
	/* Reject fractions, NaN and anything a double cannot hold exactly. */
	if (!(d >= 0) || d != floor(d) || d > (double)JSON_MAX_INT)
		return d < 0 ? -ERANGE : -EINVAL;
	uint64_t u = (uint64_t)d;
	if (u < min || u > max)
		return -ERANGE;
	*ret = u;
	return 0;
}

int json_get_u64(const cJSON *obj, const char *key, uint64_t min, uint64_t max,
		 bool required, uint64_t def, uint64_t *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v) {
		if (required)
			return -ENOENT;
		*ret = def;
		return 0;
	}
	return json_value_u64(v, min, max, ret);
}

int json_get_str(const cJSON *obj, const char *key, bool required, const char *def,
		 const char **ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v) {
		if (required)
			return -ENOENT;
		*ret = def;
		return 0;
	}
	if (!cJSON_IsString(v) || !v->valuestring)
		return -EINVAL;
	*ret = v->valuestring;
	return 0;
}

int json_get_bool(const cJSON *obj, const char *key, bool required, bool def, bool *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v) {
		if (required)
			return -ENOENT;
		*ret = def;
		return 0;
	}
	if (!cJSON_IsBool(v))
		return -EINVAL;
	*ret = cJSON_IsTrue(v);
	return 0;
}
