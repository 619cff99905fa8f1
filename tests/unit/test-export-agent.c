/* Unit tests for the agent part of export/: agent raw files written with the
 * real raw writer hold a known set of mstx calls (marks, nested push/pop, a
 * range ended on another thread whose end comes first in the file, partly
 * overlapping ranges, ranges never ended, ends without a start, a filtered
 * domain, a second process over several slices), and the export must give
 * exactly these MSTX_EVENTS rows, AGENT_* rows, report counts, msprof_tx CSV
 * and timeline events, with every thread's events properly nested. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "export/export.h"
#include "collectors/raw.h"
#include "export/tables.h"
#include "tests/unit/export-test.h"
#include "tests/unit/unittest.h"
#include "common/util.h"

#define MONO0 1000000000000ULL
#define REAL0 1700000000123456789ULL
#define MS NSEC_PER_MSEC
#define END_NS ((REAL0 + 100 * MS) / 1000 * 1000) /* end_info: collectionTimeEnd, in µs */
#define P1 5000U
#define P2 6000U
#define T1 5000U
#define T2 5001U
#define GT(pid, tid) (((uint64_t)(pid) << 32) | (tid))
#define NONE 4294967295ULL
#define NOCONN 4000000000ULL

static char tmp[] = "/tmp/test-export-agent.XXXXXX";

/* --- writing the agent's records ------------------------------------------------- */

struct w {
	struct raw_writer *w;
	struct raw_buf b;
};

static void wopen(struct w *w, const char *data, uint32_t pid, uint64_t slice_bytes)
{
	char stem[RAW_STEM_MAX];
	raw_agent_stem((pid_t)pid, stem);
	*w = (struct w){ 0 };
	CHECK(raw_writer_open_stem(data, stem, RAW_SOURCE_AGENT, MONO0, REAL0, slice_bytes, &w->w) == 0);
}

static void wclose(struct w *w)
{
	raw_buf_release(&w->b);
	raw_writer_free(w->w);
}

static void vstr(struct raw_buf *b, const char *s)
{
	raw_buf_u32(b, (uint32_t)strlen(s));
	raw_buf_bytes(b, s, strlen(s));
}

static void emit(struct w *w, uint16_t type)
{
	CHECK(w->b.err == 0);
	CHECK(raw_writer_append(w->w, type, w->b.data, (uint32_t)w->b.len) == 0);
}

static void rec(struct w *w, uint64_t ms)
{
	raw_buf_reset(&w->b);
	raw_buf_u64(&w->b, MONO0 + ms * MS);
}

static void process(struct w *w, uint32_t pid, const char *name, const char *cmd)
{
	rec(w, 0);
	raw_buf_u32(&w->b, pid);
	raw_buf_u32(&w->b, 1);
	raw_buf_u32(&w->b, (uint32_t)-1);
	raw_buf_u32(&w->b, 0);
	vstr(&w->b, name);
	vstr(&w->b, cmd);
	emit(w, RAW_AGENT_PROCESS);
}

static void thread(struct w *w, uint32_t tid, const char *name)
{
	rec(w, 0);
	raw_buf_u32(&w->b, tid);
	vstr(&w->b, name);
	emit(w, RAW_AGENT_THREAD);
}

static void domain(struct w *w, uint64_t id, const char *name)
{
	rec(w, 0);
	raw_buf_u64(&w->b, id);
	vstr(&w->b, name);
	emit(w, RAW_AGENT_DOMAIN);
}

static void mark(struct w *w, uint64_t ms, uint32_t tid, uint32_t type, uint64_t dom, uint64_t cat, const char *msg)
{
	rec(w, ms);
	raw_buf_u32(&w->b, tid);
	raw_buf_u32(&w->b, type);
	raw_buf_u64(&w->b, dom);
	raw_buf_u64(&w->b, cat);
	raw_buf_u32(&w->b, 0);
	raw_buf_u32(&w->b, 0);
	vstr(&w->b, msg);
	emit(w, RAW_AGENT_MARK);
}

/* A range's start and end begin alike; the start goes on with its
 * category, color and message. */
static void range_head(struct w *w, uint64_t ms, uint32_t tid, uint32_t type, uint64_t id, uint64_t dom)
{
	rec(w, ms);
	raw_buf_u32(&w->b, tid);
	raw_buf_u32(&w->b, type);
	raw_buf_u64(&w->b, id);
	raw_buf_u64(&w->b, dom);
}

static void start(struct w *w, uint64_t ms, uint32_t tid, uint32_t type, uint64_t id, uint64_t dom, const char *msg)
{
	range_head(w, ms, tid, type, id, dom);
	raw_buf_u64(&w->b, 0);
	raw_buf_u32(&w->b, 0);
	raw_buf_u32(&w->b, 0);
	vstr(&w->b, msg);
	emit(w, RAW_AGENT_RANGE_START);
}

static void end(struct w *w, uint64_t ms, uint32_t tid, uint32_t type, uint64_t id, uint64_t dom)
{
	range_head(w, ms, tid, type, id, dom);
	emit(w, RAW_AGENT_RANGE_END);
}

/* gpu: the device records not written (lost, untimed, bad), which an
 * older agent's record (gpu NULL) does not carry; causes: the dropped
 * events by cause (full, nested, noslot, unopened, write), which older
 * agents' records (NULL) do not carry either */
static void counters_causes(struct w *w, uint64_t ms, uint64_t ev, uint64_t dropped, uint64_t bad, uint64_t trunc,
			    const uint64_t *gpu, const uint64_t *causes)
{
	rec(w, ms);
	raw_buf_u64(&w->b, ev);
	raw_buf_u64(&w->b, dropped);
	raw_buf_u64(&w->b, bad);
	raw_buf_u64(&w->b, trunc);
	for (int i = 0; gpu && i < 3; i++)
		raw_buf_u64(&w->b, gpu[i]);
	for (int i = 0; gpu && causes && i < 5; i++)
		raw_buf_u64(&w->b, causes[i]);
	emit(w, RAW_AGENT_COUNTERS);
}

