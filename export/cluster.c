/* msprof export cluster: the ranks of a distributed job, one PROF dir
 * each, merged into one directory (export.h export_cluster).
 *
 * Names.  A rank dir's rank is host/info.json's rank_id; ranks are shown
 * as "Rank <id>", sorted by id.  A dir without one (rank_id -1: a process
 * started outside a distributed launcher) is shown as "Pid <pid>" (the
 * launched process, info.json's pid), after the ranks, by pid.  A second
 * dir of a rank already seen (two jobs in one directory) is "Rank <id>
 * #2", and so on.  The files are named so that none matches what the
 * Ascend readers look for in a single PROF dir (msprof_<digits>.json,
 * step_trace_*, msprof_<digits>.db): msprof_cluster_{ts}.json,
 * cluster_step_trace_{ts}.csv, cluster_ranks_{ts}.csv,
 * msprof_cluster_{ts}.db.
 *
 * Timeline.  Each rank's layers are written by the export's own layer
 * writers (exp_write_layers) from its database into a spool, then appended
 * to the cluster file through map_event: every process of the rank gets a
 * pid of its own in the file ((sequence << 10) | the low 10 bits msprof
 * packs the layer's sort index and device into, so pids stay in 32 bits
 * and never collide between ranks, whose pids may be equal on different
 * hosts), its process_name is prefixed with the rank's name ("Rank 3 CPU
 * Usage": every name is unique in the file, MindSpore's rule) and its
 * process_sort_index becomes (slot + 1) * 100 + the layer's index, so the
 * ranks' groups follow rank order.  Nothing of a rank is held in memory
 * but the event being rewritten.
 *
 * Clocks.  Every rank's times are already Unix ns of its host's clock.
 * Ranks on one host (same hostUid, else hostname) share CLOCK_MONOTONIC_RAW:
 * start_info pairs it with the wall clock (collectionTimeBegin µs,
 * clockMonotonicRaw ns) as each rank started, so a wall clock that was
 * stepped between two ranks' starts (NTP) shows as a difference in
 * wall - monotonic; such a rank is shifted onto the host's first rank's
 * clock.  Differences under 1 ms are the jitter of the two clock reads and
 * are left alone.  Between hosts there is no shared clock in the files,
 * and NTP leaves them milliseconds apart, more than a collective lasts:
 * each host's offset from the first host is estimated from the job's own
 * synchronisation points.  The ranks of an all-reduce, all-gather,
 * reduce-scatter, all-to-all or barrier leave it at nearly the same
 * instant, so the differences between the end times of the same
 * operation (same group and name: COMMUNICATION_OP numbers them in each
 * group in call order) on the host's first rank and the first host's
 * first rank, each on its host's shifted clock, say by how much their
 * clocks differ: the median of them is the offset, the median of their
 * distances from it its error, and every rank of the host is shifted by
 * it.  With fewer than CLOCK_SYNC_MIN such operations in common the
 * host's clock is trusted, and that is said.
 *
 * Steps.  A rank's step N lasts from the earliest start to the latest end
 * of its STEP rows of id N (several processes of a rank each have
 * theirs).  Per step id and rank: its time; communication = the summed
 * durations of its COMMUNICATION_OP rows, each clipped to the step (0
 * without the table); wait = the step's slowest time minus this rank's
 * (how long this rank waits at the step's closing synchronization for the
 * slowest).  The per-rank step cursors are merged by step id: memory
 * grows with the ranks, not the steps. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include "export/buf.h"
#include "export/db.h"
#include "export/exp.h"
#include "export/prof.h"
#include "export/export.h"
#include "export/files.h"
#include "export/select-steps.h"
#include "export/sql.h"
#include "export/tables.h"
#include "export/timeline-writer.h"
#include "export/timeline.h"
#include "common/util.h"

#define CLUSTER_DIR_MODE 0750
#define CLOCK_JITTER_NS 1000000 /* start_info's two clock reads: below this, no shift */
#define SORT_PER_RANK 100       /* process_sort_index of a rank: (slot + 1) * this + the layer's */
#define PID_LOW_BITS 10         /* msprof's sort index and device bits of a timeline pid */
#define CLOCK_SYNC_MIN 3        /* operations in common with the first host to estimate an offset */
#define CLOCK_SYNC_MAX 100000   /* operations of a rank read for it: the first ones */

struct crank {
	const char *prof_dir, *db_path;
	const char *base;           /* the PROF dir's name */
	int64_t rank;               /* -1: none */
	uint32_t pid;
	char host_uid[128], hostname[256], host_key[256];
	uint64_t start_ns, start_mono_ns;
	int64_t shift_ns;
	/* its host's clock against the first host's (all its ranks alike) */
	bool host_estimated;
	int64_t host_offset_ns, host_error_ns;  /* the shift applied, and its error */
	unsigned host_matched;                  /* operations it was estimated from */
	char label[64];
	unsigned slot;
	char why[512];              /* "": merged */
	char also[128];             /* merged, another dir claims its rank: that dir's name, "" none */
	uint64_t events, steps;
	uint64_t run_off, run_n;    /* its steps in the staging file: offset, rows */
	/* its pids in the cluster file: original >> PID_LOW_BITS -> sequence */
	uint32_t (*pids)[2];
	size_t n_pids, cap_pids;
	char **names;               /* its process names so far, to tell a second apart */
	size_t n_names, cap_names;
};

/* A rank's step in the staging file */
struct srow {
	int64_t step, start, end, comm;
};

/* Each rank's steps in id order, one run after another, written as
 * read_rank_db reads them (a rank's database is opened once) and merged by
 * id in write_steps: an unlinked file, rows not yet written in buf. */
struct stage {
	int fd;
	uint64_t written;           /* bytes in the file */
	struct srow buf[1024];
	size_t n;
};

struct cluster {
	struct exp e;               /* the cluster's own: notes, written files, ts */
	struct stage *stage;
	struct export_report rep;
	char dir[PATH_MAX];
	struct crank *r;
	size_t n;
	uint32_t next_seq;
};

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

