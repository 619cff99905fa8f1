/* Devices: PROF/device_<N>/data (collectors/device.h) -> GPU_INFO,
 * GPU_SAMPLE, GPU_PCIE, GPU_PROCESS_MEM (ours) and msprof's NPU_INFO,
 * NPU_MEM, AICORE_FREQ; then npu_mem_{ts}.csv and the device counter
 * layers of the timeline (NPU MEM, AI Core Freq, PCIe).
 *
 * How the GPU values map onto msprof's NPU ones (SCHEMA.md has the table):
 * a GPU's memory is its HBM (or GDDR), so NPU_MEM's hbm is NVML's used
 * memory and ddr is 0; the "device" event is the whole device, the "app"
 * event the memory held by the profiled processes (the launched tree, or
 * any process with agent data); AI Core Freq is the SM clock. */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "collectors/device.h"
#include "export/buf.h"
#include "export/db.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/files.h"
#include "export/reader.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "export/table-writer.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "collectors/raw.h"
#include "common/util.h"

enum { DS_INFO, DS_NPU_INFO, DS_SAMPLE, DS_PCIE, DS_PROC, _DS_MAX };

static const char *const ds_sql[_DS_MAX] = {
	[DS_INFO] = "INSERT OR REPLACE INTO GPU_INFO VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[DS_NPU_INFO] = "INSERT OR REPLACE INTO NPU_INFO VALUES (?, ?)",
	[DS_SAMPLE] = "INSERT INTO GPU_SAMPLE VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[DS_PCIE] = "INSERT INTO GPU_PCIE VALUES (?, ?, ?, ?)",
	[DS_PROC] = "INSERT INTO GPU_PROCESS_MEM VALUES (?, ?, ?, ?)",
};

struct dparse {
	struct exp *e;
	const struct raw_header *h;
	uint32_t device;         /* N of device_<N> being read */
	sqlite3_stmt *st[_DS_MAX];
	uint64_t malformed;
};

#define MEM_BITS (DEV_V_UTIL_GPU | DEV_V_UTIL_MEM | DEV_V_MEM | DEV_V_MEM_RESERVED | DEV_V_SM_CLOCK | \
		  DEV_V_MEM_CLOCK | DEV_V_POWER | DEV_V_TEMP)
#define PCIE_BITS (DEV_V_PCIE_TX | DEV_V_PCIE_RX)
#define KB ((int64_t)1024)

