/* Where the PROF dir's data comes from: host/info.json and the devices of
 * the dir -> HOST_INFO(hostUid, hostName) and RANK_DEVICE_MAP(rankId,
 * deviceId) (reference §5), which cluster tools join every rank's tables
 * with.
 *
 * HOST_INFO: one row, info.json's hostUid and hostname ("" when absent).
 * msprof-analyze's cluster analysis reads its first row per rank.
 *
 * RANK_DEVICE_MAP: one row per device of the dir, all with the dir's rank:
 * host/info.json's rank_id, else the first device_<N>/info.json.<N> that
 * has one, else -1 (no rank).  The devices are the device_<N> directories,
 * the devices described (NPU_INFO) and those that ran tasks (TASK), in
 * ascending order.  A dir without any device has one row with deviceId -1,
 * as torch_npu writes it ("deviceId not collected", _basic_db_parser.py
 * save_rank_info_to_db): msprof-analyze's recipes CROSS JOIN this table
 * with their data (cluster_time_summary_export.py, p2p_pairing_export.py),
 * so a host-only rank with no row would drop out of them, while its
 * cluster analysis takes the device of a PROF dir from its device_<N>
 * directory, not from this table (host_info_analysis.py). */

#include <limits.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "collectors/device.h"
#include "collectors/profdir.h"
#include "common/cjson-cleanup.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/sql.h"
#include "common/util.h"

/* A device id of the dir, from a query's rows (ids outside 0..31 are not
 * ones the pid packing can hold: left out, as the device layers do). */
static int take_device(sqlite3_stmt *st, void *ctx)
{
	bool *have = ctx;
	if (sqlite3_column_type(st, 0) == SQLITE_NULL)
		return 0;
	int64_t d = sqlite3_column_int64(st, 0);
	if (d >= 0 && d < DEV_MAX_DEVICES)
		have[d] = true;
	return 0;
}

/* info.json.<N>'s rank_id, -1 when it has none */
static int64_t device_rank(struct exp *e, unsigned dev)
{
	char path[PATH_MAX];
	_cleanup_json_ cJSON *j = NULL;
	if ((size_t)snprintf(path, sizeof path, "%s/device_%u/info.json.%u", e->prof_dir, dev, dev) >= sizeof path ||
	    profdir_read_json(path, &j) < 0)
		return -1;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "rank_id");
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= INT32_MAX ? (int64_t)v->valuedouble : -1;
}

static int insert_pair(struct exp *e, sqlite3_stmt *st, int64_t rank, int64_t dev)
{
	sqlite3_bind_int64(st, 1, rank);
	sqlite3_bind_int64(st, 2, dev);
	return exp_step_done(e, st, "RANK_DEVICE_MAP");
}

static int build(struct exp *e)
{
	static const char host_sql[] = "INSERT INTO HOST_INFO (hostUid, hostName) VALUES (?, ?)";
	static const char map_sql[] = "INSERT INTO RANK_DEVICE_MAP (rankId, deviceId) VALUES (?, ?)";
	sqlite3_stmt *st;
	int r = exp_prepare(e, host_sql, &st);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, e->host_uid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, e->hostname, -1, SQLITE_STATIC);
	r = exp_step_done(e, st, host_sql);
	sqlite3_finalize(st);
	if (r < 0)
		return r;

	bool have[DEV_MAX_DEVICES] = { false };
	exp_list_devices(e->prof_dir, have);
	if (exp_table_has_rows(e, "NPU_INFO"))
		r = exp_each(e, "SELECT id FROM NPU_INFO", NULL, take_device, have);
	/* TASK's device ids by its index (deviceId, ...): one probe per
	 * device instead of a pass over every task */
	if (r >= 0 && exp_table_has_rows(e, "TASK"))
		r = exp_each(e, "WITH RECURSIVE d(id) AS (SELECT min(deviceId) FROM TASK UNION ALL "
				"SELECT (SELECT min(deviceId) FROM TASK WHERE deviceId > d.id) FROM d WHERE d.id IS NOT NULL) "
				"SELECT id FROM d",
			     NULL, take_device, have);
	if (r < 0)
		return r;

	int64_t rank = e->rank_id;
	for (unsigned d = 0; d < DEV_MAX_DEVICES && rank < 0; d++)
		if (have[d])
			rank = device_rank(e, d);
	if ((r = exp_prepare(e, map_sql, &st)) < 0)
		return r;
	bool any = false;
	for (unsigned d = 0; d < DEV_MAX_DEVICES && r == 0; d++)
		if (have[d]) {
			r = insert_pair(e, st, rank, d);
			any = true;
		}
	if (r == 0 && !any)
		r = insert_pair(e, st, rank, -1);
	sqlite3_finalize(st);
	return r;
}

static const char *const tables[] = { "HOST_INFO", "RANK_DEVICE_MAP", NULL };

/* The host and rank of the dir: HOST_INFO, RANK_DEVICE_MAP.  Built after
 * the device and task domains, whose devices it lists. */
const struct exp_domain exp_domain_rank = {
	.name = "host and rank",
	.tables = tables,
	.build = build,
};