static void skip(struct crank *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(struct crank *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(k->why, sizeof k->why, fmt, ap);
	va_end(ap);
	if (!k->why[0])
		snprintf(k->why, sizeof k->why, "unreadable");
}

/* --- the ranks --------------------------------------------------------------- */

/* host/ files of the rank, and a database that answers. */
/* The rank's host/ files; its database is first read by read_rank_db,
 * which names a damaged one. */
static void read_rank(struct crank *k)
{
	struct export_report rep = { 0 };
	struct exp e = { .prof_dir = k->prof_dir, .rep = &rep, .tracks = UINT64_MAX, .rank_id = -1 };
	exp_read_host(&e);
	if (!e.have_info) {
		skip(k, "%s", rep.message); /* why info.json cannot be read */
	} else if (e.info_damaged[0]) {
		/* a rank named wrongly would merge as another, or as none */
		skip(k, "'%s/host/info.json' is damaged: %s", k->prof_dir, e.info_damaged);
	} else {
		k->rank = e.rank_id;
		k->pid = e.app_pid;
		snprintf(k->host_uid, sizeof k->host_uid, "%s", e.host_uid);
		snprintf(k->hostname, sizeof k->hostname, "%s", e.hostname);
		snprintf(k->host_key, sizeof k->host_key, "%s", e.host_uid[0] ? e.host_uid : e.hostname);
		k->start_ns = e.start_ns;
		k->start_mono_ns = e.start_mono_ns;
	}
	exp_release_host(&e);
}

/* Merged ranks first, by rank (none last), then pid, then dir name. */
static int cmp_rank(const void *a, const void *b)
{
	const struct crank *x = a, *y = b;
	if (!x->why[0] != !y->why[0])
		return x->why[0] ? 1 : -1;
	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->base, y->base);
}

static void name_ranks(struct cluster *c)
{
	unsigned dup = 1;
	for (size_t i = 0; i < c->n; i++) {
		struct crank *k = &c->r[i];
		k->slot = (unsigned)i;
		if (k->why[0])
			continue; /* no name: its info.json may be what is missing */
		bool same = i && !c->r[i - 1].why[0] && !k->why[0] && k->rank == c->r[i - 1].rank &&
			    (k->rank >= 0 || k->pid == c->r[i - 1].pid);
		dup = same ? dup + 1 : 1;
		int w = k->rank >= 0 ? snprintf(k->label, sizeof k->label, "Rank %" PRId64, k->rank)
				     : snprintf(k->label, sizeof k->label, "Pid %" PRIu32, k->pid);
		if (dup > 1 && w > 0)
			snprintf(k->label + w, sizeof k->label - (size_t)w, " #%u", dup);
		if (dup == 2)
			exp_note(&c->e, "%s is in both '%s' and '%s': the second is shown as '%s'",
				     c->r[i - 1].label, c->r[i - 1].base, k->base, k->label);
		/* each of a rank's dirs names the one before it, the first the
		 * second: the ranks list says of every one that it is not alone */
		if (dup > 1) {
			snprintf(k->also, sizeof k->also, "%s", c->r[i - 1].base);
			if (dup == 2)
				snprintf(c->r[i - 1].also, sizeof c->r[i - 1].also, "%s", k->base);
		}
	}
}

/* Clocks: see the top of the file. */
static void align_clocks(struct cluster *c, struct export_cluster_report *ret)
{
	for (size_t i = 0; i < c->n; i++) {
		struct crank *k = &c->r[i];
		if (k->why[0])
			continue;
		const struct crank *ref = NULL;
		bool new_host = true;
		for (size_t j = 0; j < i; j++) {
			const struct crank *o = &c->r[j];
			if (o->why[0] || strcmp(o->host_key, k->host_key) != 0 || !k->host_key[0])
				continue;
			new_host = false;
			if (!ref && o->start_ns && o->start_mono_ns)
				ref = o;
		}
		if (new_host)
			ret->hosts++;
		if (!ref || !k->start_ns || !k->start_mono_ns)
			continue;
		int64_t d = ((int64_t)ref->start_ns - (int64_t)ref->start_mono_ns) -
			    ((int64_t)k->start_ns - (int64_t)k->start_mono_ns);
		if (d <= -CLOCK_JITTER_NS || d >= CLOCK_JITTER_NS) {
			k->shift_ns = d;
			ret->shifted++;
		}
	}
}

static bool has_rows(sqlite3 *db, const char *table)
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 1", table);
	return db_each(db, sql, NULL, db_row_stop, NULL) > 0;
}

/* One collective's end on one rank: (group, name) hashed. */
struct sync_end {
	uint64_t key;
	int64_t end;
};

static int cmp_sync(const void *a, const void *b)
{
	const struct sync_end *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL;
}

struct sync_read {
	struct sync_end *v;
	size_t n, cap;
};

static int sync_row(sqlite3_stmt *st, void *ctx)
{
	struct sync_read *s = ctx;
	if (s->n >= CLOCK_SYNC_MAX)
		return 1;
	struct sync_end *v = grow_array(s->v, &s->cap, s->n, sizeof *v, 256);
	if (!v)
		return -ENOMEM;
	s->v = v;
	v[s->n++] = (struct sync_end){ fnv(fnv(0xcbf29ce484222325ULL, (const char *)sqlite3_column_text(st, 0)),
					   (const char *)sqlite3_column_text(st, 1)),
				       sqlite3_column_int64(st, 2) };
	return 0;
}

/* k's collectives (sync points) by key, on k's shifted clock; a key seen
 * twice (a hash collision) is dropped. */