static void counters_gpu(struct w *w, uint64_t ms, uint64_t ev, uint64_t dropped, uint64_t bad, uint64_t trunc,
			 const uint64_t *gpu)
{
	counters_causes(w, ms, ev, dropped, bad, trunc, gpu, NULL);
}

static void counters(struct w *w, uint64_t ms, uint64_t ev, uint64_t dropped, uint64_t bad, uint64_t trunc)
{
	counters_gpu(w, ms, ev, dropped, bad, trunc, NULL);
}

/* tmp/NAME with host/data, its paths in *ret_host and *ret_data; sample,
 * when not NULL, as host/sample.json, and with end, host/end_info at
 * END_NS. */
static char *new_prof(const char *name, const char *sample, bool end, char **ret_host, char **ret_data)
{
	char *prof, *host, *data;
	CHECK(asprintf(&prof, "%s/%s", tmp, name) > 0);
	CHECK(asprintf(&host, "%s/host", prof) > 0);
	CHECK(asprintf(&data, "%s/data", host) > 0);
	CHECK(mkdir(prof, 0755) == 0 && mkdir(host, 0755) == 0 && mkdir(data, 0755) == 0);
	if (sample)
		write_text(host, "sample.json", sample);
	if (end) {
		char endinfo[128];
		snprintf(endinfo, sizeof endinfo, "{\"collectionTimeEnd\":\"%llu\"}", (unsigned long long)(END_NS / 1000));
		write_text(host, "end_info", endinfo);
	}
	*ret_host = host;
	*ret_data = data;
	return prof;
}

/* Process P1 (threads T1, T2) and P2 (several slices).  The calls, in time
 * order (ms after the start):
 *   1 T1 mark "m1"                        7 T1 start 0x101 "overlapA" ..12
 *   2 T1 push "outer" ..5                 8 T1 start 0x102 "overlapB" ..14
 *   3 T1 push "inner" ..4                10 T2 mark in domain "skip" (filtered when excluded)
 *   6 T1 start 0x100 "cross" (net),      11 end of 0x999: never started
 *     ended at 9 by T2, END written      13 T2 pop without push
 *     before the START                   15 T2 start 0x103 "never ended"
 *  17 T2 marker_ex "ex, \"q\"", cat 7     16 T2 push "open push" */
static char *make_prof(const char *name, const char *sample)
{
	char *host, *data;
	char *prof = new_prof(name, sample, true, &host, &data);
	write_text(host, "info.json", "{\"hostname\":\"testhost\",\"hostUid\":\"0123abcd\",\"pid\":\"5000\","
		   "\"pid_name\":\"app\",\"rank_id\":-1,\"cpuNums\":2,\"memoryTotal\":1000000}");
	write_text(host, "start_info", "{\"collectionTimeBegin\":\"1700000000123456\"}");

	struct w w;
	wopen(&w, data, P1, 0);
	process(&w, P1, "app", "./app --flag");
	domain(&w, 1, "net");
	domain(&w, 2, "skip");
	thread(&w, T1, "app");
	mark(&w, 1, T1, 0, 0, 0, "m1");
	start(&w, 2, T1, 1, 0, 0, "outer");
	start(&w, 3, T1, 1, 0, 0, "inner");
	end(&w, 4, T1, 1, 0, 0);
	end(&w, 5, T1, 1, 0, 0);
	thread(&w, T2, "worker");
	end(&w, 9, T2, 2, 0x100, 1); /* drained first: T2's buffer */
	start(&w, 6, T1, 2, 0x100, 1, "cross");
	start(&w, 7, T1, 2, 0x101, 0, "overlapA");
	start(&w, 8, T1, 2, 0x102, 0, "overlapB");
	mark(&w, 10, T2, 0, 2, 0, "skipme");
	end(&w, 11, T2, 2, 0x999, 0);
	end(&w, 12, T1, 2, 0x101, 0);
	end(&w, 13, T2, 1, 0, 0);
	end(&w, 14, T1, 2, 0x102, 0);
	start(&w, 15, T2, 2, 0x103, 0, "never ended");
	start(&w, 16, T2, 1, 0, 0, "open push");
	mark(&w, 17, T2, 3, 0, 7, "ex, \"q\"");
	counters_causes(&w, 18, 16, 3, 1, 0, (const uint64_t[]){ 0, 0, 0 }, (const uint64_t[]){ 2, 1, 0, 0, 0 });
	wclose(&w);

	/* small slices: the process, its domain and its pushes span them */
	wopen(&w, data, P2, 200);
	process(&w, P2, "child", "./child");
	domain(&w, 1, "net");
	for (unsigned i = 0; i < 4; i++)
		start(&w, 20 + i, P2, 1, 0, 1, "deep");
	for (unsigned i = 0; i < 4; i++)
		end(&w, 30 + i, P2, 1, 0, 1);
	counters_gpu(&w, 40, 8, 0, 0, 0, (const uint64_t[]){ 2, 5, 1 });
	wclose(&w);
	free(host);
	free(data);
	return prof;
}

/* --- reading back -------------------------------------------------------------------- */

/* ms after the start; 100: the session end */
static uint64_t at(uint64_t ms) { return ms == 100 ? END_NS : REAL0 + ms * MS; }