static int take(void *ctx, const struct raw_record *rec)
{
	struct dparse *p = ctx;
	struct exp *e = p->e;
	uint64_t ts;
	uint32_t index;
	sqlite3_stmt *st;
	int r = 0;

	switch (rec->type) {
	case RAW_DEV_INFO: {
		struct dev_info d;
		if (dev_decode_info(rec->payload, rec->len, &ts, &d) < 0 || d.index != p->device)
			return 1;
		st = p->st[DS_INFO];
		sqlite3_bind_int64(st, 1, d.index);
		sqlite3_bind_text(st, 2, d.name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, d.uuid, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, d.bus_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, d.driver, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 6, (int64_t)d.mem_total);
		db_bind_i64_or_null(st, 7, d.max_sm_clock_mhz != 0, d.max_sm_clock_mhz);
		db_bind_i64_or_null(st, 8, d.max_mem_clock_mhz != 0, d.max_mem_clock_mhz);
		db_bind_i64_or_null(st, 9, d.cores != 0, d.cores);
		db_bind_i64_or_null(st, 10, d.sms != 0, d.sms);
		if ((r = exp_step_done(e, st, "GPU_INFO")) < 0)
			return r;
		st = p->st[DS_NPU_INFO];
		sqlite3_bind_int64(st, 1, d.index);
		sqlite3_bind_text(st, 2, d.name, -1, SQLITE_TRANSIENT);
		return exp_step_done(e, st, "NPU_INFO");
	}
	case RAW_DEV_SAMPLE: {
		struct dev_sample s;
		if (dev_decode_sample(rec->payload, rec->len, &ts, &index, &s) < 0 || index != p->device)
			return 1;
		int64_t t = raw_unix_ns(p->h, ts);
		exp_note_time(e, t);
		if (s.valid & MEM_BITS) {
			st = p->st[DS_SAMPLE];
			sqlite3_bind_int64(st, 1, index);
			sqlite3_bind_int64(st, 2, t);
			db_bind_i64_or_null(st, 3, s.valid & DEV_V_UTIL_GPU, s.util_gpu);
			db_bind_i64_or_null(st, 4, s.valid & DEV_V_UTIL_MEM, s.util_mem);
			db_bind_i64_or_null(st, 5, s.valid & DEV_V_MEM, (int64_t)s.mem_used);
			db_bind_i64_or_null(st, 6, s.valid & DEV_V_MEM, (int64_t)s.mem_free);
			db_bind_i64_or_null(st, 7, s.valid & DEV_V_MEM_RESERVED, (int64_t)s.mem_reserved);
			db_bind_i64_or_null(st, 8, s.valid & DEV_V_SM_CLOCK, s.sm_clock_mhz);
			db_bind_i64_or_null(st, 9, s.valid & DEV_V_MEM_CLOCK, s.mem_clock_mhz);
			db_bind_i64_or_null(st, 10, s.valid & DEV_V_POWER, s.power_mw);
			db_bind_i64_or_null(st, 11, s.valid & DEV_V_TEMP, s.temp_c);
			if ((r = exp_step_done(e, st, "GPU_SAMPLE")) < 0)
				return r;
		}
		if (s.valid & PCIE_BITS) {
			/* NVML's KB/s are kibibytes */
			st = p->st[DS_PCIE];
			sqlite3_bind_int64(st, 1, index);
			sqlite3_bind_int64(st, 2, t);
			db_bind_i64_or_null(st, 3, s.valid & DEV_V_PCIE_TX, (int64_t)s.pcie_tx_kbps * KB);
			db_bind_i64_or_null(st, 4, s.valid & DEV_V_PCIE_RX, (int64_t)s.pcie_rx_kbps * KB);
			r = exp_step_done(e, st, "GPU_PCIE");
		}
		return r;
	}
	case RAW_DEV_PROCS: {
		struct dev_proc *v = NULL;
		size_t n = 0;
		r = dev_decode_procs(rec->payload, rec->len, &ts, &index, &v, &n);
		if (r == -ENOMEM)
			return r;
		if (r < 0 || index != p->device)
			return free(v), 1;
		int64_t t = raw_unix_ns(p->h, ts);
		st = p->st[DS_PROC];
		for (size_t i = 0; i < n && r == 0; i++) {
			if (v[i].used > INT64_MAX)
				continue;
			sqlite3_bind_int64(st, 1, index);
			sqlite3_bind_int64(st, 2, t);
			sqlite3_bind_int64(st, 3, v[i].pid);
			sqlite3_bind_int64(st, 4, (int64_t)v[i].used);
			r = exp_step_done(e, st, "GPU_PROCESS_MEM");
		}
		free(v);
		return r;
	}
	case RAW_SESSION_END:
		return rec->len == 12 ? 0 : 1;
	default:
		return 1;  /* a record of another source in a device file */
	}
}

static int parse_device(struct dparse *p, const char *dir)
{
	char **paths = NULL;
	int r = raw_list_slices(dir, RAW_SOURCE_DEVICE, &paths);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		exp_note(p->e, "cannot list '%s': %s", dir, strerror(-r));
		return 0;
	}
	for (char **path = paths; *path && r >= 0; path++) {
		struct raw_reader *rd;
		r = exp_reader_open(p->e, *path, &rd);
		if (r <= 0)
			continue;
		p->h = raw_reader_header(rd);
		if (p->h->source != RAW_SOURCE_DEVICE) {
			exp_note(p->e, "'%s' is not a device file (source %u): skipped", *path, p->h->source);
			raw_reader_free(rd);
			r = 0;
			continue;
		}
		p->e->rep->raw_files++;
		r = exp_reader_drain(p->e, *path, rd, take, p, &p->malformed);
	}
	raw_paths_free(paths);
	return r < 0 ? r : 0;
}