static int sync_points(const struct crank *k, struct sync_read *ret)
{
	static const char sql[] =
		"SELECT g.value, n.value, o.endNs FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName "
		"JOIN STRING_IDS g ON g.id = o.groupName JOIN STRING_IDS t ON t.id = o.opType WHERE t.value IN "
		"('hcom_allReduce_', 'hcom_allGather_', 'hcom_reduceScatter_', 'hcom_alltoall_', 'hcom_alltoallv_', "
		"'hcom_barrier_') ORDER BY o.startNs";
	*ret = (struct sync_read){ 0 };
	sqlite3 *db = NULL;
	int r = 0;
	if (sqlite3_open_v2(k->db_path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	    has_rows(db, "COMMUNICATION_OP"))
		r = db_each(db, sql, NULL, sync_row, ret);
	sqlite3_close(db);
	if (r < 0)
		return r;
	if (!ret->n)
		return 0;
	for (size_t i = 0; i < ret->n; i++)
		ret->v[i].end += k->shift_ns;
	qsort_safe(ret->v, ret->n, sizeof *ret->v, cmp_sync);
	size_t w = 0;
	for (size_t i = 0; i < ret->n; i++) {
		bool dup = (i > 0 && ret->v[i - 1].key == ret->v[i].key) ||
			   (i + 1 < ret->n && ret->v[i + 1].key == ret->v[i].key);
		if (!dup)
			ret->v[w++] = ret->v[i];
	}
	ret->n = w;
	return 0;
}

/* Each host's clock against the first host's: see the top of the file. */
static int align_hosts(struct cluster *c, struct export_cluster_report *ret)
{
	const struct crank *ref = NULL;
	struct sync_read base = { 0 };
	int r = 0;
	for (size_t i = 0; i < c->n && r == 0; i++) {
		struct crank *k = &c->r[i];
		if (k->why[0] || !k->host_key[0])
			continue;
		bool first_of_host = true;
		for (size_t j = 0; j < i && first_of_host; j++)
			first_of_host = c->r[j].why[0] || strcmp(c->r[j].host_key, k->host_key) != 0;
		if (!first_of_host)
			continue;
		if (!ref) {
			ref = k;
			if ((r = sync_points(k, &base)) < 0)
				break;
			continue;
		}
		struct sync_read mine;
		if ((r = sync_points(k, &mine)) < 0)
			break;
		_cleanup_free_ int64_t *d = malloc((mine.n ? mine.n : 1) * sizeof *d);
		size_t n = 0;
		for (size_t a = 0, b = 0; d && a < mine.n && b < base.n;) {
			if (mine.v[a].key < base.v[b].key)
				a++;
			else if (mine.v[a].key > base.v[b].key)
				b++;
			else
				d[n++] = mine.v[a++].end - base.v[b++].end;
		}
		free(mine.v);
		if (!d) {
			r = -ENOMEM;
			break;
		}
		if (n < CLOCK_SYNC_MIN) {
			exp_note(&c->e, "clock of host %s: trusted (only %zu collective(s) in common with host %s, "
					"fewer than %d to estimate its offset)", k->host_key, n, ref->host_key,
				 CLOCK_SYNC_MIN);
			continue;
		}
		qsort_safe(d, n, sizeof *d, cmp_i64);
		int64_t off = d[n / 2];
		for (size_t a = 0; a < n; a++)
			d[a] = d[a] > off ? d[a] - off : off - d[a];
		qsort_safe(d, n, sizeof *d, cmp_i64);
		int64_t err = d[n / 2];
		for (size_t j = i; j < c->n; j++) {
			struct crank *o = &c->r[j];
			if (o->why[0] || strcmp(o->host_key, k->host_key) != 0)
				continue;
			o->shift_ns -= off;
			o->host_estimated = true;
			o->host_offset_ns = -off;
			o->host_error_ns = err;
			o->host_matched = (unsigned)n;
		}
		ret->hosts_aligned++;
		exp_note(&c->e, "clock of host %s: %.3f ms %s host %s's, from %zu collective(s) both saw (error "
				"±%.3f ms): its ranks are shifted onto host %s's clock", k->host_key,
			 (double)(off < 0 ? -off : off) / 1e6, off < 0 ? "behind" : "ahead of", ref->host_key, n,
			 (double)err / 1e6, ref->host_key);
	}
	free(base.v);
	return r;
}

/* --- the timeline's events ---------------------------------------------------- */

struct map_ctx {
	struct cluster *c;
	struct crank *k;
	uint32_t last_hi, last_seq;
	bool have_last;
};

static int new_pid(struct map_ctx *m, uint64_t pid, uint64_t *ret)
{
	struct crank *k = m->k;
	uint32_t hi = (uint32_t)(pid >> PID_LOW_BITS), seq = 0;
	if (m->have_last && m->last_hi == hi) {
		seq = m->last_seq;
	} else {
		for (size_t i = 0; i < k->n_pids && !seq; i++)
			if (k->pids[i][0] == hi)
				seq = k->pids[i][1];
		if (!seq) {
			if (m->c->next_seq >= 1U << (32 - PID_LOW_BITS)) {
				exp_note(&m->c->e, "more than %u processes in the ranks' timelines", 1U << (32 - PID_LOW_BITS));
				return -E2BIG;
			}
			uint32_t (*n)[2] = grow_array(k->pids, &k->cap_pids, k->n_pids, sizeof *n, 8);
			if (!n)
				return -ENOMEM;
			k->pids = n;
			seq = m->c->next_seq++;
			k->pids[k->n_pids][0] = hi;
			k->pids[k->n_pids++][1] = seq;
		}
		m->last_hi = hi;
		m->last_seq = seq;
		m->have_last = true;
	}
	*ret = ((uint64_t)seq << PID_LOW_BITS) | (pid & ((1U << PID_LOW_BITS) - 1));
	return 0;
}

/* The end of a JSON string whose inside starts at p: its closing quote. */
static const char *str_end(const char *p, const char *end)
{
	while (p < end && *p != '"')
		p += *p == '\\' ? 2 : 1;
	return p < end ? p : NULL;
}

static const char *after(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0 ? p + n : NULL;
}

static const char *digits(const char *p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = p;
	while (p < end && *p >= '0' && *p <= '9' && p - s < 19)
		v = v * 10 + (uint64_t)(*p++ - '0');
	*ret = v;
	return p > s ? p : NULL;
}

static const char *find(const char *p, const char *end, const char *lit)
{
	return memmem(p, (size_t)(end - p), lit, strlen(lit));
}

/* Whether the rank has a process of this name already (1), after
 * remembering it if not (0). */
static int name_seen(struct crank *k, const char *name, size_t len)
{
	for (size_t i = 0; i < k->n_names; i++)
		if (strlen(k->names[i]) == len && memcmp(k->names[i], name, len) == 0)
			return 1;
	char **n = grow_array(k->names, &k->cap_names, k->n_names, sizeof *n, 8);
	if (!n)
		return -ENOMEM;
	k->names = n;
	if (!(k->names[k->n_names] = strndup(name, len)))
		return -ENOMEM;
	k->n_names++;
	return 0;
}

/* One event of a rank's spool as it goes into the cluster file (the top
 * of the file): every event the layer writers make opens with
 * {"name":"...","pid":N. */
static int map_event(void *ctx, const char *ev, size_t len, struct exp_buf *out)
{
	struct map_ctx *m = ctx;
	const char *end = ev + len, *name = after(ev, end, "{\"name\":\""), *name_end = NULL, *p = NULL;
	uint64_t pid, npid;
	if (name && (name_end = str_end(name, end)))
		p = after(name_end, end, "\",\"pid\":");
	if (p)
		p = digits(p, end, &pid);
	if (!p || pid > UINT32_MAX) {
		exp_note(&m->c->e, "an event of '%s' is not one the export writes: %.80s", m->k->base, ev);
		return -EBADMSG;
	}
	int r = new_pid(m, pid, &npid);
	if (r < 0)
		return r;
	/* the new pid in place of the digits just read */
	exp_buf_put(out, ev, (size_t)(name_end - ev) + strlen("\",\"pid\":"));
	exp_buf_u64(out, npid);

	size_t nlen = (size_t)(name_end - name);
	bool meta = find(p, end, "\"ph\":\"M\"") != NULL;
	const char *q;
	if (meta && nlen == 12 && memcmp(name, "process_name", 12) == 0 &&
	    (q = find(p, end, "\"args\":{\"name\":\""))) {
		q += strlen("\"args\":{\"name\":\"");
		const char *qe = str_end(q, end);
		exp_buf_put(out, p, (size_t)(q - p));
		exp_buf_puts(out, m->k->label);
		exp_buf_putc(out, ' ');
		p = q;
		int seen = qe ? name_seen(m->k, q, (size_t)(qe - q)) : 0;
		if (seen < 0)
			return seen;
		if (seen) {
			/* a name twice in one rank (two processes of one program):
			 * the second and later say their pid */
			exp_buf_put(out, q, (size_t)(qe - q));
			exp_buf_lit(out, " (pid ");
			exp_buf_u64(out, pid >> PID_LOW_BITS);
			exp_buf_putc(out, ')');
			p = qe;
		}
	} else if (meta && nlen == 18 && memcmp(name, "process_sort_index", 18) == 0 &&
		   (q = find(p, end, "\"sort_index\":"))) {
		uint64_t v;
		q += strlen("\"sort_index\":");
		const char *d = digits(q, end, &v);
		if (d) {
			exp_buf_put(out, p, (size_t)(q - p));
			exp_buf_u64(out, (uint64_t)(m->k->slot + 1) * SORT_PER_RANK + v);
			p = d;
		}
	} else if (!meta) {
		m->k->events++;
		if (m->k->shift_ns && (q = find(p, end, ",\"ts\":\""))) {
			uint64_t us, frac;
			q += strlen(",\"ts\":\"");
			const char *d = digits(q, end, &us), *f = d ? after(d, end, ".") : NULL;
			const char *fe = f ? digits(f, end, &frac) : NULL;
			if (fe && fe - f == 3) {
				exp_buf_put(out, p, (size_t)(q - p));
				int64_t ns = (int64_t)(us * 1000 + frac) + m->k->shift_ns;
				exp_buf_ts(out, ns < 0 ? 0 : ns);
				p = fe;
			}
		}
	}
	exp_buf_put(out, p, (size_t)(end - p));
	return 0;
}

/* One rank's layers into out: all of them, or (skipped) none. */
/* --- the steps ----------------------------------------------------------------- */

static const char *const step_columns[] = {
	"Step ID", "Rank ID", "Rank", "Host", "Step Start(us)", "Step Time(us)", "Communication(us)", "Wait(us)",
	"Slowest Rank", "Slowest Time(us)", "Fastest Rank", "Fastest Time(us)", NULL,
};
static const char *const rank_columns[] = {
	"Rank ID", "Rank", "Host UID", "Host Name", "PROF Dir", "Status", "Clock Shift(ns)", "Host Clock Offset(ns)",
	"Host Offset Error(ns)", "Host Offset Operations", "Events", "Steps", NULL,
};

static void buf_field(struct exp_buf *b, const char *s)
{
	exp_buf_csv_field(b, s, strlen(s));
}

static void buf_header(struct exp_buf *b, const char *const *cols)
{
	for (size_t i = 0; cols[i]; i++) {
		if (i)
			exp_buf_putc(b, ',');
		buf_field(b, cols[i]);
	}
	exp_buf_putc(b, '\n');
}

/* A merged rank's status: "merged", and another dir that claims its rank. */
#define MERGED_STATUS_MAX (sizeof(((struct crank *)0)->also) + 96)
static const char *merged_status(const struct crank *k, char buf[MERGED_STATUS_MAX])
{
	if (!k->also[0])
		return "merged";
	if (k->rank >= 0)
		snprintf(buf, MERGED_STATUS_MAX, "merged; '%s' claims rank %" PRId64 " too", k->also, k->rank);
	else
		snprintf(buf, MERGED_STATUS_MAX, "merged; '%s' holds pid %" PRIu32 " too", k->also, k->pid);
	return buf;
}

static void buf_rank_id(struct exp_buf *b, const struct crank *k)
{
	if (k->rank >= 0)
		exp_buf_i64(b, k->rank);
	else
		exp_buf_lit(b, "N/A");
}

/* The cluster database, written beside the CSVs. */
struct cdb {
	sqlite3 *db;
	sqlite3_stmt *step;
	char tmp[PATH_MAX], path[PATH_MAX];
};

static int cdb_exec(struct cluster *c, struct cdb *d, const char *sql)
{
	int rc = SQLITE_OK;
	int r = db_each_rc(d->db, sql, NULL, NULL, NULL, &rc);
	if (r < 0 && rc != SQLITE_OK)
		exp_fail(&c->e, "cannot write '%s': %s", d->path, sqlite3_errmsg(d->db));
	return r < 0 ? r : 0;
}

static int cdb_open(struct cluster *c, struct cdb *d)
{
	if ((size_t)snprintf(d->path, sizeof d->path, "%s/msprof_cluster_%s.db", c->dir, c->e.ts) >= sizeof d->path ||
	    (size_t)snprintf(d->tmp, sizeof d->tmp, "%s/.msprof_cluster_%s.db.XXXXXX", c->dir, c->e.ts) >=
		    sizeof d->tmp) {
		d->tmp[0] = '\0';
		return -ENAMETOOLONG;
	}
	int fd = mkostemp(d->tmp, O_CLOEXEC);
	if (fd < 0) {
		d->tmp[0] = '\0';
		return -errno;
	}
	(void)fchmod(fd, 0640);
	close(fd);
	int rc = sqlite3_open_v2(d->tmp, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return db_errno(rc);
	int r = cdb_exec(c, d, "PRAGMA journal_mode=OFF");
	if (r == 0)
		r = cdb_exec(c, d, "PRAGMA synchronous=OFF");
	for (size_t i = 0; r == 0 && i < export_cluster_db_tables_n; i++) {
		char sql[1024];
		snprintf(sql, sizeof sql, "CREATE TABLE %s (%s)", export_cluster_db_tables[i].name,
			 export_cluster_db_tables[i].columns);
		r = cdb_exec(c, d, sql);
	}
	if (r == 0)
		r = cdb_exec(c, d, "BEGIN");
	if (r == 0 && sqlite3_prepare_v2(d->db, "INSERT INTO CLUSTER_STEP VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1,
					 &d->step, NULL) != SQLITE_OK) {
		exp_fail(&c->e, "cannot write '%s': %s", d->path, sqlite3_errmsg(d->db));
		r = -EIO;
	}
	return r;
}

static int cdb_step(struct cluster *c, struct cdb *d, int64_t v[8])
{
	for (int i = 0; i < 8; i++)
		sqlite3_bind_int64(d->step, i + 1, v[i]);
	int rc = sqlite3_step(d->step);
	sqlite3_reset(d->step);
	if (rc != SQLITE_DONE) {
		exp_fail(&c->e, "cannot write '%s': %s", d->path, sqlite3_errmsg(d->db));
		return db_errno(rc);
	}
	return 0;
}

static int cdb_ranks(struct cluster *c, struct cdb *d)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->db, "INSERT INTO CLUSTER_RANK VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
			       NULL) != SQLITE_OK) {
		exp_fail(&c->e, "cannot write '%s': %s", d->path, sqlite3_errmsg(d->db));
		return -EIO;
	}
	int r = 0;
	for (size_t i = 0; r == 0 && i < c->n; i++) {
		const struct crank *k = &c->r[i];
		sqlite3_bind_int64(st, 1, k->slot);
		sqlite3_bind_int64(st, 2, k->rank);
		sqlite3_bind_text(st, 3, k->label, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, k->host_uid, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, k->hostname, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, k->prof_dir, -1, SQLITE_STATIC);
		char status[MERGED_STATUS_MAX];
		sqlite3_bind_text(st, 7, k->why[0] ? k->why : merged_status(k, status), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 8, k->shift_ns);
		db_bind_i64_or_null(st, 9, k->host_estimated, k->host_offset_ns);
		db_bind_i64_or_null(st, 10, k->host_estimated, k->host_error_ns);
		sqlite3_bind_int64(st, 11, k->host_matched);
		sqlite3_bind_int64(st, 12, (int64_t)k->events);
		sqlite3_bind_int64(st, 13, (int64_t)k->steps);
		if (sqlite3_step(st) != SQLITE_DONE) {
			exp_fail(&c->e, "cannot write '%s': %s", d->path, sqlite3_errmsg(d->db));
			r = -EIO;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return r;
}

/* Commit (r == 0) or remove the cluster database. */
static int cdb_end(struct cluster *c, struct cdb *d, int r, struct export_cluster_report *ret)
{
	sqlite3_finalize(d->step);
	if (r == 0)
		r = cdb_ranks(c, d);
	if (r == 0)
		r = cdb_exec(c, d, "COMMIT");
	if (sqlite3_close(d->db) != SQLITE_OK && r == 0)
		r = -EIO;
	if (r == 0 && rename(d->tmp, d->path) < 0) {
		r = -errno;
		exp_fail(&c->e, "cannot write '%s': %s", d->path, strerror(errno));
	}
	if (r < 0) {
		if (d->tmp[0])
			unlink(d->tmp);
		return r;
	}
	snprintf(ret->db, sizeof ret->db, "msprof_cluster_%s.db", c->e.ts);
	exp_remove_stale(c->dir, "msprof_cluster", ".db", c->e.ts, 1);
	return 0;
}

/* The staging file: in the cluster's directory, unlinked at once. */
static int stage_open(struct cluster *c)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof path, "%s/.msprof_cluster_steps.XXXXXX", c->dir) >= sizeof path)
		return -ENAMETOOLONG;
	if (!(c->stage = calloc(1, sizeof *c->stage)))
		return -ENOMEM;
	c->stage->fd = mkostemp(path, O_CLOEXEC);
	if (c->stage->fd < 0) {
		int r = -errno;
		exp_fail(&c->e, "cannot create a file in '%s': %s", c->dir, strerror(errno));
		return r;
	}
	(void)unlink(path);
	return 0;
}