static void check_db(const char *db_path)
{
	sqlite3 *db;
	CHECK(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);

	char *cols = rows(db, "SELECT group_concat(name, ',') FROM pragma_table_info('MSTX_EVENTS')");
	check_text("MSTX_EVENTS columns", cols,
		   "startNs,endNs,eventType,rangeId,category,message,globalTid,endGlobalTid,domainId,connectionId\n");
	char *en = rows(db, "SELECT id, name FROM ENUM_MSTX_EVENT_TYPE ORDER BY id");
	check_text("ENUM_MSTX_EVENT_TYPE", en, "0|marker\n1|push/pop\n2|start/end\n3|marker_ex\n");

	char *got = rows(db,
		"SELECT m.startNs, m.endNs, m.eventType, m.rangeId, m.category, s.value, m.globalTid, m.endGlobalTid, "
		"d.value, m.connectionId FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message "
		"JOIN STRING_IDS d ON d.id = m.domainId ORDER BY m.globalTid >> 32, m.startNs, m.rowid");
	char want[4096];
	size_t n = 0;
#define ROW(s, e, type, range, cat, msg, gt, egt, dom)                                                          \
	n += (size_t)snprintf(want + n, sizeof want - n, "%llu|%llu|%d|%llu|%llu|%s|%llu|%llu|%s|%llu\n",       \
			      (unsigned long long)(s), (unsigned long long)(e), type, (unsigned long long)(range), \
			      (unsigned long long)(cat), msg, (unsigned long long)(gt), (unsigned long long)(egt), \
			      dom, (unsigned long long)NOCONN)
	ROW(at(1), at(1), 0, NONE, NONE, "m1", GT(P1, T1), GT(P1, T1), "default");
	ROW(at(2), at(5), 1, NONE, NONE, "outer", GT(P1, T1), GT(P1, T1), "default");
	ROW(at(3), at(4), 1, NONE, NONE, "inner", GT(P1, T1), GT(P1, T1), "default");
	ROW(at(6), at(9), 2, 0x100, NONE, "cross", GT(P1, T1), GT(P1, T2), "net");
	ROW(at(7), at(12), 2, 0x101, NONE, "overlapA", GT(P1, T1), GT(P1, T1), "default");
	ROW(at(8), at(14), 2, 0x102, NONE, "overlapB", GT(P1, T1), GT(P1, T1), "default");
	ROW(at(15), END_NS, 2, 0x103, NONE, "never ended", GT(P1, T2), GT(P1, T2), "default");
	ROW(at(16), END_NS, 1, NONE, NONE, "open push", GT(P1, T2), GT(P1, T2), "default");
	ROW(at(17), at(17), 3, NONE, 7, "ex, \"q\"", GT(P1, T2), GT(P1, T2), "default");
	for (unsigned i = 0; i < 4; i++)
		ROW(at(20 + i), at(33 - i), 1, NONE, NONE, "deep", GT(P2, P2), GT(P2, P2), "net");
#undef ROW
	check_text("MSTX_EVENTS", got, want);

	char *c = rows(db, "SELECT * FROM AGENT_COUNTERS ORDER BY pid");
	check_text("AGENT_COUNTERS", c, "5000|16|3|1|0|2|2|0|1|0|0|0|2|1|0|0|0\n6000|8|0|0|0|0|0|0|0|2|5|1|NULL|NULL|NULL|NULL|NULL\n");
	char *p = rows(db, "SELECT a.pid, a.ppid, a.rank, s.value, a.cmdline, a.startNs, a.endNs "
					  "FROM AGENT_PROCESS a JOIN STRING_IDS s ON s.id = a.name ORDER BY a.pid");
	snprintf(want, sizeof want, "5000|1|-1|app|./app --flag|%llu|%llu\n6000|1|-1|child|./child|%llu|%llu\n",
		 (unsigned long long)at(0), (unsigned long long)at(18), (unsigned long long)at(0),
		 (unsigned long long)at(40));
	check_text("AGENT_PROCESS", p, want);
	char *t = rows(db, "SELECT a.pid, a.tid, s.value FROM AGENT_THREAD a JOIN STRING_IDS s "
					  "ON s.id = a.name ORDER BY a.pid, a.tid");
	check_text("AGENT_THREAD", t, "5000|5000|app\n5000|5001|worker\n");
	/* no index helper is left but the readers' one */
	char *ix = rows(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'MSTX_EVENTS'");
	check_text("MSTX_EVENTS indexes", ix, "MstxEventsIndex\n");
	sqlite3_close(db);
}

static void check_csv(const char *out)
{
	_cleanup_free_ char *path = find_file(out, "msprof_tx_", ".csv");
	CHECK(path);
	char *got = slurp(path);
	char want[8192];
	size_t n = (size_t)snprintf(want, sizeof want,
		"Device_id,pid,tid,category,event_type,payload_type,payload_value,Start_time(us),End_time(us),"
		"message_type,message,domain,Device Start_time(us),Device End_time(us)\n");
	static const struct { unsigned pid, tid; const char *cat, *type; uint64_t s, e; const char *msg, *dom; } r[] = {
		{ P1, T1, "N/A", "marker", 1, 1, "m1", "default" },
		{ P1, T1, "N/A", "push/pop", 2, 5, "outer", "default" },
		{ P1, T1, "N/A", "push/pop", 3, 4, "inner", "default" },
		{ P1, T1, "N/A", "start/end", 6, 9, "cross", "net" },
		{ P1, T1, "N/A", "start/end", 7, 12, "overlapA", "default" },
		{ P1, T1, "N/A", "start/end", 8, 14, "overlapB", "default" },
		{ P1, T2, "N/A", "start/end", 15, 100, "never ended", "default" },
		{ P1, T2, "N/A", "push/pop", 16, 100, "open push", "default" },
		{ P1, T2, "7", "marker_ex", 17, 17, "\"ex, \"\"q\"\"\"", "default" },
		{ P2, P2, "N/A", "push/pop", 20, 33, "deep", "net" },
		{ P2, P2, "N/A", "push/pop", 21, 32, "deep", "net" },
		{ P2, P2, "N/A", "push/pop", 22, 31, "deep", "net" },
		{ P2, P2, "N/A", "push/pop", 23, 30, "deep", "net" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(r); i++) {
		uint64_t s = at(r[i].s), e = at(r[i].e);
		n += (size_t)snprintf(want + n, sizeof want - n,
			"host,%u,%u,%s,%s,N/A,N/A,%llu.%03llu\t,%llu.%03llu\t,N/A,%s,%s,N/A,N/A\n", r[i].pid, r[i].tid,
			r[i].cat, r[i].type, (unsigned long long)(s / 1000), (unsigned long long)(s % 1000),
			(unsigned long long)(e / 1000), (unsigned long long)(e % 1000), r[i].msg, r[i].dom);
	}
	check_text("msprof_tx csv", got, want);
}

/* Every track's X events nest: sorted by start (longer first), each lies
 * within the innermost open one it starts in. */
static void check_nesting(const cJSON *events)
{
	struct ev { double pid, tid, s, e; } v[64];
	size_t n = 0;
	const cJSON *ev;
	cJSON_ArrayForEach(ev, events) {
		if (!streq(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "ph")), "X") || n == ARRAY_SIZE(v))
			continue;
		double s = strtod(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "ts")), NULL);
		v[n++] = (struct ev){ cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "pid")),
				      cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "tid")), s,
				      s + cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "dur")) };
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (i == j || v[i].pid != v[j].pid || v[i].tid != v[j].tid)
				continue;
			/* j starts inside i: it must end inside i too */
			if (v[j].s > v[i].s && v[j].s < v[i].e)
				CHECK(v[j].e <= v[i].e + 1e-6);
		}
}

