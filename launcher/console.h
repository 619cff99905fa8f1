/* What msprof says on the terminal.  Like msprof's CmdLog, "[INFO]" and
 * "[WARNING]" lines go to stdout; unlike it, "[ERROR]" lines go to stderr so
 * that scripts can tell them apart.  Every line is flushed at once, so that it
 * lands before the output of the application sharing the terminal. */
#pragma once

#include <stdio.h>

#include "launcher/options.h"

/* msprof's line when a stop signal arrives (RunningMode::StopNoWait), its
 * typo included so that logs read the same. */
#define MSG_STOP_SIGNAL "Receive stop singal."

void console_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void console_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void console_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* msprof's closing lines of a run whose data is in dir: "Profiling
 * finished." and where the data is. */
void console_data_saved(const char *dir);

/* Print the warnings of d, then its error (and the usage when asked). */
void console_diag(const struct diag *d);

/* Flush stdout and check it: a full disk or a closed pipe is an error.
 * Returns rc, or 1 when rc was 0 and stdout failed. */
int console_finish(int rc);