static void stage_close(struct cluster *c)
{
	if (c->stage && c->stage->fd >= 0)
		close(c->stage->fd);
	free(TAKE_PTR(c->stage));
}

static int stage_flush(struct stage *g)
{
	size_t len = g->n * sizeof *g->buf;
	if (len && pwrite(g->fd, g->buf, len, (off_t)g->written) != (ssize_t)len)
		return errno ? -errno : -EIO;
	g->written += len;
	g->n = 0;
	return 0;
}

/* A rank's steps as its read found them, until the main thread stages
 * them (stage_rows) */
struct rows {
	struct srow *v;
	size_t n, cap;
};

/* One step: v = (id, start, end), its communication looked up with comm
 * (NULL: none). */
static int rows_add(struct rows *w, const int64_t v[3], sqlite3_stmt *comm, int64_t comm_max)
{
	struct srow row = { v[0], v[1], v[2], 0 };
	if (comm) {
		double t = 0;
		sqlite3_bind_int64(comm, 1, v[1]);
		sqlite3_bind_int64(comm, 2, v[2]);
		sqlite3_bind_int64(comm, 3, comm_max);
		int r = db_stmt_each_rc(comm, db_row_double, &t, NULL);
		if (r < 0)
			return r;
		row.comm = (int64_t)t;
	}
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct srow *nv = realloc(w->v, cap * sizeof *nv);
		if (!nv)
			return -ENOMEM;
		w->v = nv;
		w->cap = cap;
	}
	w->v[w->n++] = row;
	return 0;
}