static void check_timeline(const char *out)
{
	_cleanup_free_ char *path = find_file(out, "msprof_tx_", ".json");
	CHECK(path);
	_cleanup_free_ char *text = slurp(path);
	cJSON *j = cJSON_Parse(text);
	CHECK(cJSON_IsArray(j));
	unsigned fp1 = export_format_pid(P1, 6, 31), fp2 = export_format_pid(P2, 6, 31);
	uint64_t lane1 = T1 + EXPORT_LANE_TID_STEP, lane2 = T1 + 2 * EXPORT_LANE_TID_STEP;
	char want[8192];
	size_t n = 0;
#define X(msg, pid, tid, s, dur, args)                                                                       \
	n += (size_t)snprintf(want + n, sizeof want - n,                                                      \
			      "{\"name\":\"%s\",\"pid\":%u,\"tid\":%llu,\"ts\":\"%llu.%03llu\",\"dur\":%s,\"ph\":\"X\"," \
			      "\"args\":{%s}}\n", msg, pid, (unsigned long long)(tid),                        \
			      (unsigned long long)(at(s) / 1000), (unsigned long long)(at(s) % 1000), dur, args)
#define M(name, pid, tid, args) \
	n += (size_t)snprintf(want + n, sizeof want - n, "{\"name\":\"%s\",\"pid\":%u,\"tid\":%llu,\"ph\":\"M\",\"args\":{%s}}\n", \
			      name, pid, (unsigned long long)(tid), args)
	const char *def_m = "\"event_type\":\"marker\",\"domain\":\"default\"";
	const char *def_p = "\"event_type\":\"push/pop\",\"domain\":\"default\"";
	const char *def_r = "\"event_type\":\"start/end\",\"domain\":\"default\"";
	X("m1", fp1, T1, 1, "0.0", def_m);
	X("outer", fp1, T1, 2, "3000.0", def_p);
	X("inner", fp1, T1, 3, "1000.0", def_p);
	X("cross", fp1, T1, 6, "3000.0", "\"event_type\":\"start/end\",\"domain\":\"net\"");
	/* cross [6,9], overlapA [7,12] and overlapB [8,14] overlap each other
	 * partly: one lane each */
	X("overlapA", fp1, lane1, 7, "5000.0", def_r);
	X("overlapB", fp1, lane2, 8, "6000.0", def_r);
	X("never ended", fp1, T2, 15, "84999.211", def_r);
	X("open push", fp1, T2, 16, "83999.211", def_p);
	X("ex, \\\"q\\\"", fp1, T2, 17, "0.0", "\"Category\":\"7\",\"event_type\":\"marker_ex\",\"domain\":\"default\"");
	for (unsigned i = 0; i < 4; i++) {
		char dur[16];
		snprintf(dur, sizeof dur, "%u000.0", 13 - 2 * i);
		X("deep", fp2, P2, 20 + i, dur, "\"event_type\":\"push/pop\",\"domain\":\"net\"");
	}
	/* metadata after all events (every piece of a split timeline gets
	 * all of it), in the order the processes were written */
	M("process_name", fp1, 0, "\"name\":\"app\"");
	M("process_labels", fp1, 0, "\"labels\":\"CPU\"");
	M("process_sort_index", fp1, 0, "\"sort_index\":6");
	M("thread_name", fp1, T1, "\"name\":\"app (5000)\"");
	M("thread_sort_index", fp1, T1, "\"sort_index\":5000");
	M("thread_name", fp1, lane1, "\"name\":\"app (5000) (overlapping ranges 1)\"");
	M("thread_sort_index", fp1, lane1, "\"sort_index\":5000");
	M("thread_name", fp1, lane2, "\"name\":\"app (5000) (overlapping ranges 2)\"");
	M("thread_sort_index", fp1, lane2, "\"sort_index\":5000");
	M("thread_name", fp1, T2, "\"name\":\"worker (5001)\"");
	M("thread_sort_index", fp1, T2, "\"sort_index\":5001");
	M("process_name", fp2, 0, "\"name\":\"child\"");
	M("process_labels", fp2, 0, "\"labels\":\"CPU\"");
	M("process_sort_index", fp2, 0, "\"sort_index\":6");
	M("thread_name", fp2, P2, "\"name\":\"Thread 6000\"");
	M("thread_sort_index", fp2, P2, "\"sort_index\":6000");
#undef X
#undef M
	/* the events one per line, as written (key order included) */
	char *got = NULL;
	size_t gn = 0;
	FILE *m = open_memstream(&got, &gn);
	const char *s = text;
	CHECK(startswith(s, "[\n"));
	for (s += 2; *s && *s != ']';) {
		const char *e = strchr(s, '\n');
		CHECK(e);
		size_t len = (size_t)(e - s);
		if (len && s[len - 1] == ',')
			len--;
		fwrite(s, 1, len, m);
		fputc('\n', m);
		s = e + 1;
	}
	fclose(m);
	check_text("msprof_tx json", got, want);
	check_nesting(j);

	/* msprof_{ts}.json holds the same layers and the Overlap Analysis
	 * of these host-only ranges (domain-overlap.c): labelled NPU, only
	 * Computing and Free (no communication domain), no two events of a
	 * thread overlapping */
	_cleanup_free_ char *main_path = find_file(out, "msprof_", ".json");
	CHECK(main_path);
	_cleanup_free_ char *main_text = slurp(main_path);
	cJSON *mj = cJSON_Parse(main_text);
	unsigned fo = export_format_pid(5000, 31, 31);
	cJSON *ov = cJSON_CreateArray();
	for (int i = cJSON_GetArraySize(mj) - 1; i >= 0; i--)
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(mj, i), "pid")) == fo)
			cJSON_AddItemToArray(ov, cJSON_DetachItemFromArray(mj, i));
	CHECK(cJSON_Compare(j, mj, true));
	bool named = false, labelled = false, computing = false;
	const cJSON *ev;
	cJSON_ArrayForEach(ev, ov) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(ev, "name"));
		const cJSON *args = cJSON_GetObjectItem(ev, "args");
		if (streq(name, "process_name"))
			named = streq(cJSON_GetStringValue(cJSON_GetObjectItem(args, "name")), "Overlap Analysis");
		else if (streq(name, "process_labels"))
			labelled = streq(cJSON_GetStringValue(cJSON_GetObjectItem(args, "labels")), "NPU");
		else if (streq(cJSON_GetStringValue(cJSON_GetObjectItem(ev, "ph")), "X"))
			CHECK(streq(name, "Computing") || streq(name, "Free"));
		computing = computing || streq(name, "Computing");
	}
	CHECK(named && labelled && computing);
	check_nesting(ov);
	cJSON_Delete(ov);
	cJSON_Delete(mj);
	cJSON_Delete(j);
}

