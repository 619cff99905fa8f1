/* Agent data: every host/data/agent_<pid>.data.slice_<n>, one process at
 * a time, its slices in order, records as they come -> AGENT_PROCESS,
 * AGENT_THREAD and AGENT_COUNTERS (SCHEMA.md has the meaning of each
 * column).  The records of the domains that name them (agent_records:
 * mstx marks and ranges, OS runtime calls, device tasks) go to those
 * domains' decoders, and a domain with agent_ops takes part around the
 * files and each process (the mstx domain's range matching, domain-mstx-parse.c).
 * Every count reaches AGENT_COUNTERS and the report. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "export/domain-agents.h"
#include "export/domain.h"
#include "export/exp.h"
#include "export/export.h"
#include "export/reader.h"
#include "export/sql.h"
#include "export/string-ids.h"
#include "collectors/raw.h"
#include "common/util.h"

enum {
	ST_THREAD,
	ST_PROCESS,
	ST_COUNTERS,
	_ST_MAX,
};

static const char *const st_sql[_ST_MAX] = {
	[ST_THREAD] = ("INSERT INTO AGENT_THREAD (pid, tid, name) VALUES (?, ?, ?) "
		       "ON CONFLICT (pid, tid) DO UPDATE SET name = excluded.name"),
	[ST_PROCESS] = "INSERT INTO AGENT_PROCESS VALUES (?, ?, ?, ?, ?, ?, ?)",
	[ST_COUNTERS] = "INSERT INTO AGENT_COUNTERS VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
};

/* RAW_AGENT_COUNTERS' causes of dropped events, in their order there */
enum { DROP_FULL, DROP_NESTED, DROP_NOSLOT, DROP_UNOPENED, DROP_WRITE, DROP_CAUSES };
_Static_assert(DROP_CAUSES == EXP_DROP_CAUSES, "AGENT_COUNTERS has a column per cause");
const char *const exp_drop_cause_text[DROP_CAUSES] = {
	[DROP_FULL] = "past the buffer cap (MSPROF_AGENT_BUFFER_MAX_MB raises it)",
	[DROP_NESTED] = "made by a signal handler inside an annotation",
	[DROP_NOSLOT] = "of threads that got no buffer (the agent's limit of threads, or no memory)",
	[DROP_UNOPENED] = "NCCL operations with no room to be kept open",
	[DROP_WRITE] = "not written (the raw file could not be written)",
};

struct agent_parse {
	struct exp *e;
	sqlite3_stmt *st[_ST_MAX];
	/* the domains' decoders by record type */
	int (*take[EXP_AGENT_RECORD_TYPES])(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec,
					    struct raw_cur *c, int64_t t);
	struct raw_header h;
	struct exp_agent_process ap;
	char msg[RAW_AGENT_MAX_STR + 1];

	/* this process */
	bool have_proc, have_counters, have_records;
	uint32_t ppid;
	int32_t rank;
	int64_t name_sid;
	char *cmdline;
	int64_t first_ns, last_ns;
	uint64_t events, dropped, bad, truncated;        /* the agent's counts */
	uint64_t gpu_lost, gpu_untimed, gpu_bad;         /* device records not written */
	uint64_t cause[DROP_CAUSES];                     /* dropped, by cause */
	bool have_causes;                                /* an older agent's record has none */
	uint64_t malformed;
	int64_t lost_ns;                                 /* recording ended: msprofd lost (0 not) */
	uint64_t far;           /* events whose time is far outside the session (exp_time_far) */
	/* the last record of the file set: a window ends with a final
	 * COUNTERS (an older agent's has no final field: any COUNTERS) */
	uint16_t last_type;
	int64_t last_t;
	bool have_final, final;

	/* all processes, for the report */
	uint64_t t_events, t_dropped, t_bad, t_truncated;
	uint64_t t_gpu_lost, t_gpu_untimed, t_gpu_bad;
	uint64_t t_cause[DROP_CAUSES], t_uncaused;
	unsigned t_dropping_pids;
	/* processes whose recording ended when msprofd was lost: the first
	 * few named, with when */
	unsigned t_lost_pids;
	char lost_names[512];
};