/* The rank's steps by id, the rows of one id (several processes) joined.
 * A table in id order, as one process writes it, is read as it is, with
 * no sort (sorted false: any order, sorted by SQLite).  -EAGAIN: out of
 * order, read it again sorted. */
static int read_steps(struct rows *w, sqlite3 *db, bool sorted, sqlite3_stmt *comm, int64_t comm_max)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sorted ? "SELECT stepId, startNs, endNs FROM STEP" :
				   "SELECT stepId, MIN(startNs), MAX(endNs) FROM STEP GROUP BY stepId ORDER BY stepId",
				   -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_errno(rc);
	int64_t cur[3];
	bool have = false;
	int r;
	w->n = 0;
	while ((r = db_step(st, NULL)) > 0) {
		int64_t v[3] = { sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2) };
		if (have && v[0] == cur[0]) {
			cur[1] = v[1] < cur[1] ? v[1] : cur[1];
			cur[2] = v[2] > cur[2] ? v[2] : cur[2];
			continue;
		}
		if (have && v[0] < cur[0]) {
			r = -EAGAIN;
			break;
		}
		if (have && (r = rows_add(w, cur, comm, comm_max)) < 0)
			break;
		memcpy(cur, v, sizeof cur);
		have = true;
	}
	if (r == 0 && have)
		r = rows_add(w, cur, comm, comm_max);
	sqlite3_finalize(st);
	return r;
}

/* The rank's steps (id, start, end, communication ns) through its own
 * connection db.  Its COMMUNICATION_OP has no index on time: a TEMP copy of
 * its times with one makes each step's look-up a range scan (the rank's
 * database is read-only; TEMP is this connection's). */
static int rank_steps(struct rows *w, sqlite3 *db)
{
	static const char comm_sql[] =
		"SELECT TOTAL(MIN(endNs, ?2) - MAX(startNs, ?1)) FROM temp.cluster_comm "
		"WHERE startNs < ?2 AND startNs >= ?1 - ?3 AND endNs > ?1";
	sqlite3_stmt *comm = NULL;
	int64_t comm_max = 0;
	int r = 0, rc;
	if (!has_rows(db, "STEP"))
		return 0;
	if (has_rows(db, "COMMUNICATION_OP")) {
		r = db_each(db, "CREATE TEMP TABLE cluster_comm AS SELECT startNs, endNs FROM COMMUNICATION_OP "
				"WHERE endNs > startNs", NULL, NULL, NULL);
		if (r >= 0)
			r = db_each(db, "CREATE INDEX temp.cluster_comm_start ON cluster_comm (startNs)", NULL, NULL, NULL);
		if (r >= 0)
			r = db_each(db, "SELECT MAX(endNs - startNs) FROM temp.cluster_comm", NULL, db_row_i64, &comm_max);
		if (r >= 0 && (rc = sqlite3_prepare_v2(db, comm_sql, -1, &comm, NULL)) != SQLITE_OK)
			r = db_errno(rc);
	}
	if (r >= 0)
		r = read_steps(w, db, true, comm, comm_max);
	if (r == -EAGAIN)
		r = read_steps(w, db, false, comm, comm_max);
	sqlite3_finalize(comm);
	if (r < 0)
		w->n = 0;
	return r < 0 ? r : 0;
}