static void check_readme(const char *out)
{
	_cleanup_free_ char *p = NULL;
	CHECK(asprintf(&p, "%s/README.txt", out) > 0);
	_cleanup_free_ char *t = slurp(p);
	CHECK(strstr(t, "Timeline file description:\n1.msprof.json:"));
	CHECK(strstr(t, "\n2.msprof_tx.json:"));
	CHECK(strstr(t, "Summary file description:\n1.msprof_tx.csv:"));
}

static void test_export(void)
{
	_cleanup_free_ char *prof = make_prof("PROF_000001_20231114221320100_00005000ABCDEFGH",
					      "{\"msproftx\":\"on\",\"mstx_domain_exclude\":\"skip\"}");
	struct export_report rep;
	int r = export_prof_dir(prof, NULL, &rep);
	if (r < 0)
		fprintf(stderr, "export: %s: %s\n", strerror(-r), rep.message);
	CHECK(r == 0);
	CHECK(rep.bad_records == 0);
	CHECK(rep.mstx_dropped == 3);
	CHECK(strstr(rep.message, "agent: 3 event(s) (annotations, OS runtime calls, NCCL operations) dropped in 1 "
				  "process(es): 2 past the buffer cap (MSPROF_AGENT_BUFFER_MAX_MB raises it), 1 made by "
				  "a signal handler inside an annotation"));
	CHECK(strstr(rep.message, "mstx: 1 bad call(s) ignored"));
	/* device records are not events dropped from a buffer */
	CHECK(strstr(rep.message, "device: 5 task(s), call(s) or wait(s) had no end time when CUPTI handed them over "
				  "(still running at the stop) and are left out"));
	CHECK(strstr(rep.message, "device: 2 record(s) lost: the agent's queue of CUPTI records was full"));
	CHECK(strstr(rep.message, "device: 1 CUPTI record(s) with impossible values left out"));
	CHECK(strstr(rep.message, "mstx: 2 range(s) never ended: they end at the session end"));
	CHECK(strstr(rep.message, "mstx: 2 range end(s) without a start left out"));
	/* msprof, msprof_tx json; msprof_tx csv; overlap_analysis csv (its
	 * ranges are computing, host-only) */
	CHECK(rep.files_written == 4);
	check_db(rep.db_path);
	check_csv(rep.output_dir);
	check_timeline(rep.output_dir);
	check_readme(rep.output_dir);
}

/* --mstx-domain-include=net: the one domain's events, and nothing else. */
static void test_include(void)
{
	_cleanup_free_ char *prof = make_prof("PROF_000002_20231114221320100_00005000ABCDEFGH",
					      "{\"msproftx\":\"on\",\"mstx_domain_include\":\"net\"}");
	struct export_report rep;
	CHECK(export_prof_dir(prof, NULL, &rep) == 0);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *got = rows(db, "SELECT s.value, d.value, m.globalTid >> 32 FROM MSTX_EVENTS m "
					    "JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = m.domainId "
					    "ORDER BY m.startNs");
	check_text("include net", got, "cross|net|5000\ndeep|net|6000\ndeep|net|6000\ndeep|net|6000\ndeep|net|6000\n");
	char *c = rows(db, "SELECT pid, filtered, endWithoutStart, openAtEnd FROM AGENT_COUNTERS ORDER BY pid");
	check_text("filtered counts", c, "5000|9|0|0\n6000|0|0|0\n");
	sqlite3_close(db);
}

/* Type db and a dir with agent data only: the database alone; damage in an
 * agent file is reported, not fatal. */
