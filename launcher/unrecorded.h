/* Annotations a launched job made while --msproftx was off: the agent
 * counts them (collectors/agent/unrecorded.c) into files of a private
 * folder, and the launcher says at the end of the run how many there were
 * and which option records them. */
#pragma once

#include <stdbool.h>

#include "launcher/diag.h"

/* A new private folder for the counts (mkdtemp under $TMPDIR or /tmp):
 * *ret_dir, or NULL with a warning in d (nothing is counted then). */
int unrecorded_open(char **ret_dir, struct diag *d);

/* The agent's variables: MSPROF_AGENT_UNRECORDED=dir, and with
 * only_count (the agent is preloaded for this alone)
 * MSPROF_AGENT_UNRECORDED_ONLY=1. */
int unrecorded_env(char ***env, const char *dir, bool only_count);

/* With say, the counts added up into one line on the console (none:
 * nothing); the folder removed and dir freed.  NULL: nothing. */
void unrecorded_report(char *dir, bool say);