static int step(struct agent_parse *p, int idx) { return exp_step_done(p->e, p->st[idx], st_sql[idx]); }

static int on_process(struct agent_parse *p, struct raw_cur *c)
{
	uint32_t pid = raw_cur_u32(c), ppid = raw_cur_u32(c);
	int32_t rank = (int32_t)raw_cur_u32(c);
	(void)raw_cur_u32(c);
	char *cmd = malloc(RAW_AGENT_MAX_STR + 1);
	if (!cmd)
		return -ENOMEM;
	if (!exp_take_str(c, p->msg) || !exp_take_str(c, cmd) || pid != p->ap.pid) {
		free(cmd);
		return 1;
	}
	int r = exp_intern_id(p->e, p->msg, &p->name_sid);
	if (r < 0) {
		free(cmd);
		return r;
	}
	free(p->cmdline);
	p->cmdline = cmd;
	p->ppid = ppid;
	p->rank = rank;
	p->have_proc = true;
	return 0;
}

static int on_thread(struct agent_parse *p, struct raw_cur *c)
{
	uint32_t tid = raw_cur_u32(c);
	if (!exp_take_str(c, p->msg))
		return 1;
	int64_t sid;
	int r = exp_intern_id(p->e, p->msg, &sid);
	if (r < 0)
		return r;
	sqlite3_stmt *st = p->st[ST_THREAD];
	sqlite3_bind_int64(st, 1, p->ap.pid);
	sqlite3_bind_int64(st, 2, tid);
	sqlite3_bind_int64(st, 3, sid);
	return step(p, ST_THREAD);
}

static int on_counters(struct agent_parse *p, struct raw_cur *c)
{
	/* the device counts, the causes and the trailing words (ended,
	 * final) are missing in an older agent's record */
	uint64_t v[7 + DROP_CAUSES] = { 0 };
	int n = c->left >= (7 + DROP_CAUSES) * 8 ? 7 + DROP_CAUSES
		: c->left >= 7 * 8		 ? 7
						 : 4;
	for (int i = 0; i < n; i++)
		v[i] = raw_cur_u64(c);
	if (c->err)
		return 1;
	p->have_causes = n == 7 + DROP_CAUSES;
	/* the window's end: the last record's word, its time the record's */
	uint64_t ended = p->have_causes && c->left >= 8 ? raw_cur_u64(c) : 0;
	p->lost_ns = ended == RAW_AGENT_ENDED_LOST ? p->last_ns : 0;
	p->have_final = p->have_causes && c->left >= 8;
	p->final = p->have_final && raw_cur_u64(c) != 0;
	for (int i = 0; i < DROP_CAUSES; i++)
		p->cause[i] = v[7 + i];
	/* cumulative for the window: the last one has them all */
	p->events = v[0];
	p->dropped = v[1];
	p->bad = v[2];
	p->truncated = v[3];
	p->gpu_lost = v[4];
	p->gpu_untimed = v[5];
	p->gpu_bad = v[6];
	p->have_counters = true;
	return 0;
}