static void test_db_damaged(void)
{
	_cleanup_free_ char *prof = make_prof("PROF_000003_20231114221320100_00005000ABCDEFGH", "{}");
	char *path;
	CHECK(asprintf(&path, "%s/host/data/agent_5000.data.slice_0", prof) > 0);
	struct stat st;
	CHECK(stat(path, &st) == 0);
	CHECK(truncate(path, st.st_size - 3) == 0);
	free(path);
	struct export_report rep;
	struct export_options opt = { .type = EXPORT_DB };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(rep.torn_bytes > 0);
	CHECK(strstr(rep.message, "incomplete record"));
	CHECK(rep.files_written == 0);
}

/* More ranges open at once than the matching tables hold (2^18): the
 * export keeps going, in bounded memory, and counts what it could not
 * match; the rest still matches. */
static void test_overflow(void)
{
	enum { MAX = 1 << 18, EXTRA = 3 };
	char *host, *data;
	char *prof = new_prof("PROF_000004_20231114221320100_00007000ABCDEFGH", NULL, false, &host, &data);
	struct w w;
	wopen(&w, data, 7000, 0);
	process(&w, 7000, "many", "./many");
	for (uint64_t i = 1; i <= MAX + EXTRA; i++)
		start(&w, 1, 7000, 2, i, 0, "r");
	end(&w, 2, 7000, 2, 1, 0);            /* matched */
	end(&w, 2, 7000, 2, MAX + EXTRA, 0);  /* its start found no room */
	wclose(&w);
	struct export_report rep;
	struct export_options opt = { .type = EXPORT_DB };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	CHECK(strstr(rep.message, "mstx: 3 range(s) beyond 262144 open at once could not be matched to their ends"));
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *c = rows(db, "SELECT openAtEnd, endWithoutStart, matchOverflow FROM AGENT_COUNTERS");
	char want[64];
	snprintf(want, sizeof want, "%d|1|%d\n", MAX + EXTRA - 1, EXTRA);
	check_text("overflow counts", c, want);
	char *m = rows(db, "SELECT COUNT(*) FROM MSTX_EVENTS");
	snprintf(want, sizeof want, "%d\n", MAX + EXTRA);
	check_text("every start has its row", m, want);
	sqlite3_close(db);
	free(host);
	free(data);
	free(prof);
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A timeline file's events and metadata, one a line without the "," that
 * follows, sorted (the order of events is free); *n_x: its "X" events. */
static char *timeline_lines(const char *path, size_t *n_x)
{
	char *text = slurp(path), *save = NULL, **line = NULL, *out = NULL;
	size_t n = 0, cap = 0, size = 0;
	*n_x = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(l);
		if (len && l[len - 1] == ',')
			l[len - 1] = '\0';
		if (streq(l, "[") || streq(l, "]"))
			continue;
		if (n == cap)
			CHECK((line = realloc(line, (cap = cap ? 2 * cap : 1024) * sizeof *line)));
		line[n++] = l;
		*n_x += strstr(l, "\"ph\":\"X\"") != NULL;
	}
	qsort(line, n, sizeof *line, line_cmp);
	FILE *m = open_memstream(&out, &size);
	CHECK(m);
	for (size_t i = 0; i < n; i++)
		fprintf(m, "%s\n", line[i]);
	fclose(m);
	free(line);
	free(text);
	return out;
}

/* The text summary's ranges: from its "Top ranges" line to the losses
 * (which differ between an export that parsed and one that did not). */
static char *summary_ranges(const char *summary)
{
	const char *from = strstr(summary, "Top ranges"), *to = from ? strstr(from, "Losses and notes") : NULL;
	CHECK(from);
	return strndup(from, to ? (size_t)(to - from) : strlen(from));
}

/* The msprof_tx CSV in start order, ties by rowid (the order the events
 * were recorded), whatever the threads: events of several threads starting
 * at once, ranges of one thread starting at once but ending apart (the
 * index holds them longer first), and one thread starting more events at
 * once than the export merges in memory (65536), among another thread's.
 * The order wanted is SQLite's, of the same rows. */