/* NPU_MEM and AICORE_FREQ from the GPU tables (see the top). */
static int build_msprof_tables(struct exp *e)
{
	int64_t app, device;
	int r = exp_intern_id(e, "app", &app);
	if (r == 0)
		r = exp_intern_id(e, "device", &device);
	if (r < 0)
		return r;
	char sql[1024];
	snprintf(sql, sizeof sql,
		 "INSERT INTO NPU_MEM SELECT %" PRId64 ", 0, memUsed, timestampNs, deviceId FROM GPU_SAMPLE "
		 "WHERE memUsed IS NOT NULL", device);
	if ((r = exp_exec(e, sql)) < 0)
		return r;
	snprintf(sql, sizeof sql,
		 "INSERT INTO NPU_MEM SELECT %" PRId64 ", 0, (SELECT coalesce(sum(p.used), 0) FROM GPU_PROCESS_MEM p "
		 "WHERE p.deviceId = g.deviceId AND p.timestampNs = g.timestampNs AND (p.pid = %u "
		 "OR p.pid IN (SELECT pid FROM PROCESS_INFO WHERE isTarget = 1) "
		 "OR p.pid IN (SELECT pid FROM AGENT_PROCESS))), timestampNs, deviceId FROM GPU_SAMPLE g "
		 "WHERE memUsed IS NOT NULL", app, e->app_pid);
	if ((r = exp_exec(e, sql)) < 0)
		return r;
	return exp_exec(e, "INSERT INTO AICORE_FREQ SELECT deviceId, timestampNs, smClock FROM GPU_SAMPLE "
			   "WHERE smClock IS NOT NULL");
}

static int exp_parse_devices(struct exp *e)
{
	bool have[DEV_MAX_DEVICES] = { false };
	if (!exp_list_devices(e->prof_dir, have))
		return 0;
	struct dparse p = { .e = e };
	int r = 0;
	for (int i = 0; i < _DS_MAX && r == 0; i++)
		r = exp_prepare(e, ds_sql[i], &p.st[i]);
	for (uint32_t id = 0; id < DEV_MAX_DEVICES && r == 0; id++) {
		if (!have[id])
			continue;
		char dir[PATH_MAX];
		if ((size_t)snprintf(dir, sizeof dir, "%s/device_%u/data", e->prof_dir, id) >= sizeof dir)
			continue;
		p.device = id;
		r = parse_device(&p, dir);
	}
	for (int i = 0; i < _DS_MAX; i++)
		sqlite3_finalize(p.st[i]);
	e->rep->bad_records += p.malformed;
	if (r == 0)
		r = build_msprof_tables(e);
	return r;
}

/* --- npu_mem_{ts}.csv --------------------------------------------------------- */

/* msprof NpuMemoryAssembler: integer KB, the timestamp followed by a tab */
static void npu_mem_row(FILE *f, sqlite3_stmt *st, void *arg)
{
	char ts[32];
	int64_t ddr = (int64_t)sqlite3_column_int64(st, 2), hbm = (int64_t)sqlite3_column_int64(st, 3);
	exp_format_ts(sqlite3_column_int64(st, 4), ts);
	fprintf(f, "%" PRId64 ",%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%s\t\n", (int64_t)sqlite3_column_int64(st, 0),
		(const char *)sqlite3_column_text(st, 1), ddr / KB, hbm / KB, (ddr + hbm) / KB, ts);
}