static int on_record(struct agent_parse *p, const struct raw_record *rec)
{
	struct raw_cur c = { .p = rec->payload, .left = rec->len };
	uint64_t ts = raw_cur_u64(&c);
	if (c.err)
		return 1;
	int64_t t = raw_unix_ns(&p->h, ts);
	if (exp_time_far(p->e, t)) {
		/* a description still describes; an event's time is all it has */
		if (rec->type != RAW_AGENT_PROCESS && rec->type != RAW_AGENT_THREAD &&
		    rec->type != RAW_AGENT_COUNTERS && rec->type != RAW_AGENT_DOMAIN &&
		    rec->type != RAW_AGENT_CATEGORY) {
			p->far++;
			return 0;
		}
	} else {
		exp_note_time(p->e, t);
		if (!p->have_records || t < p->first_ns)
			p->first_ns = t;
		if (!p->have_records || t > p->last_ns)
			p->last_ns = t;
		p->have_records = true;
	}

	p->last_type = rec->type;
	if (!exp_time_far(p->e, t))
		p->last_t = t;
	switch (rec->type) {
	case RAW_AGENT_PROCESS: return on_process(p, &c);
	case RAW_AGENT_THREAD: return on_thread(p, &c);
	case RAW_AGENT_COUNTERS: return on_counters(p, &c);
	default:
		/* a domain's (mstx, OS runtime calls, device tasks), or a newer
		 * agent's record */
		return rec->type < EXP_AGENT_RECORD_TYPES && p->take[rec->type]
			       ? p->take[rec->type](p->e, &p->ap, rec, &c, t)
			       : 0;
	}
}

static int on_record_cb(void *ctx, const struct raw_record *rec)
{
	return on_record(ctx, rec);
}

/* --- one process -------------------------------------------------------------------- */

static int process_begin(struct agent_parse *p, uint32_t pid)
{
	p->ap = (struct exp_agent_process){ .pid = pid, .h = &p->h };
	p->have_proc = p->have_counters = p->have_records = false;
	p->ppid = 0;
	p->rank = -1;
	p->name_sid = -1;
	free(p->cmdline);
	p->cmdline = NULL;
	p->events = p->dropped = p->bad = p->truncated = 0;
	p->gpu_lost = p->gpu_untimed = p->gpu_bad = 0;
	memset(p->cause, 0, sizeof p->cause);
	p->have_causes = false;
	p->lost_ns = 0;
	p->last_type = 0;
	p->last_t = 0;
	p->have_final = p->final = false;
	int r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++)
		if (exp_domains[i]->agent_ops && exp_domains[i]->agent_ops->begin)
			r = exp_domains[i]->agent_ops->begin(p->e, &p->ap);
	return r;
}

static void process_forget(struct agent_parse *p)
{
	for (size_t i = 0; i < exp_domains_n; i++)
		if (exp_domains[i]->agent_ops && exp_domains[i]->agent_ops->forget)
			exp_domains[i]->agent_ops->forget(p->e);
}

/* A process whose file set ends without the window's final record: it was
 * killed (or its files were cut short), and what its agent held since its
 * last flush is lost with it.  Said per process: its last record, and the
 * time from there to the session's end, in which what it recorded is
 * missing. */
static void unfinished(struct agent_parse *p)
{
	struct exp *e = p->e;
	if (e->flight.on)
		return; /* a flight recorder's dump: the processes recorded on */
	e->rep->agents_unfinished++;
	double at = e->start_ns ? (double)(p->last_t - (int64_t)e->start_ns) / 1e9 : 0;
	if (e->end_ns && (int64_t)e->end_ns > p->last_t)
		exp_note(e, "agent: process %u ended without its final record (killed, or its raw files cut short): "
			    "its last record is at %.3f s into the session, and what it recorded in the %.3f s from "
			    "there to the session's end, since its agent's last flush, is missing",
			 p->ap.pid, at, (double)((int64_t)e->end_ns - p->last_t) / 1e9);
	else
		exp_note(e, "agent: process %u ended without its final record (killed, or its raw files cut short): "
			    "its last record is at %.3f s into the session; what it recorded after that, since its "
			    "agent's last flush, is missing", p->ap.pid, at);
}