static void test_csv_order(void)
{
	enum { P = 7100, A = 7100, B = 7101, C = 7102, MANY = 70000 };
	char *host, *data;
	char *prof = new_prof("PROF_000005_20231114221320100_00007100ABCDEFGH", "{\"msproftx\":\"on\"}", false, &host,
			      &data);
	struct w w;
	wopen(&w, data, P, 0);
	process(&w, P, "order", "./order");
	start(&w, 1, A, 2, 1, 0, "a1");
	start(&w, 1, A, 2, 2, 0, "a2");
	mark(&w, 1, C, 0, 0, 0, "c1");
	end(&w, 2, A, 2, 1, 0);
	for (unsigned i = 0; i < MANY / 2; i++)
		mark(&w, 3, B, 0, 0, 0, "b");
	mark(&w, 3, C, 0, 0, 0, "c3");
	for (unsigned i = 0; i < MANY / 2; i++)
		mark(&w, 3, B, 0, 0, 0, "b");
	mark(&w, 4, C, 0, 0, 0, "c4");
	mark(&w, 4, A, 0, 0, 0, "a4");
	end(&w, 5, A, 2, 2, 0);
	mark(&w, 6, B, 0, 0, 0, "b6");
	wclose(&w);

	struct export_report rep;
	/* with the text summary: its ranges, summed by the thread that reads
	 * MSTX_EVENTS for both outputs, are compared below with the sums of a
	 * timeline written alone (report.html's own scan) */
	struct export_options all = { .what = EXPORT_ALL | EXPORT_TEXT_SUMMARY };
	int r = export_prof_dir(prof, &all, &rep);
	if (r < 0)
		fprintf(stderr, "export: %s: %s\n", strerror(-r), rep.message);
	CHECK(r == 0);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	_cleanup_free_ char *want = rows(db, "SELECT m.globalTid >> 32, m.globalTid & 4294967295, "
					     "printf('%d.%03d', m.startNs / 1000, m.startNs % 1000), "
					     "printf('%d.%03d', m.endNs / 1000, m.endNs % 1000), s.value FROM MSTX_EVENTS m "
					     "JOIN STRING_IDS s ON s.id = m.message ORDER BY m.startNs, m.rowid");
	char *n = rows(db, "SELECT COUNT(*) FROM MSTX_EVENTS");
	char count[32];
	snprintf(count, sizeof count, "%d\n", MANY + 7); /* and a1, a2, c1, c3, c4, a4, b6 */
	check_text("events", n, count);
	sqlite3_close(db);

	/* the CSV's pid, tid, start, end and message columns, as the query
	 * writes them */
	_cleanup_free_ char *path = find_file(rep.output_dir, "msprof_tx_", ".csv");
	CHECK(path);
	_cleanup_free_ char *csv = slurp(path);
	char *got = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&got, &size);
	char *save = NULL;
	CHECK(strtok_r(csv, "\n", &save)); /* the header */
	for (char *line; (line = strtok_r(NULL, "\n", &save));) {
		char *f[16], *fs = NULL;
		unsigned k = 0;
		for (char *t = strtok_r(line, ",", &fs); t && k < 16; t = strtok_r(NULL, ",", &fs))
			f[k++] = t;
		CHECK(k == 14);
		f[7][strcspn(f[7], "\t")] = '\0';
		f[8][strcspn(f[8], "\t")] = '\0';
		fprintf(m, "%s|%s|%s|%s|%s\n", f[1], f[2], f[7], f[8], f[10]);
	}
	fclose(m);
	check_text("msprof_tx csv order", got, want);

	/* The timeline: the rows a thread of the export read for both
	 * outputs and handed over (stages.c write_both) are the rows of a
	 * timeline written alone, which reads them itself: the same events
	 * and metadata, every row once. */
	_cleanup_free_ char *tl = find_file(rep.output_dir, "msprof_tx_", ".json");
	size_t n_fed, n_alone;
	char *fed = timeline_lines(tl, &n_fed);
	CHECK(n_fed == MANY + 7);
	_cleanup_free_ char *ranges_fed = summary_ranges(rep.summary);
	CHECK(strstr(ranges_fed, "Top ranges by total time (2 range(s) of 2 name(s)"));
	struct export_options alone = { .what = EXPORT_TIMELINE | EXPORT_TEXT_SUMMARY };
	CHECK(export_prof_dir(prof, &alone, &rep) == 0);
	check_text("the text summary's ranges, summed as read and by report.html's scan", summary_ranges(rep.summary),
		   ranges_fed);
	_cleanup_free_ char *tl_alone = find_file(rep.output_dir, "msprof_tx_", ".json");
	_cleanup_free_ char *want_tl = timeline_lines(tl_alone, &n_alone);
	check_text("msprof_tx timeline, fed and read alone", fed, want_tl);
	CHECK(n_alone == MANY + 7);
	free(host);
	free(data);
	free(prof);
}

/* Rows are written once complete, in start order, through a window of
 * 65536 pending rows: a random mix of marks, push/pop ranges on two
 * threads and start/end ranges (ended on either thread, some ends written
 * before their start, some ends without a start) around a push and a
 * start/end range that stay open across the whole stream (written open
 * when the window passes them, then ended) and ranges left open at the
 * end.  MSTX_EVENTS, by rowid, must be what a model of the matching gives,
 * and the counts too. */
struct model_row {
	uint64_t s, e;  /* e 0: open */
	unsigned type, tid, etid;
	uint64_t id;
	char msg[16];
};