static int exp_write_npu_mem(struct exp *e, const char *dir)
{
	static const char sql[] = "SELECT m.deviceId, s.value, m.ddr, m.hbm, m.timestampNs FROM NPU_MEM m "
				  "JOIN STRING_IDS s ON s.id = m.type ORDER BY m.deviceId, m.timestampNs, s.value";
	if (!exp_table_has_rows(e, "NPU_MEM"))
		return 0;
	return exp_table_query(e, dir, CSV_NPU_MEM, sql, npu_mem_row, NULL);
}

/* --- timeline ----------------------------------------------------------------- */


static void counter(struct exp_tl *t, const char *name, unsigned pid, const char *ts, const char *unit,
		    const char *value)
{
	FILE *f;
	f = exp_tl_event(t);
	fprintf(f, "{\"name\":\"%s\",\"pid\":%u,\"tid\":0,\"ts\":\"%s\",\"ph\":\"C\",\"args\":{\"%s\":%s}}", name, pid,
		ts, unit, value);
}

struct device_walk {
	struct exp_tl_devices devs;
	void (*emit)(struct exp_tl *t, unsigned pid, const char *ts, sqlite3_stmt *st);
};

static int device_row(sqlite3_stmt *st, void *ctx)
{
	struct device_walk *w = ctx;
	int64_t d = sqlite3_column_int64(st, 0);
	if (!exp_tl_device_valid(d))
		return 0;
	exp_tl_devices_enter(&w->devs, d);
	char ts[32];
	exp_format_ts(sqlite3_column_int64(st, 1), ts);
	w->emit(w->devs.t, w->devs.pid, ts, st);
	return 0;
}

/* One device layer: rows (deviceId, timestampNs, ...) ordered by device;
 * emit writes a row's counters; metadata after each device's rows. */
static int layer(struct exp *e, struct exp_tl *t, enum export_track track, const char *sql,
		 void (*emit)(struct exp_tl *t, unsigned pid, const char *ts, sqlite3_stmt *st))
{
	const struct export_track_info *k = &export_tracks[track];
	if (!exp_track_on(e, track))
		return 0; /* left out by --reports */
	struct device_walk w = { .devs = { .t = t, .k = k, .app_pid = e->app_pid, .dev = -1 }, .emit = emit };
	int r = exp_each(e, sql, NULL, device_row, &w);
	exp_tl_devices_end(&w.devs);
	return r < 0 ? r : 0;
}

/* msprof NpuMemAssembler: "APP/DDR", "APP/HBM", "APP/Memory" and the
 * "Device/..." ones, each {"KB": value} */
static void emit_mem(struct exp_tl *t, unsigned pid, const char *ts, sqlite3_stmt *st)
{
	const char *ev = (const char *)sqlite3_column_text(st, 2);
	bool app = ev && streq(ev, "app");
	double ddr = (double)sqlite3_column_int64(st, 3) / KB, hbm = (double)sqlite3_column_int64(st, 4) / KB;
	char v[64];
	exp_format_num(ddr, -1, v, sizeof v);
	counter(t, app ? "APP/DDR" : "Device/DDR", pid, ts, "KB", v);
	exp_format_num(hbm, -1, v, sizeof v);
	counter(t, app ? "APP/HBM" : "Device/HBM", pid, ts, "KB", v);
	exp_format_num(ddr + hbm, -1, v, sizeof v);
	counter(t, app ? "APP/Memory" : "Device/Memory", pid, ts, "KB", v);
}

/* msprof AicoreFreqAssembler: "AI Core Freq" {"MHz": integer} */
static void emit_freq(struct exp_tl *t, unsigned pid, const char *ts, sqlite3_stmt *st)
{
	char v[32];
	snprintf(v, sizeof v, "%" PRId64, (int64_t)sqlite3_column_int64(st, 2));
	counter(t, "AI Core Freq", pid, ts, "MHz", v);
}

/* ours: PCIe throughput per direction in MB/s (msprof's PCIe layer shows
 * Ascend link counters that have no NVML equivalent) */
