/* The code that runs each mode, one file each; msprof.c indexes them by
 * enum mode_id (modes.h). */
#pragma once

#include <stddef.h>

#include "launcher/options.h"

int mode_launch_run(const struct msprof_opts *o);   /* mode-launch.c */
int mode_hostsys_run(const struct msprof_opts *o);  /* mode-hostsys.c: host-sys and host-sys-usage */
int mode_system_run(const struct msprof_opts *o);   /* mode-hostsys.c: --sys-devices */
int mode_export_run(const struct msprof_opts *o);   /* mode-export.c */
int mode_parse_run(const struct msprof_opts *o);    /* mode-analysis.c: --parse, --query, --analyze */
int mode_query_run(const struct msprof_opts *o);
int mode_analyze_run(const struct msprof_opts *o);
/* subcmd.c: msprof.py's forms, "msprof export timeline -dir D" and the
 * like; argv[1] is the subcommand. */
bool subcmd_is(const char *word);
int subcmd_run(int argc, char **argv);
/* The i-th form ("export timeline", "import"), NULL past the last. */
const char *subcmd_form(size_t i);
/* complete.c: "msprof __complete WORD...", the candidates for the shell
 * completion scripts; argv holds the words after "__complete". */
#define COMPLETE_CMD "__complete"
int complete_run(int argc, char **argv);
int mode_dynamic_run(const struct msprof_opts *o);  /* mode-dynamic.c: the (msprof) prompt */
int mode_list_run(const struct msprof_opts *o);     /* mode-list.c: --dynamic=on --list */
int mode_dump_run(const struct msprof_opts *o);     /* mode-dump.c: --dump --pid=P */
/* mode-self.c: "msprof self-enable PID", started by the agent of a job
 * whose environment has MSPROF_OPTIONS or MSPROF_CONFIG; argv[1] is the
 * word. */
bool self_enable_is(const char *word);
int self_enable_run(int argc, char **argv);
/* What self-enable makes of MSPROF_OPTIONS (options) and an MSPROF_CONFIG
 * file's text (config, NULL: none) for process job, as it checks them
 * when the job starts, without acting on them: 0, or <0 with why
 * (tests/fuzz reads them through it). */
int self_enable_check(pid_t job, const char *options, const char *config, char *why, size_t why_len);