/* Rank k's steps as its run of the staging file (the main thread, in rank
 * order). */
static int stage_rows(struct stage *g, struct crank *k, const struct rows *w)
{
	k->run_off = g->written + g->n * sizeof *g->buf;
	k->run_n = w->n;
	for (size_t i = 0; i < w->n; i++) {
		if (g->n == ARRAY_SIZE(g->buf)) {
			int r = stage_flush(g);
			if (r < 0)
				return r;
		}
		g->buf[g->n++] = w->v[i];
	}
	return 0;
}

/* A rank's place in its run of the staging file, as write_steps merges */
struct run {
	uint64_t off, left;         /* the rows still in the file */
	struct srow rows[64];
	size_t pos, n;
};

/* The run's next row in *ret: 1, 0 at its end, -errno. */
static int run_next(int fd, struct run *u, const struct srow **ret)
{
	if (u->pos == u->n) {
		size_t n = u->left < ARRAY_SIZE(u->rows) ? (size_t)u->left : ARRAY_SIZE(u->rows);
		if (!n)
			return 0;
		ssize_t got = pread(fd, u->rows, n * sizeof *u->rows, (off_t)u->off);
		if (got != (ssize_t)(n * sizeof *u->rows))
			return got < 0 ? -errno : -EIO;
		u->off += n * sizeof *u->rows;
		u->left -= n;
		u->pos = 0;
		u->n = n;
	}
	*ret = &u->rows[u->pos++];
	return 1;
}

/* A step of rank c->r[i] */
struct mrow {
	struct srow s;
	size_t i;
};

/* The rows of one step id, one per rank that ran it, in rank order. */
static int step_rows(struct cluster *c, const struct mrow *u, size_t n, struct exp_buf *b, struct exp_out *o,
		     struct cdb *d, struct export_cluster_report *ret)
{
	size_t slow = 0, fast = 0;
	for (size_t j = 1; j < n; j++) {
		int64_t t = u[j].s.end - u[j].s.start;
		if (t > u[slow].s.end - u[slow].s.start)
			slow = j;
		if (t < u[fast].s.end - u[fast].s.start)
			fast = j;
	}
	int64_t slow_t = u[slow].s.end - u[slow].s.start, fast_t = u[fast].s.end - u[fast].s.start;
	const struct crank *ks = &c->r[u[slow].i], *kf = &c->r[u[fast].i];
	ret->steps++;
	for (size_t j = 0; j < n; j++) {
		struct crank *k = &c->r[u[j].i];
		const struct srow *w = &u[j].s;
		int64_t t = w->end - w->start;
		exp_buf_i64(b, w->step);
		exp_buf_putc(b, ',');
		buf_rank_id(b, k);
		exp_buf_putc(b, ',');
		buf_field(b, k->label);
		exp_buf_putc(b, ',');
		buf_field(b, k->hostname);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, w->start + k->shift_ns);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, t);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, w->comm);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, slow_t - t);
		exp_buf_putc(b, ',');
		buf_field(b, ks->label);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, slow_t);
		exp_buf_putc(b, ',');
		buf_field(b, kf->label);
		exp_buf_putc(b, ',');
		exp_buf_ts(b, fast_t);
		exp_buf_putc(b, '\n');
		if (b->len >= 1 << 16)
			exp_buf_flush_to(b, o->f);
		k->steps++;
		ret->step_rows++;
		int64_t v[8] = { w->step, k->slot, w->start + k->shift_ns, w->end + k->shift_ns, w->comm,
				 slow_t - t, ks->slot, kf->slot };
		int r = cdb_step(c, d, v);
		if (r < 0)
			return r;
	}
	return b->err;
}

/* The ranks' runs merged by step id: a step's rows, one per rank that ran
 * it, in rank order.  Memory: a few KB per rank (struct run). */
static int write_steps(struct cluster *c, struct export_cluster_report *ret, struct cdb *d)
{
	size_t n = c->n ? c->n : 1;
	struct run *u = calloc(n, sizeof *u);
	const struct srow **at = calloc(n, sizeof *at);
	struct mrow *rows = calloc(n, sizeof *rows);
	struct exp_buf b = { 0 };
	struct exp_out o = { 0 };
	char name[NAME_MAX + 1];
	int r = !u || !at || !rows ? -ENOMEM : stage_flush(c->stage);
	for (size_t i = 0; r == 0 && i < c->n; i++) {
		const struct crank *k = &c->r[i];
		u[i] = (struct run){ .off = k->run_off, .left = k->why[0] ? 0 : k->run_n };
		r = run_next(c->stage->fd, &u[i], &at[i]);
		r = r < 0 ? r : 0;
	}
	if (r < 0 && r != -ENOMEM)
		exp_fail(&c->e, "cannot read the steps' staging file in '%s': %s", c->dir, strerror(-r));
	snprintf(name, sizeof name, "cluster_step_trace_%s.csv", c->e.ts);
	if (r == 0 && (r = exp_out_open(&o, c->dir, name)) < 0)
		exp_fail(&c->e, "cannot create '%s/%s': %s", c->dir, name, strerror(-r));
	if (r == 0) {
		buf_header(&b, step_columns);
		for (;;) {
			bool any = false;
			int64_t step = 0;
			for (size_t i = 0; i < c->n; i++)
				if (at[i] && (!any || at[i]->step < step)) {
					step = at[i]->step;
					any = true;
				}
			if (!any)
				break;
			size_t m = 0;
			for (size_t i = 0; r == 0 && i < c->n; i++) {
				if (!at[i] || at[i]->step != step)
					continue;
				rows[m++] = (struct mrow){ *at[i], i };
				int q = run_next(c->stage->fd, &u[i], &at[i]);
				if (q == 0)
					at[i] = NULL;
				else if (q < 0)
					r = q;
			}
			if (r < 0) {
				exp_fail(&c->e, "cannot read the steps' staging file in '%s': %s", c->dir, strerror(-r));
				break;
			}
			if ((r = step_rows(c, rows, m, &b, &o, d, ret)) < 0)
				break;
		}
		exp_buf_flush_to(&b, o.f);
	}
	free(u);
	free(at);
	free(rows);
	exp_buf_release(&b);
	if (r == 0)
		r = exp_out_commit(&c->e, &o);
	else if (o.f)
		exp_out_abort(&o);
	if (r == 0) {
		snprintf(ret->steps_csv, sizeof ret->steps_csv, "%s", name);
		exp_remove_stale(c->dir, "cluster_step_trace", ".csv", c->e.ts, 1);
	}
	return r;
}

