/* The export's data domains (domain.c lists them; STYLE.md, "Domains as
 * entries"): what a domain is to the stages, and what the agents' files
 * hand to the domains that decode their records (domain-agents.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/tables.h"

struct exp;
struct exp_shared_read;
struct exp_tl;
struct exp_counter_layer;
struct exp_host_summary;

/* A data domain of the export (STYLE.md, "Domains as entries"): how its
 * raw data becomes rows, the tables it derives, its layers of the timeline
 * and its summary files, described once.  The stages walk exp_domains in
 * its order: build_db runs every parse, then every build, then every
 * release (stages.c); exp_write_timeline every layers hook (timeline.c);
 * write_summaries every summaries hook (stages.c).  The order is the
 * timeline's order of layers (those with a file of their own last) and
 * the parse's order of tables (STRING_IDS ids are handed out as strings
 * are met).  Any hook may be NULL. */
struct raw_header;
struct raw_record;
struct raw_cur;
/* The agent process whose files domain-agents.c is reading, as the domains'
 * decoders and hooks see it. */
struct exp_agent_process {
	uint32_t pid;
	const struct raw_header *h;           /* the clocks of the file being read */
	/* counts of the mstx domain's, in the process's AGENT_COUNTERS row */
	uint64_t end_without_start, overflow, filtered, open_at_end;
};
/* A decoder of one type of the agents' records: domain-agents.c reads the
 * agents' files and hands each record of a type a domain names to its
 * decoder, with c past the record's time and t that time in Unix ns
 * (0 taken, 1 malformed, <0 fatal). */
struct exp_agent_record {
	uint16_t type;                        /* RAW_AGENT_*, below EXP_AGENT_RECORD_TYPES */
	int (*take)(struct exp *e, struct exp_agent_process *ap, const struct raw_record *rec, struct raw_cur *c,
		    int64_t t);
};
#define EXP_AGENT_RECORD_TYPES 256
/* A domain's part in reading the agents' files (domain-agents.c calls the
 * hooks of every domain that has them, in list order): before the first
 * file and after the last (end_all: only when all were read), as a
 * process's files begin and end (end: when they were read, before its
 * AGENT_COUNTERS row is written; forget: always), and its notes for the
 * report, after the agents' own and before the malformed records'. */
struct exp_agent_ops {
	int (*begin_all)(struct exp *e);
	int (*begin)(struct exp *e, struct exp_agent_process *ap);
	int (*end)(struct exp *e, struct exp_agent_process *ap);
	void (*forget)(struct exp *e);
	int (*end_all)(struct exp *e);
	void (*report)(struct exp *e);
};
struct exp_domain {
	const char *name;
	const struct exp_agent_record *agent_records; /* its decoders of agent records, to take NULL */
	const struct exp_agent_ops *agent_ops;        /* its part around the agents' files */
	/* the database tables it writes (NULL-terminated; their columns are
	 * in export_db_tables, whose order is the database's) and the summary
	 * files its hook writes (_CSV_MAX-terminated; host_summaries name
	 * theirs): every one has one domain */
	const char *const *tables;
	const enum export_csv *csvs;
	int (*parse)(struct exp *e);          /* raw files -> its tables */
	int (*build)(struct exp *e);          /* tables made from what every domain parsed */
	void (*release)(struct exp *e);       /* after the builds, whether or not they failed */
	/* a host counter layer and one-row summaries, as data (the stages
	 * write them before the hooks below) */
	const struct exp_counter_layer *counter_layer;
	const struct exp_host_summary *host_summaries;
	size_t n_host_summaries;
	bool (*has_layers)(struct exp *e);    /* a layer to write: the timeline file exists */
	/* its layers into tl, and the same events into own (NULL: none)
	 * when it has a timeline file of its own */
	int (*layers)(struct exp *e, struct exp_tl *tl, struct exp_tl *own);
	int (*summaries)(struct exp *e, const char *dir);
	/* Layers that also make a timeline file of their own,
	 * {own_timeline}_{ts}.json, kept only while own_track is on
	 * (--reports).  They come after every other domain's layers in
	 * msprof_{ts}.json: the stages may write them ahead, on the summaries'
	 * thread, into a spool appended in their place (when layers_ahead says
	 * so: they take about what the other layers do). */
	const char *own_timeline;
	enum export_track own_track;
	bool (*layers_ahead)(struct exp *e);
	/* A table its layers and its summaries both read, read once by the
	 * stages on a thread of its own (stages.c write_both). */
	const struct exp_shared_read *shared_read;
};

/* One read of a domain's table for the timeline's thread and the
 * summaries' thread, which take its rows through what begin sets up in
 * the domain's state (exp_domain_state).  Each hook may be called
 * without the others before it (cancel, done and end then do nothing). */
struct exp_shared_read {
	bool (*wanted)(struct exp *e);          /* worth a thread of its own */
	int (*begin)(struct exp *e);            /* <0: no read (each thread reads for itself) */
	void (*read)(struct exp *e);            /* on its thread, a copy of e with its own connection */
	void (*cancel)(struct exp *e);          /* the read cannot start: each reads for itself */
	void (*done)(struct exp *e, bool timeline); /* that thread takes no more rows */
	void (*end)(struct exp *e);             /* after the outputs: what begin made is freed */
};
extern const struct exp_domain *const exp_domains[];
extern const size_t exp_domains_n;

/* The domain's own state in e (a slot by its place in the list): NULL
 * until the domain puts something there; the domain frees it. */
void **exp_domain_state(struct exp *e, const struct exp_domain *d);
