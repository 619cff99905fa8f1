/* Messages for the user (diag.c): what the parser and the mode checks
 * have to say, printed by the command. */
#pragma once

#include <stdbool.h>

/* Messages for the user, filled by the parser and the mode checks.  `error`
 * is printed as "[ERROR] <error>" unless `plain` (getopt-style lines such as
 * "msprof: unrecognized option '--x'"); `usage` asks for the usage after it,
 * `hint` for a few lines that say where the usage is instead, after the
 * option meant (`meant`, for a misspelt one).  Info lines
 * are printed first, as "[INFO] <info>", then warnings, as "[WARNING] <warn>";
 * past the room for them, the last line says how many more there were. */
#define DIAG_MAX_WARN 40               /* msprof's NPU options, one line each */
#define DIAG_MAX_INFO 16
struct diag {
	char error[1200];
	bool plain;
	bool usage;
	bool hint;
	char meant[48];                /* "host-sys": "Did you mean '--host-sys'?" */
	unsigned n_warn, n_info;       /* given, even past the room */
	char warn[DIAG_MAX_WARN][512];
	char info[DIAG_MAX_INFO][300];
};

int diag_error(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_warn(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_info(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
