/* See agent-read.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/agent/agent-read.h"
#include "collectors/raw.h"

static char *str(struct raw_cur *c, uint32_t *ret_len)
{
	uint32_t n = raw_cur_u32(c);
	if (c->err || n > RAW_AGENT_MAX_STR || n > c->left) {
		c->err = -EBADMSG;
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, c->p, n);
	s[n] = 0;
	c->p += n;
	c->left -= n;
	if (ret_len)
		*ret_len = n;
	return s;
}

/* room for one more element; capacities are powers of two, so doubling
 * happens when n reaches one */
#define GROW(arr, n)                                                                    \
	do {                                                                            \
		if (((n) & ((n) - 1)) == 0) {                                           \
			(arr) = realloc((arr), ((n) ? 2 * (n) : 1) * sizeof(*(arr)));   \
			if (!(arr))                                                     \
				abort();                                                \
		}                                                                       \
	} while (0)

static void problem(struct ar_file *f, const char *what, const char *path)
{
	if (!f->problem[0])
		snprintf(f->problem, sizeof(f->problem), "%s in %s", what, path);
}

static void add_name(struct ar_name **arr, size_t *n, uint64_t key, uint64_t key2, char *name)
{
	GROW(*arr, *n);
	(*arr)[(*n)++] = (struct ar_name){ key, key2, name };
}

static int load_slice(const char *path, uint32_t pid, struct ar_file *f)
{
	struct raw_reader *r;
	int e = raw_reader_open(path, &r);
	if (e < 0)
		return e;
	const struct raw_header *h = raw_reader_header(r);
	if (h->source != RAW_SOURCE_AGENT)
		problem(f, "header source is not RAW_SOURCE_AGENT", path);
	if (h->writer_pid != pid)
		problem(f, "header writer_pid is not the file's pid", path);
	f->slices++;
	struct raw_record rec;
	bool first = true;
	uint16_t last = 0;
	/* what this slice has described so far */
	uint64_t *seen = NULL;
	size_t n_seen = 0;
	while ((e = raw_reader_next(r, &rec)) == 1) {
		struct raw_cur c = { rec.payload, rec.len, 0 };
		uint64_t ts = raw_cur_u64(&c);
		if (first && rec.type != RAW_AGENT_PROCESS)
			problem(f, "a slice does not begin with RAW_AGENT_PROCESS", path);
		first = false;
		last = rec.type;
		switch (rec.type) {
		case RAW_AGENT_PROCESS: {
			uint32_t p = raw_cur_u32(&c), pp = raw_cur_u32(&c);
			int32_t rank = (int32_t)raw_cur_u32(&c);
			uint32_t flags = raw_cur_u32(&c);
			if (flags & ~RAW_AGENT_WINDOW_START)
				problem(f, "unknown PROCESS flags", path);
			if (flags & RAW_AGENT_WINDOW_START)
				f->windows++;
			else if (f->processes == 0)
				problem(f, "the first slice does not begin a window", path);
			char *name = str(&c, NULL), *cmd = str(&c, NULL);
			/* the job's place (raw.h), absent in older files */
			int32_t place[5] = { -1, -1, -1, -1, -1 };
			if (c.left == sizeof(place))
				for (int k = 0; k < 5; k++)
					place[k] = (int32_t)raw_cur_u32(&c);
			f->local_rank = place[0];
			f->world_size = place[1];
			f->local_world_size = place[2];
			f->node_rank = place[3];
			f->device = place[4];
			if (p != pid)
				problem(f, "PROCESS pid is not the file's pid", path);
			free(f->name);
			free(f->cmdline);
			f->pid = p;
			f->ppid = pp;
			f->rank = rank;
			f->name = name;
			f->cmdline = cmd;
			f->processes++;
			break;
		}
		case RAW_AGENT_THREAD: {
			uint32_t tid = raw_cur_u32(&c);
			add_name(&f->threads, &f->n_threads, tid, 0, str(&c, NULL));
			GROW(seen, n_seen);
			seen[n_seen++] = tid;
			break;
		}
		case RAW_AGENT_DOMAIN: {
			uint64_t id = raw_cur_u64(&c);
			add_name(&f->domains, &f->n_domains, id, 0, str(&c, NULL));
			GROW(seen, n_seen);
			seen[n_seen++] = id | 1ULL << 63;
			break;
		}
		case RAW_AGENT_CATEGORY: {
			uint64_t d = raw_cur_u64(&c), cat = raw_cur_u64(&c);
			add_name(&f->categories, &f->n_categories, d, cat, str(&c, NULL));
			break;
		}
		case RAW_AGENT_MARK:
		case RAW_AGENT_RANGE_START:
		case RAW_AGENT_RANGE_END:
		case RAW_AGENT_OSRT: {
			/* OSRT: type is the api, id the end */
			struct ar_event ev = { .rec = rec.type, .ts = ts };
			ev.tid = raw_cur_u32(&c);
			ev.type = raw_cur_u32(&c);
			if (rec.type != RAW_AGENT_MARK)
				ev.id = raw_cur_u64(&c);
			if (rec.type != RAW_AGENT_OSRT)
				ev.domain = raw_cur_u64(&c);
			if (rec.type != RAW_AGENT_RANGE_END && rec.type != RAW_AGENT_OSRT) {
				ev.category = raw_cur_u64(&c);
				ev.color = raw_cur_u32(&c);
				(void)raw_cur_u32(&c);
				ev.msg = str(&c, &ev.msg_len);
			}
			bool thread_known = false, domain_known = ev.domain == 0;
			for (size_t i = 0; i < n_seen; i++) {
				thread_known |= seen[i] == ev.tid;
				domain_known |= seen[i] == (ev.domain | 1ULL << 63);
			}
			if (!thread_known)
				problem(f, "an event before its thread's RAW_AGENT_THREAD", path);
			if (!domain_known)
				problem(f, "an event before its domain's RAW_AGENT_DOMAIN", path);
			GROW(f->ev, f->n_ev);
			f->ev[f->n_ev++] = ev;
			break;
		}
		case RAW_AGENT_COUNTERS:
			f->events = raw_cur_u64(&c);
			f->dropped = raw_cur_u64(&c);
			f->bad = raw_cur_u64(&c);
			f->truncated = raw_cur_u64(&c);
			if (c.left >= 24) {   /* device records not written */
				f->gpu_lost = raw_cur_u64(&c);
				f->gpu_untimed = raw_cur_u64(&c);
				f->gpu_bad = raw_cur_u64(&c);
			}
			if (c.left >= 40) {   /* dropped by cause */
				f->dropped_full = raw_cur_u64(&c);
				f->dropped_nested = raw_cur_u64(&c);
				f->dropped_noslot = raw_cur_u64(&c);
				f->dropped_unopened = raw_cur_u64(&c);
				f->dropped_write = raw_cur_u64(&c);
				if (f->dropped_full + f->dropped_nested + f->dropped_noslot + f->dropped_unopened +
					    f->dropped_write !=
				    f->dropped)
					problem(f, "dropped events whose causes do not add up", path);
			}
			if (c.left >= 8)      /* why the window ended */
				f->ended = raw_cur_u64(&c);
			if (c.left >= 8)      /* the window's final record */
				f->counters_final = raw_cur_u64(&c) != 0;
			f->n_counters++;
			break;
		default:
			problem(f, "unknown record type", path);
			break;
		}
		if (c.err || c.left != 0)
			problem(f, "a record with a bad payload length", path);
	}
	const struct raw_reader_stats *st = raw_reader_stats(r);
	f->damage += st->bad_records + st->skipped_bytes + st->torn_bytes;
	f->counters_last = last == RAW_AGENT_COUNTERS;
	free(seen);
	raw_reader_free(r);
	return e < 0 ? e : 0;
}