static int process_end(struct agent_parse *p)
{
	int r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++)
		if (exp_domains[i]->agent_ops && exp_domains[i]->agent_ops->end)
			r = exp_domains[i]->agent_ops->end(p->e, &p->ap);
	if (r < 0)
		return r;
	if (p->have_proc || p->have_records) {
		sqlite3_stmt *st = p->st[ST_PROCESS];
		if (p->name_sid < 0) {
			char name[32];
			snprintf(name, sizeof name, "pid %u", p->ap.pid);
			if ((r = exp_intern_id(p->e, name, &p->name_sid)) < 0)
				return r;
		}
		sqlite3_bind_int64(st, 1, p->ap.pid);
		sqlite3_bind_int64(st, 2, p->ppid);
		sqlite3_bind_int64(st, 3, p->rank);
		sqlite3_bind_int64(st, 4, p->name_sid);
		if (p->cmdline)
			sqlite3_bind_text(st, 5, p->cmdline, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		sqlite3_bind_int64(st, 6, p->first_ns);
		sqlite3_bind_int64(st, 7, p->last_ns);
		if ((r = step(p, ST_PROCESS)) < 0)
			return r;
	}
	if (p->have_records && (p->last_type != RAW_AGENT_COUNTERS || (p->have_final && !p->final)))
		unfinished(p);
	sqlite3_stmt *st = p->st[ST_COUNTERS];
	sqlite3_bind_int64(st, 1, p->ap.pid);
	sqlite3_bind_int64(st, 2, (int64_t)p->events);
	sqlite3_bind_int64(st, 3, (int64_t)p->dropped);
	sqlite3_bind_int64(st, 4, (int64_t)p->bad);
	sqlite3_bind_int64(st, 5, (int64_t)p->truncated);
	sqlite3_bind_int64(st, 6, (int64_t)p->ap.open_at_end);
	sqlite3_bind_int64(st, 7, (int64_t)p->ap.end_without_start);
	sqlite3_bind_int64(st, 8, (int64_t)p->ap.overflow);
	sqlite3_bind_int64(st, 9, (int64_t)p->ap.filtered);
	sqlite3_bind_int64(st, 10, (int64_t)p->gpu_lost);
	sqlite3_bind_int64(st, 11, (int64_t)p->gpu_untimed);
	sqlite3_bind_int64(st, 12, (int64_t)p->gpu_bad);
	for (int i = 0; i < DROP_CAUSES; i++) {
		if (p->have_causes)
			sqlite3_bind_int64(st, 13 + i, (int64_t)p->cause[i]);
		else
			sqlite3_bind_null(st, 13 + i); /* an older agent: not known */
		p->t_cause[i] += p->cause[i];
	}
	if (!p->have_causes)
		p->t_uncaused += p->dropped;
	if ((r = step(p, ST_COUNTERS)) < 0)
		return r;
	p->t_gpu_lost += p->gpu_lost;
	p->t_gpu_untimed += p->gpu_untimed;
	p->t_gpu_bad += p->gpu_bad;
	p->t_events += p->events;
	p->t_dropped += p->dropped;
	p->t_bad += p->bad;
	p->t_truncated += p->truncated;
	p->t_dropping_pids += p->dropped > 0;
	if (p->lost_ns) {
		size_t n = strlen(p->lost_names);
		if (p->t_lost_pids++ < 8 && n < sizeof p->lost_names)
			snprintf(p->lost_names + n, sizeof p->lost_names - n, "%spid %u at %" PRId64 ".%03" PRId64 " s",
				 n ? ", " : "", p->ap.pid, p->lost_ns / 1000000000, p->lost_ns / 1000000 % 1000);
	}
	return 0;
}

static int agent_file(struct agent_parse *p, const char *path)
{
	struct raw_reader *rd = NULL;
	int r = exp_reader_open(p->e, path, &rd);
	if (r <= 0)
		return r;
	p->h = *raw_reader_header(rd);
	uint64_t far = p->far;
	r = exp_reader_drain(p->e, path, rd, on_record_cb, p, &p->malformed);
	if (p->far > far)
		exp_note(p->e, "raw file '%s': %" PRIu64 " record(s) with a time far outside the session (before 1970, "
			       "after 2262, or more than a day from its start or end) left out", path, p->far - far);
	return r;
}

/* --- all processes ------------------------------------------------------------------ */