static void test_window(void)
{
	enum { P = 7200, A = 7200, B = 7201, N = 3 * 65536, OPEN_MAX = 64 };
	char *host, *data;
	char *prof = new_prof("PROF_000006_20231114221320100_00007200ABCDEFGH", "{\"msproftx\":\"on\"}", true, &host,
			      &data);

	struct model_row *row = calloc(N + 16, sizeof *row);
	size_t n = 0, stack[2][OPEN_MAX], depth[2] = { 0, 0 }, open[OPEN_MAX], n_open = 0;
	uint64_t next_id = 1, unmatched = 0, seed = 12345;
	CHECK(row);
	struct w w;
	wopen(&w, data, P, 0);
	process(&w, P, "window", "./window");
#define NEW(ms_, type_, tid_, id_, msg_) \
	(row[n] = (struct model_row){ at(ms_), 0, type_, tid_, tid_, id_, "" }, \
	 snprintf(row[n].msg, sizeof row[n].msg, "%s", msg_), n++)
	/* open across everything */
	start(&w, 0, A, 1, 0, 0, "long push");
	stack[0][depth[0]++] = NEW(0, 1, A, NONE, "long push");
	start(&w, 0, B, 2, next_id, 0, "long range");
	size_t long_range = NEW(0, 2, B, next_id, "long range");
	uint64_t long_id = next_id++;
	for (unsigned i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned op = (unsigned)(seed >> 33) % 6, t = (unsigned)(seed >> 40) & 1;
		uint32_t tid = t ? B : A;
		uint64_t ms = 1 + i / 2560; /* 1..77 */
		char msg[16];
		snprintf(msg, sizeof msg, "e%u", (unsigned)(seed >> 50) % 50);
		if (op == 0) {
			mark(&w, ms, tid, 0, 0, 0, msg);
			NEW(ms, 0, tid, NONE, msg);
			row[n - 1].e = at(ms);
		} else if (op == 1 && depth[t] < OPEN_MAX) {
			start(&w, ms, tid, 1, 0, 0, msg);
			stack[t][depth[t]++] = NEW(ms, 1, tid, NONE, msg);
		} else if (op == 2 && depth[t] > (t ? 0U : 1U)) { /* A's long push stays open */
			end(&w, ms, tid, 1, 0, 0);
			size_t k = stack[t][--depth[t]];
			row[k].e = at(ms), row[k].etid = tid;
		} else if (op == 2 && t) {
			end(&w, ms, tid, 1, 0, 0); /* a pop without a push */
			unmatched++;
		} else if (op == 3 && n_open < OPEN_MAX) {
			start(&w, ms, tid, 2, next_id, 0, msg);
			open[n_open++] = NEW(ms, 2, tid, next_id, msg);
			next_id++;
		} else if (op == 4 && n_open) {
			size_t j = (size_t)(seed >> 20) % n_open, k = open[j];
			open[j] = open[--n_open];
			end(&w, ms, tid, 2, row[k].id, 0);
			row[k].e = at(ms), row[k].etid = tid;
		} else if (op == 5) {
			/* ended on the other thread, that end read first */
			end(&w, ms + 1, t ? A : B, 2, next_id, 0);
			start(&w, ms, tid, 2, next_id, 0, msg);
			size_t k = NEW(ms, 2, tid, next_id, msg);
			row[k].e = at(ms + 1), row[k].etid = t ? A : B;
			next_id++;
		} else {
			end(&w, ms, tid, 2, 1000000 + i, 0); /* never started */
			unmatched++;
		}
	}
#undef NEW
	end(&w, 80, A, 2, long_id, 0);
	row[long_range].e = at(80), row[long_range].etid = A;
	counters(&w, 81, n, 0, 0, 0);
	wclose(&w);

	struct export_report rep;
	struct export_options opt = { .type = EXPORT_DB };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	/* the model: ranges still open end at the session end */
	uint64_t open_at_end = 0;
	char *want = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&want, &size);
	for (size_t i = 0; i < n; i++) {
		open_at_end += row[i].e == 0;
		fprintf(m, "%zu|%llu|%llu|%u|%llu|%s|%llu|%llu\n", i + 1, (unsigned long long)row[i].s,
			(unsigned long long)(row[i].e ? row[i].e : END_NS), row[i].type, (unsigned long long)row[i].id,
			row[i].msg, (unsigned long long)GT(P, row[i].tid),
			(unsigned long long)GT(P, row[i].e ? row[i].etid : row[i].tid));
	}
	fclose(m);
	CHECK(open_at_end == depth[0] + depth[1] + n_open);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *got = rows(db, "SELECT m.rowid, m.startNs, m.endNs, m.eventType, m.rangeId, s.value, m.globalTid, "
			     "m.endGlobalTid FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message ORDER BY m.rowid");
	check_text("MSTX_EVENTS through the window", got, want);
	free(want);
	char *c = rows(db, "SELECT openAtEnd, endWithoutStart, matchOverflow FROM AGENT_COUNTERS");
	char cwant[64];
	snprintf(cwant, sizeof cwant, "%llu|%llu|0\n", (unsigned long long)open_at_end, (unsigned long long)unmatched);
	check_text("window counts", c, cwant);

	sqlite3_close(db);
	free(row);
	free(host);
	free(data);
	free(prof);
}

/* The overlap's build reads the ranges the parse listed as they ended:
 * written complete, ended by an update after the window of pending rows
 * passed them, or still open at the end; a range of the communication
 * domain is communication, a range in msprof.step nothing.  Apart in
 * time, the host's computing is the sum of their durations. */
static void test_overlap_ranges(void)
{
	enum { P = 7300, A = 7300, B = 7301, MARKS = 70000 };
	char *host, *data;
	char *prof = new_prof("PROF_000007_20231114221320100_00007300ABCDEFGH", "{\"msproftx\":\"on\"}", true, &host,
			      &data);
	struct w w;
	wopen(&w, data, P, 0);
	process(&w, P, "overlap", "./overlap");
	domain(&w, 1, "communication");
	domain(&w, 2, "msprof.step");
	start(&w, 0, A, 1, 0, 2, "not computing"); /* open to the end, skipped */
	start(&w, 1, A, 1, 0, 0, "push");          /* 1..2 */
	end(&w, 2, A, 1, 0, 0);
	end(&w, 4, B, 2, 7, 0);                    /* 3..4, its end read first */
	start(&w, 3, A, 2, 7, 0, "cross");
	start(&w, 5, A, 2, 8, 0, "long");          /* 5..8, written open */
	for (unsigned i = 0; i < MARKS; i++)
		mark(&w, 6 + i / (MARKS / 2), B, 0, 0, 0, "m");
	end(&w, 8, B, 2, 8, 0);
	start(&w, 9, A, 1, 0, 1, "allreduce");     /* 9..10: communication */
	end(&w, 10, A, 1, 0, 1);
	start(&w, 11, B, 2, 9, 0, "open");         /* 11..the end */
	counters(&w, 12, MARKS + 6, 0, 0, 0);
	wclose(&w);

	struct export_report rep;
	struct export_options opt = { .type = EXPORT_DB };
	CHECK(export_prof_dir(prof, &opt, &rep) == 0);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(rep.db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	char *got = rows(db, "SELECT computing, communication FROM STEP_TRACE_TIME");
	char want[64];
	snprintf(want, sizeof want, "%llu|%llu\n", (unsigned long long)(at(2) - at(1) + at(4) - at(3) + at(8) - at(5) +
									 END_NS - at(11)),
		 (unsigned long long)(at(10) - at(9)));
	check_text("host computing and communication", got, want);
	sqlite3_close(db);
	free(host);
	free(data);
	free(prof);
}

int main(void)
{
	if (!mkdtemp(tmp))
		return 2;
	test_export();
	test_include();
	test_db_damaged();
	test_overflow();
	test_csv_order();
	test_window();
	test_overlap_ranges();
	rm_rf(tmp);
	printf("ok\n");
	return 0;
}
