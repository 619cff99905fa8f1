/* A small line editor for the (msprof) prompt at a terminal: Left/Right,
 * Home/End, Backspace/Delete, Ctrl-A/E/B/F/U/K/W/L, and a history recalled
 * with Up/Down (Ctrl-P/N), kept in a file between runs.
 *
 * It is fed the bytes the prompt's poll loop reads, one at a time, and says
 * when a line is done, so the loop keeps watching everything else while the
 * user types; readline and libedit want the read for themselves, and their
 * callback forms fight a loop that prints lines of its own between keys.
 *
 * While it edits, the terminal is in a raw mode that keeps output
 * processing (the job's "\n" still ends a line) but turns signal keys into
 * bytes: Ctrl-C reaches the editor (LE_INTR), never the terminal's process
 * group, which holds the job too.  Input is ASCII: a command line is one,
 * and a byte-wise cursor stays right only over one-column characters. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#define LE_LINE_MAX 1024        /* longer input is refused with a bell */
#define LE_HISTORY_MAX 500      /* lines kept, in memory and in the file */

enum le_event {
	LE_NONE,                /* keep feeding */
	LE_LINE,                /* a line is done: lineedit_line() */
	LE_INTR,                /* Ctrl-C: the line was dropped */
	LE_EOF,                 /* Ctrl-D on an empty line */
};

struct lineedit {
	bool on;                /* the terminal is ours and raw */
	int fd;                 /* the terminal (stdin) */
	struct termios saved;
	char buf[LE_LINE_MAX + 1];
	size_t len, pos;
	char esc[16];           /* an escape sequence being read */
	size_t n_esc;
	bool after_cr;          /* "\r\n" is one Enter */
	char **hist;            /* oldest first */
	size_t n_hist;
	size_t hist_at;         /* n_hist: the line being typed */
	char *draft;            /* that line, while the history is shown */
	char *hist_path;        /* NULL: history in memory only */
	const char *prompt;     /* shown by lineedit_show */
};

/* Take the terminal on fd (stdin) when it and stdout are terminals, the
 * process is in the terminal's foreground and TERM is not "dumb": raw mode,
 * history loaded from hist_path (may be NULL).  Returns 1 when editing is
 * on, 0 when the input is read as plain lines. */
int lineedit_begin(struct lineedit *e, int fd, const char *prompt, const char *hist_path);

/* Give the terminal back as it was (safe to call twice, and when off). */
void lineedit_end(struct lineedit *e);

/* Free the history; ends editing first. */
void lineedit_release(struct lineedit *e);

/* One input byte; what it completed.  Echo goes to stdout. */
enum le_event lineedit_feed(struct lineedit *e, unsigned char c);

/* The line LE_LINE completed (valid until the next feed); it is added to
 * the history when it is not blank and not the last entry. */
const char *lineedit_line(struct lineedit *e);

/* Draw the prompt and the line being typed, the cursor in its place. */
void lineedit_show(struct lineedit *e);

/* Clear the prompt's line, so that a message takes it (lineedit_show
 * draws the prompt again after it). */
void lineedit_hide(struct lineedit *e);

/* $XDG_STATE_HOME/msprof/history, else ~/.local/state/msprof/history;
 * malloc'd, NULL when neither variable is set.  The folder is made. */
char *lineedit_history_path(void);