static void report(struct agent_parse *p)
{
	struct exp *e = p->e;
	struct export_report *rep = e->rep;
	rep->mstx_dropped = p->t_dropped;
	if (p->t_dropped) {
		/* one line: the total, then each cause that has some */
		char causes[512] = "";
		size_t n = 0;
		for (int i = 0; i < DROP_CAUSES; i++)
			if (p->t_cause[i] && n < sizeof causes)
				n += (size_t)snprintf(causes + n, sizeof causes - n, "%s%" PRIu64 " %s", n ? ", " : "",
						      p->t_cause[i], exp_drop_cause_text[i]);
		if (p->t_uncaused && n < sizeof causes)
			snprintf(causes + n, sizeof causes - n, "%s%" PRIu64 " of an older agent, cause not recorded",
				 n ? ", " : "", p->t_uncaused);
		exp_note(e, "agent: %" PRIu64 " event(s) (annotations, OS runtime calls, NCCL operations) dropped in "
			     "%u process(es): %s", p->t_dropped, p->t_dropping_pids, causes);
	}
	if (p->t_lost_pids)
		exp_note(e, "agent: annotation recording stopped early in %u process(es) when msprofd was lost "
			     "(nothing of theirs after that time was recorded): %s%s (Unix time)", p->t_lost_pids,
			     p->lost_names, p->t_lost_pids > 8 ? ", ..." : "");
	if (p->t_gpu_untimed)
		exp_note(e, "device: %" PRIu64 " task(s), call(s) or wait(s) had no end time when CUPTI handed them "
			     "over (still running at the stop) and are left out", p->t_gpu_untimed);
	if (p->t_gpu_lost)
		exp_note(e, "device: %" PRIu64 " record(s) lost: the agent's queue of CUPTI records was full",
			     p->t_gpu_lost);
	if (p->t_gpu_bad)
		exp_note(e, "device: %" PRIu64 " CUPTI record(s) with impossible values left out", p->t_gpu_bad);
	if (p->t_bad)
		exp_note(e, "mstx: %" PRIu64 " bad call(s) ignored (NULL message, unknown range id, pop "
			     "without push, destroyed domain)", p->t_bad);
	if (p->t_truncated)
		exp_note(e, "mstx: %" PRIu64 " message(s) cut to %d bytes", p->t_truncated, RAW_AGENT_MAX_STR);
	for (size_t i = 0; i < exp_domains_n; i++)
		if (exp_domains[i]->agent_ops && exp_domains[i]->agent_ops->report)
			exp_domains[i]->agent_ops->report(e);
}

/* "agent_<pid>.lost" files (collectors/raw.h): each process that ended
 * before its agent thread wrote its queues, named with what it lost.  The
 * file is a job's: read at most a line, trusted for nothing but digits. */
static void lost_notes(struct exp *e, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		unsigned pid;
		int end = 0;
		size_t len = strlen(de->d_name), sl = strlen(RAW_AGENT_LOST_SUFFIX);
		if (len <= sl || strcmp(de->d_name + len - sl, RAW_AGENT_LOST_SUFFIX) != 0 ||
		    sscanf(de->d_name, RAW_AGENT_PREFIX "%u%n", &pid, &end) != 1 || (size_t)end != len - sl)
			continue;
		char buf[32] = "";
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		if (fd >= 0)
			close(fd);
		uint64_t bytes = 0;
		size_t k = 0;
		while (n > 0 && k < (size_t)n && buf[k] >= '0' && buf[k] <= '9' && bytes < UINT64_MAX / 10)
			bytes = bytes * 10 + (uint64_t)(buf[k++] - '0');
		if (n > 0 && k > 0 && k + 1 == (size_t)n && buf[k] == '\n')
			exp_note(e, "agent: process %u ended before its agent thread wrote its last annotations "
				    "(it did not get to them in the exit's wait): %" PRIu64 " bytes of them are lost",
				 pid, bytes);
		else
			exp_note(e, "agent: process %u ended before its agent thread wrote its last annotations; "
				    "'%s' does not say how much was lost", pid, de->d_name);
	}
	closedir(d);
}