/* --- the timeline, and each rank's read ---------------------------------------- */

/* What a rank's one read of its database leaves for the main thread: its
 * layers in a spool, its steps, and what it has to say. */
struct rank_read {
	struct exp_tl spool;
	bool spooled;               /* spool holds its layers */
	struct rows steps;
	char note[768];             /* for the cluster's notes, "" none */
	int r;                      /* < 0: the export stops (message in note) */
	bool done;
};

/* Rank i's database, read once, on a reader thread or the main one: its
 * window's views, its layers into a spool, its steps.  A damaged database
 * leaves the rank out (skip: the rank's own fields alone are written). */
static void read_rank_db(struct cluster *c, size_t i, struct rank_read *rd)
{
	struct crank *k = &c->r[i];
	struct export_report rep = { 0 };
	struct exp e;
	int64_t n = 0;
	int r = exp_open_prof(&e, k->prof_dir, k->db_path, &rep);
	/* sqlite3_open reads nothing: the first statement finds a damaged
	 * file; one read transaction for all of the rank's statements (each
	 * would take and drop the file's lock and check its header) */
	if (r == 0)
		r = db_each(e.db, "BEGIN", NULL, NULL, NULL);
	if (r == 0)
		r = db_each(e.db, "SELECT count(*) FROM sqlite_master", NULL, db_row_i64, &n);
	/* a window of chosen steps (--step-range, --schedule) keeps only them,
	 * as the rank's own export does (select-steps.c) */
	if (r >= 0 && e.have_sample)
		r = exp_select_step_range(&e, e.sample.s[SET_STEP_RANGE]);
	if (r < 0) {
		if (e.db)
			skip(k, "cannot read its database '%s': %s", base_of(k->db_path), sqlite3_errmsg(e.db));
		else
			skip(k, "cannot read its database '%s': %s", base_of(k->db_path), strerror(-r));
		exp_close_prof(&e);
		return;
	}
	if ((r = exp_tl_spool_open(&e, &rd->spool, c->dir, "msprof_cluster")) < 0) {
		snprintf(rd->note, sizeof rd->note, "%.700s", rep.error[0] ? rep.error : strerror(-r));
		rd->r = r;
		exp_close_prof(&e);
		return;
	}
	if ((r = exp_write_layers(&e, &rd->spool)) < 0) {
		/* a damaged database: this rank is left out, the others go on */
		exp_tl_abort(&rd->spool);
		skip(k, "cannot read its timeline (%s)%s%s", strerror(-r), rep.error[0] || rep.message[0] ? ": " : "",
		     rep.error[0] ? rep.error : rep.message);
		exp_close_prof(&e);
		return;
	}
	rd->spooled = true;
	if ((r = rank_steps(&rd->steps, e.db)) < 0)
		/* a rank whose steps cannot be read: named, its steps left out */
		snprintf(rd->note, sizeof rd->note, "the steps of '%s' cannot be read: %s", k->base, strerror(-r));
	exp_close_prof(&e);
	/* its own exp is gone: the spool reports through the cluster's (the
	 * main thread's) from here */
	rd->spool.e = &c->e;
}

/* The ranks' reads, READERS_MAX threads at most, at most READ_AHEAD ranks
 * ahead of the one the main thread appends (each holds a spool file and
 * its steps until then). */
#define READERS_MAX 4
#define READ_AHEAD 8
struct readers {
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a read done, or the main thread moved on */
	struct rank_read *rd;       /* one per rank */
	size_t next, main_at;
	bool stop;
	struct cluster *c;
};

static void *reader_main(void *arg)
{
	struct readers *q = arg;
	struct cluster *c = q->c;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->stop && q->next < c->n && q->next >= q->main_at + READ_AHEAD)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->stop || q->next >= c->n)
			break;
		size_t i = q->next++;
		pthread_mutex_unlock(&q->mu);
		if (!c->r[i].why[0])
			read_rank_db(c, i, &q->rd[i]);
		pthread_mutex_lock(&q->mu);
		q->rd[i].done = true;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Rank i's read, on the main thread, in rank order: its note, its steps
 * staged, its layers appended with their pids and names rewritten. */
static int rank_done(struct cluster *c, size_t i, struct rank_read *rd, struct exp_tl *out)
{
	struct crank *k = &c->r[i];
	int r = rd->r;
	if (r < 0) {
		exp_fail(&c->e, "%s", rd->note);
	} else if (rd->spooled) {
		if (rd->note[0])
			exp_note(&c->e, "%s", rd->note);
		if ((r = stage_rows(c->stage, k, &rd->steps)) < 0) {
			exp_fail(&c->e, "cannot write the steps' staging file in '%s': %s", c->dir, strerror(-r));
		} else {
			struct map_ctx m = { .c = c, .k = k };
			r = exp_tl_append_map(out, &rd->spool, map_event, &m);
		}
		if (r < 0)
			exp_tl_abort(&rd->spool);
		rd->spooled = false;
	}
	free(TAKE_PTR(rd->steps.v));
	return r;
}

static unsigned readers_wanted(size_t ranks)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = cpus > 1 ? (unsigned)(cpus < READERS_MAX ? cpus : READERS_MAX) : 0;
	return ranks > 1 ? n : 0;
}

/* Each rank's database read once, READERS of them at a time on their own
 * threads (none with one CPU: the main thread reads), appended in rank
 * order, so that the file is the same whatever the threads. */
static int write_timeline(struct cluster *c, struct export_cluster_report *ret)
{
	struct exp_tl out;
	struct readers q = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .c = c };
	pthread_t th[READERS_MAX];
	unsigned nth = 0, want = readers_wanted(c->n);
	int r = exp_tl_open(&c->e, &out, c->dir, "msprof_cluster");
	if (r == 0 && !(q.rd = calloc(c->n ? c->n : 1, sizeof *q.rd)))
		r = -ENOMEM;
	for (unsigned t = 0; r == 0 && t < want; t++)
		if (pthread_create(&th[t], NULL, reader_main, &q) == 0)
			nth++;
	for (size_t i = 0; r == 0 && i < c->n; i++) {
		struct rank_read *rd = &q.rd[i];
		if (nth) {
			pthread_mutex_lock(&q.mu);
			q.main_at = i;
			pthread_cond_broadcast(&q.cv);
			while (!rd->done)
				pthread_cond_wait(&q.cv, &q.mu);
			pthread_mutex_unlock(&q.mu);
		} else if (!c->r[i].why[0]) {
			read_rank_db(c, i, rd);
		}
		r = rank_done(c, i, rd, &out);
	}
	/* stopped early (r < 0): the reads under way end, their spools go */
	pthread_mutex_lock(&q.mu);
	q.stop = true;
	pthread_cond_broadcast(&q.cv);
	pthread_mutex_unlock(&q.mu);
	for (unsigned t = 0; t < nth; t++)
		pthread_join(th[t], NULL);
	for (size_t i = 0; q.rd && i < c->n; i++) {
		if (q.rd[i].spooled)
			exp_tl_abort(&q.rd[i].spool);
		free(q.rd[i].steps.v);
	}
	free(q.rd);
	if (r < 0) {
		exp_tl_abort(&out);
		return r;
	}
	r = exp_tl_commit(&out);
	if (r == 0) {
		snprintf(ret->timeline, sizeof ret->timeline, "msprof_cluster_%s.json", c->e.ts);
		for (size_t i = 0; i < c->n; i++)
			ret->events += c->r[i].events;
	}
	return r;
}