static void emit_pcie(struct exp_tl *t, unsigned pid, const char *ts, sqlite3_stmt *st)
{
	char v[64];
	for (int i = 0; i < 2; i++) {
		if (sqlite3_column_type(st, 2 + i) == SQLITE_NULL)
			continue;
		exp_format_num((double)sqlite3_column_int64(st, 2 + i) / 1e6, 6, v, sizeof v);
		counter(t, i ? "PCIe Rx" : "PCIe Tx", pid, ts, "MB/s", v);
	}
}

/* ours: the GPU's own gauges, one layer "GPU Usage" */
static void emit_usage(struct exp_tl *t, unsigned pid, const char *ts, sqlite3_stmt *st)
{
	static const struct { const char *name, *unit; double scale; } g[] = {
		{ "GPU Utilization", "%", 1 }, { "Memory Utilization", "%", 1 },
		{ "Power", "W", 1e-3 }, { "Temperature", "C", 1 }, { "Memory Clock", "MHz", 1 },
	};
	char v[64];
	for (int i = 0; i < (int)ARRAY_SIZE(g); i++) {
		if (sqlite3_column_type(st, 2 + i) == SQLITE_NULL)
			continue;
		exp_format_num((double)sqlite3_column_int64(st, 2 + i) * g[i].scale, 6, v, sizeof v);
		counter(t, g[i].name, pid, ts, g[i].unit, v);
	}
}

static bool exp_have_device_layers(struct exp *e)
{
	return exp_table_has_rows(e, "GPU_SAMPLE") || exp_table_has_rows(e, "GPU_PCIE");
}

static int exp_write_device_layers(struct exp *e, struct exp_tl *t, struct exp_tl *own)
{
	int r = 0;
	if (exp_table_has_rows(e, "NPU_MEM"))
		r = layer(e, t, TRACK_NPU_MEM,
			  "SELECT m.deviceId, m.timestampNs, s.value, m.ddr, m.hbm FROM NPU_MEM m "
			  "JOIN STRING_IDS s ON s.id = m.type ORDER BY m.deviceId, m.timestampNs, s.value",
			  emit_mem);
	if (r == 0 && exp_table_has_rows(e, "AICORE_FREQ"))
		r = layer(e, t, TRACK_AI_CORE_FREQ,
			  "SELECT deviceId, timestampNs, freq FROM AICORE_FREQ ORDER BY deviceId, timestampNs",
			  emit_freq);
	if (r == 0 && exp_table_has_rows(e, "GPU_PCIE"))
		r = layer(e, t, TRACK_PCIE,
			  "SELECT deviceId, timestampNs, txRate, rxRate FROM GPU_PCIE ORDER BY deviceId, timestampNs",
			  emit_pcie);
	if (r == 0 && exp_table_has_rows(e, "GPU_SAMPLE"))
		r = layer(e, t, TRACK_GPU_USAGE,
			  "SELECT deviceId, timestampNs, gpuUtil, memUtil, power, temperature, memClock "
			  "FROM GPU_SAMPLE ORDER BY deviceId, timestampNs",
			  emit_usage);
	return r;
}

static const char *const tables[] = {
	"NPU_INFO", "NPU_MEM", "AICORE_FREQ", "GPU_INFO", "GPU_SAMPLE", "GPU_PCIE", "GPU_PROCESS_MEM", NULL
};
static const enum export_csv csvs[] = { CSV_NPU_MEM, _CSV_MAX };

/* Device samples: device_<N>/data -> GPU_INFO, GPU_SAMPLE, GPU_PCIE,
 * GPU_PROCESS_MEM, NPU_INFO, NPU_MEM, AICORE_FREQ; their counter layers;
 * npu_mem. */
const struct exp_domain exp_domain_device = {
	.name = "device samples",
	.tables = tables,
	.csvs = csvs,
	.parse = exp_parse_devices,
	.has_layers = exp_have_device_layers,
	.layers = exp_write_device_layers,
	.summaries = exp_write_npu_mem,
};