int ar_load(const char *data_dir, uint32_t pid, struct ar_file *ret)
{
	struct ar_file f = { .rank = -2 };
	char stem[RAW_STEM_MAX];
	char **paths = NULL;
	raw_agent_stem((pid_t)pid, stem);
	int n = raw_list_stem_slices(data_dir, stem, &paths);
	if (n < 0)
		return n;
	if (n == 0) {
		raw_paths_free(paths);
		return -ENOENT;
	}
	int e = 0;
	for (int i = 0; i < n && e == 0; i++)
		e = load_slice(paths[i], pid, &f);
	raw_paths_free(paths);
	if (e < 0) {
		ar_free(&f);
		return e;
	}
	*ret = f;
	return 0;
}

void ar_free(struct ar_file *f)
{
	for (size_t i = 0; i < f->n_ev; i++)
		free(f->ev[i].msg);
	free(f->ev);
	struct ar_name *lists[] = { f->threads, f->domains, f->categories };
	size_t ns[] = { f->n_threads, f->n_domains, f->n_categories };
	for (size_t l = 0; l < 3; l++) {
		for (size_t i = 0; i < ns[l]; i++)
			free(lists[l][i].name);
		free(lists[l]);
	}
	free(f->name);
	free(f->cmdline);
	*f = (struct ar_file){ 0 };
}

const char *ar_thread_name(const struct ar_file *f, uint32_t tid)
{
	for (size_t i = f->n_threads; i-- > 0;)
		if (f->threads[i].key == tid)
			return f->threads[i].name;
	return NULL;
}

const char *ar_domain_name(const struct ar_file *f, uint64_t id)
{
	if (id == 0)
		return "default";
	for (size_t i = f->n_domains; i-- > 0;)
		if (f->domains[i].key == id)
			return f->domains[i].name;
	return NULL;
}

uint64_t ar_domain_id(const struct ar_file *f, const char *name)
{
	for (size_t i = f->n_domains; i-- > 0;)
		if (strcmp(f->domains[i].name, name) == 0)
			return f->domains[i].key;
	return 0;
}

const char *ar_category_name(const struct ar_file *f, uint64_t domain, uint64_t category)
{
	for (size_t i = f->n_categories; i-- > 0;)
		if (f->categories[i].key == domain && f->categories[i].key2 == category)
			return f->categories[i].name;
	return NULL;
}

size_t ar_thread_events(const struct ar_file *f, uint32_t tid, const struct ar_event ***ret)
{
	const struct ar_event **v = calloc(f->n_ev + 1, sizeof(*v));
	if (!v)
		abort();
	size_t n = 0;
	for (size_t i = 0; i < f->n_ev; i++)
		if (f->ev[i].tid == tid)
			v[n++] = &f->ev[i];
	*ret = v;
	return n;
}

const struct ar_event *ar_find(const struct ar_file *f, uint16_t rec, const char *msg)
{
	for (size_t i = 0; i < f->n_ev; i++)
		if (f->ev[i].rec == rec && f->ev[i].msg && strcmp(f->ev[i].msg, msg) == 0)
			return &f->ev[i];
	return NULL;
}

const struct ar_event *ar_find_end(const struct ar_file *f, uint64_t id)
{
	for (size_t i = 0; i < f->n_ev; i++)
		if (f->ev[i].rec == RAW_AGENT_RANGE_END && f->ev[i].id == id)
			return &f->ev[i];
	return NULL;
}

size_t ar_count(const struct ar_file *f, uint16_t rec)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n_ev; i++)
		n += f->ev[i].rec == rec;
	return n;
}