static int write_ranks(struct cluster *c, struct export_cluster_report *ret)
{
	struct exp_buf b = { 0 };
	struct exp_out o;
	char name[NAME_MAX + 1];
	snprintf(name, sizeof name, "cluster_ranks_%s.csv", c->e.ts);
	int r = exp_out_open(&o, c->dir, name);
	if (r < 0) {
		exp_fail(&c->e, "cannot create '%s/%s': %s", c->dir, name, strerror(-r));
		return r;
	}
	buf_header(&b, rank_columns);
	for (size_t i = 0; i < c->n; i++) {
		const struct crank *k = &c->r[i];
		buf_rank_id(&b, k);
		exp_buf_putc(&b, ',');
		buf_field(&b, k->label[0] ? k->label : "N/A");
		exp_buf_putc(&b, ',');
		buf_field(&b, k->host_uid);
		exp_buf_putc(&b, ',');
		buf_field(&b, k->hostname);
		exp_buf_putc(&b, ',');
		buf_field(&b, k->base);
		exp_buf_putc(&b, ',');
		if (k->why[0]) {
			char s[sizeof k->why + 16];
			snprintf(s, sizeof s, "skipped: %s", k->why);
			buf_field(&b, s);
		} else {
			char s[MERGED_STATUS_MAX];
			buf_field(&b, merged_status(k, s));
		}
		exp_buf_putc(&b, ',');
		exp_buf_i64(&b, k->shift_ns);
		exp_buf_putc(&b, ',');
		if (k->host_estimated) {
			exp_buf_i64(&b, k->host_offset_ns);
			exp_buf_putc(&b, ',');
			exp_buf_i64(&b, k->host_error_ns);
			exp_buf_putc(&b, ',');
			exp_buf_u64(&b, k->host_matched);
		} else {
			exp_buf_lit(&b, "N/A,N/A,0");
		}
		exp_buf_putc(&b, ',');
		exp_buf_u64(&b, k->events);
		exp_buf_putc(&b, ',');
		exp_buf_u64(&b, k->steps);
		exp_buf_putc(&b, '\n');
	}
	exp_buf_flush_to(&b, o.f);
	r = b.err;
	exp_buf_release(&b);
	if (r == 0)
		r = exp_out_commit(&c->e, &o);
	else
		exp_out_abort(&o);
	if (r == 0) {
		snprintf(ret->ranks_csv, sizeof ret->ranks_csv, "%s", name);
		exp_remove_stale(c->dir, "cluster_ranks", ".csv", c->e.ts, 1);
	}
	return r;
}

/* --- entry ------------------------------------------------------------------------ */

static void local_ts(char buf[EXPORT_TS_LEN + 1])
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(buf, EXPORT_TS_LEN + 1, "%Y%m%d%H%M%S", &tm);
}

static int run(struct cluster *c, const char *out_dir, const struct export_cluster_rank *ranks, size_t n,
	       struct export_cluster_report *ret)
{
	if ((size_t)snprintf(c->dir, sizeof c->dir, "%s", out_dir) >= sizeof c->dir)
		return -ENAMETOOLONG;
	snprintf(ret->output_dir, sizeof ret->output_dir, "%s", out_dir);
	if (mkdir(c->dir, CLUSTER_DIR_MODE) < 0 && errno != EEXIST) {
		int r = -errno;
		exp_fail(&c->e, "cannot create '%s': %s", c->dir, strerror(errno));
		return r;
	}
	local_ts(c->e.ts);
	if (!(c->r = calloc(n ? n : 1, sizeof *c->r)))
		return -ENOMEM;
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		struct crank *k = &c->r[i];
		*k = (struct crank){ .prof_dir = ranks[i].prof_dir, .db_path = ranks[i].db_path,
				     .base = base_of(ranks[i].prof_dir), .rank = -1 };
		if (!k->db_path)
			skip(k, "%s", ranks[i].why ? ranks[i].why : "no database");
		else
			read_rank(k);
	}
	qsort_safe(c->r, n, sizeof *c->r, cmp_rank);
	name_ranks(c);
	align_clocks(c, ret);
	int r = ret->hosts > 1 ? align_hosts(c, ret) : 0;

	struct cdb d = { 0 };
	if (r == 0)
		r = stage_open(c);
	if (r == 0)
		r = write_timeline(c, ret);
	if (r == 0)
		r = cdb_open(c, &d);
	if (r == 0)
		r = write_steps(c, ret, &d);
	if (d.db || d.tmp[0])
		r = cdb_end(c, &d, r, ret);
	if (r == 0)
		r = write_ranks(c, ret);
	for (size_t i = 0; i < n; i++) {
		struct crank *k = &c->r[i];
		if (k->why[0]) {
			ret->skipped++;
			exp_note(&c->e, "'%s' is skipped: %s", k->base, k->why);
		} else {
			ret->ranks++;
		}
	}
	return r;
}

int export_cluster(const char *out_dir, const struct export_cluster_rank *ranks, size_t n,
		   struct export_cluster_report *ret)
{
	struct cluster *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	*ret = (struct export_cluster_report){ 0 };
	c->e = (struct exp){ .prof_dir = out_dir, .rep = &c->rep, .tracks = UINT64_MAX, .rank_id = -1 };
	c->next_seq = 1;
	int r = run(c, out_dir, ranks, n, ret);
	exp_report_settle(&c->rep, r);
	/* the failure first, then the notes */
	size_t used = strlen(c->rep.error);
	memcpy(ret->message, c->rep.error, used + 1);
	if (c->rep.message[0] && used + 3 < sizeof ret->message) {
		if (used) {
			memcpy(ret->message + used, "; ", 3);
			used += 2;
		}
		size_t k = strlen(c->rep.message);
		if (k > sizeof ret->message - 1 - used)
			k = sizeof ret->message - 1 - used;
		memcpy(ret->message + used, c->rep.message, k);
		ret->message[used + k] = '\0';
	}
	for (size_t i = 0; i < c->n; i++) {
		free(c->r[i].pids);
		for (size_t j = 0; j < c->r[i].n_names; j++)
			free(c->r[i].names[j]);
		free(c->r[i].names);
	}
	stage_close(c);
	free(c->r);
	free(c);
	return r;
}