static int exp_parse_agents(struct exp *e)
{
	char dir[PATH_MAX];
	if ((size_t)snprintf(dir, sizeof dir, "%s/host/data", e->prof_dir) >= sizeof dir)
		return -ENAMETOOLONG;
	lost_notes(e, dir);
	uint32_t *pids = NULL;
	size_t n = 0;
	int r = raw_list_agent_pids(dir, &pids, &n);
	if (r < 0) {
		if (r == -ENOENT)
			return 0;
		exp_fail(e, "cannot list '%s': %s", dir, strerror(-r));
		return r;
	}
	if (!n) {
		free(pids);
		return 0;
	}
	struct agent_parse p = { .e = e };
	for (size_t i = 0; i < exp_domains_n; i++)
		for (const struct exp_agent_record *a = exp_domains[i]->agent_records; a && a->take; a++)
			if (a->type < EXP_AGENT_RECORD_TYPES)
				p.take[a->type] = a->take;
	r = 0;
	for (size_t i = 0; i < exp_domains_n && r == 0; i++)
		if (exp_domains[i]->agent_ops && exp_domains[i]->agent_ops->begin_all)
			r = exp_domains[i]->agent_ops->begin_all(e);
	for (int i = 0; i < _ST_MAX && r == 0; i++)
		r = exp_prepare(e, st_sql[i], &p.st[i]);
	for (size_t i = 0; i < n && r == 0; i++) {
		char stem[RAW_STEM_MAX];
		char **paths = NULL;
		raw_agent_stem((pid_t)pids[i], stem);
		int k = raw_list_stem_slices(dir, stem, &paths);
		if (k <= 0) {
			raw_paths_free(paths);
			continue;
		}
		r = process_begin(&p, pids[i]);
		for (char **pp = paths; r == 0 && *pp; pp++)
			r = agent_file(&p, *pp);
		raw_paths_free(paths);
		if (r == 0)
			r = process_end(&p);
		process_forget(&p);
	}
	for (size_t i = 0; i < exp_domains_n && r == 0; i++)
		if (exp_domains[i]->agent_ops && exp_domains[i]->agent_ops->end_all)
			r = exp_domains[i]->agent_ops->end_all(e);
	/* the timeline reads OS runtime calls by thread, then time (made
	 * here, after the mstx domain's index, as the database has always
	 * listed them) */
	if (r == 0)
		r = exp_exec(e, "CREATE INDEX OsrtApiIndex ON OSRT_API (globalTid, startNs)");
	if (r == 0)
		report(&p);
	e->rep->bad_records += p.malformed + p.far;
	free(p.cmdline);
	free(pids);
	for (int i = 0; i < _ST_MAX; i++)
		sqlite3_finalize(p.st[i]);
	return r;
}

void exp_agent_thread_name(struct exp *e, int64_t pid, int64_t tid, char *buf, size_t size)
{
	buf[0] = '\0';
	sqlite3_stmt *st;
	if (!exp_table_has_rows(e, "AGENT_THREAD"))
		return;
	if (exp_prepare(e, "SELECT s.value FROM AGENT_THREAD a JOIN STRING_IDS s ON s.id = a.name "
			   "WHERE (?1 < 0 OR a.pid = ?1) AND a.tid = ?2 ORDER BY a.rowid DESC LIMIT 1", &st) < 0)
		return;
	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, tid);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static const char *const tables[] = { "AGENT_PROCESS", "AGENT_THREAD", "AGENT_COUNTERS", NULL };

/* The agents' raw files: AGENT_PROCESS, AGENT_THREAD and AGENT_COUNTERS;
 * the records a domain names in its agent_records (mstx, OS runtime calls,
 * device tasks) go to its decoder. */
const struct exp_domain exp_domain_agents = {
	.name = "agents",
	.tables = tables,
	.parse = exp_parse_agents,
};
