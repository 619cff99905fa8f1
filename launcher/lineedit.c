#include "launcher/lineedit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

#define KEY_CTRL(c) ((c) & 0x1f)

/* --- history --------------------------------------------------------------- */

static void hist_push(struct lineedit *e, const char *line)
{
	if (e->n_hist == LE_HISTORY_MAX) {
		free(e->hist[0]);
		memmove(e->hist, e->hist + 1, (e->n_hist - 1) * sizeof(*e->hist));
		e->n_hist--;
	}
	char *copy = strdup(line);
	if (!copy)
		return;
	e->hist[e->n_hist++] = copy;
}

/* The file keeps growing by one line per command; when it holds twice
 * what is kept, it is written again with the last LE_HISTORY_MAX lines. */
static void hist_load(struct lineedit *e)
{
	FILE *f = e->hist_path ? fopen(e->hist_path, "re") : NULL;
	if (!f)
		return;
	char line[LE_LINE_MAX + 2];
	size_t read = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line) {
			hist_push(e, line);
			read++;
		}
	}
	fclose(f);
	if (read < 2 * LE_HISTORY_MAX)
		return;
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.%d", e->hist_path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return;
	for (size_t i = 0; i < e->n_hist; i++)
		fprintf(f, "%s\n", e->hist[i]);
	if (fclose(f) != 0 || rename(tmp, e->hist_path) < 0)
		unlink(tmp);
}

/* A lost history line is not worth a message at the prompt. */
static void hist_append_file(const struct lineedit *e, const char *line)
{
	if (!e->hist_path)
		return;
	int fd = open(e->hist_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	size_t n = strlen(line);
	char *rec = malloc(n + 1);
	if (rec) {
		memcpy(rec, line, n);
		rec[n] = '\n';
		/* one write: lines of two prompts interleave whole */
		(void)!write(fd, rec, n + 1);
		free(rec);
	}
	close(fd);
}

char *lineedit_history_path(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *dir = NULL, *path = NULL;
	if (state && state[0] == '/') {
		(void)mkdir(state, 0700);
		if (asprintf(&dir, "%s/msprof", state) < 0)
			return NULL;
	} else if (home && home[0] == '/') {
		char base[PATH_MAX];
		snprintf(base, sizeof(base), "%s/.local", home);
		(void)mkdir(base, 0755);
		snprintf(base, sizeof(base), "%s/.local/state", home);
		(void)mkdir(base, 0700);
		if (asprintf(&dir, "%s/msprof", base) < 0)
			return NULL;
	} else {
		return NULL;
	}
	(void)mkdir(dir, 0700);
	if (asprintf(&path, "%s/history", dir) < 0)
		path = NULL;
	free(dir);
	return path;
}

/* --- the terminal ---------------------------------------------------------- */

int lineedit_begin(struct lineedit *e, int fd, const char *prompt, const char *hist_path)
{
	const char *term = getenv("TERM");
	e->fd = fd;
	e->prompt = prompt;
	if (!isatty(fd) || !isatty(STDOUT_FILENO) || tcgetpgrp(fd) != getpgrp() || (term && streq(term, "dumb")))
		return 0;
	if (tcgetattr(fd, &e->saved) < 0)
		return 0;
	struct termios raw = e->saved;
	/* no line discipline, no echo, no signal keys, no flow control keys;
	 * output processing stays, for our lines and the job's */
	raw.c_iflag &= ~(tcflag_t)(ICRNL | INLCR | IGNCR | IXON | ISTRIP);
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSADRAIN, &raw) < 0)
		return 0;
	if (!e->hist) {
		e->hist = calloc(LE_HISTORY_MAX, sizeof(*e->hist));
		if (hist_path)
			e->hist_path = strdup(hist_path);
		if (e->hist)
			hist_load(e);
	}
	e->hist_at = e->n_hist;
	e->on = true;
	return 1;
}

void lineedit_end(struct lineedit *e)
{
	if (!e->on)
		return;
	(void)tcsetattr(e->fd, TCSADRAIN, &e->saved);
	e->on = false;
}

void lineedit_release(struct lineedit *e)
{
	lineedit_end(e);
	for (size_t i = 0; i < e->n_hist; i++)
		free(e->hist[i]);
	free(e->hist);
	free(e->draft);
	free(e->hist_path);
	e->hist = NULL;
	e->draft = e->hist_path = NULL;
	e->n_hist = 0;
}

/* --- drawing --------------------------------------------------------------- */

void lineedit_show(struct lineedit *e)
{
	/* the line is written whole each time: it is short, and a redraw
	 * from the start is right whatever printed over it */
	printf("\r%s%.*s\x1b[K", e->prompt, (int)e->len, e->buf);
	if (e->pos < e->len)
		printf("\x1b[%zuD", e->len - e->pos);
	fflush(stdout);
}

void lineedit_hide(struct lineedit *e)
{
	(void)e;
	fputs("\r\x1b[K", stdout);
	fflush(stdout);
}

static void bell(void)
{
	fputc('\a', stdout);
	fflush(stdout);
}

/* --- editing --------------------------------------------------------------- */

static void set_line(struct lineedit *e, const char *s)
{
	size_t n = strlen(s);
	if (n > LE_LINE_MAX)
		n = LE_LINE_MAX;
	memcpy(e->buf, s, n);
	e->len = e->pos = n;
}

static void hist_move(struct lineedit *e, int dir)
{
	if ((dir < 0 && e->hist_at == 0) || (dir > 0 && e->hist_at >= e->n_hist)) {
		bell();
		return;
	}
	if (e->hist_at == e->n_hist) {
		free(e->draft);
		e->draft = strndup(e->buf, e->len);
	}
	e->hist_at = (size_t)((long)e->hist_at + dir);
	set_line(e, e->hist_at == e->n_hist ? (e->draft ? e->draft : "") : e->hist[e->hist_at]);
	lineedit_show(e);
}

static void delete_range(struct lineedit *e, size_t from, size_t to)
{
	memmove(e->buf + from, e->buf + to, e->len - to);
	e->len -= to - from;
	e->pos = from;
}

static void insert(struct lineedit *e, char c)
{
	if (e->len == LE_LINE_MAX) {
		bell();
		return;
	}
	memmove(e->buf + e->pos + 1, e->buf + e->pos, e->len - e->pos);
	e->buf[e->pos++] = c;
	e->len++;
	if (e->pos == e->len) {
		/* typing at the end, the common case: echo the character */
		fputc(c, stdout);
		fflush(stdout);
	} else {
		lineedit_show(e);
	}
}

/* Editing keys shared by control characters and escape sequences. */
enum key { K_LEFT, K_RIGHT, K_HOME, K_END, K_UP, K_DOWN, K_DELETE };

static void key(struct lineedit *e, enum key k)
{
	switch (k) {
	case K_LEFT:
		if (e->pos > 0)
			e->pos--;
		break;
	case K_RIGHT:
		if (e->pos < e->len)
			e->pos++;
		break;
	case K_HOME:
		e->pos = 0;
		break;
	case K_END:
		e->pos = e->len;
		break;
	case K_UP:
		hist_move(e, -1);
		return;
	case K_DOWN:
		hist_move(e, 1);
		return;
	case K_DELETE:
		if (e->pos < e->len)
			delete_range(e, e->pos, e->pos + 1);
		break;
	}
	lineedit_show(e);
}

/* ESC [ A, ESC O H, ESC [ 3 ~, ESC [ 1 ; 5 C ...: the final byte, and the
 * number before '~'.  Unknown sequences are swallowed whole. */
static void escape_done(struct lineedit *e)
{
	char fin = e->esc[e->n_esc - 1];
	int num = atoi(e->esc + 2);
	e->n_esc = 0;
	switch (fin) {
	case 'A': key(e, K_UP); break;
	case 'B': key(e, K_DOWN); break;
	case 'C': key(e, K_RIGHT); break;
	case 'D': key(e, K_LEFT); break;
	case 'H': key(e, K_HOME); break;
	case 'F': key(e, K_END); break;
	case '~':
		if (num == 1 || num == 7)
			key(e, K_HOME);
		else if (num == 4 || num == 8)
			key(e, K_END);
		else if (num == 3)
			key(e, K_DELETE);
		break;
	default:
		break;
	}
}

static enum le_event escape_feed(struct lineedit *e, unsigned char c)
{
	e->esc[e->n_esc++] = (char)c;
	if (e->n_esc == 2) {
		if (c != '[' && c != 'O')
			e->n_esc = 0;   /* Alt+key: dropped */
		return LE_NONE;
	}
	if (c >= 0x40 && c <= 0x7e)
		escape_done(e);
	else if (e->n_esc == sizeof(e->esc))
		e->n_esc = 0;
	return LE_NONE;
}

const char *lineedit_line(struct lineedit *e)
{
	return e->buf;
}

static enum le_event enter(struct lineedit *e)
{
	e->buf[e->len] = '\0';
	fputc('\n', stdout);
	fflush(stdout);
	const char *p = e->buf;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p && e->hist && (e->n_hist == 0 || !streq(e->hist[e->n_hist - 1], e->buf))) {
		hist_push(e, e->buf);
		hist_append_file(e, e->buf);
	}
	e->hist_at = e->n_hist;
	free(e->draft);
	e->draft = NULL;
	e->len = e->pos = 0;
	return LE_LINE;
}

enum le_event lineedit_feed(struct lineedit *e, unsigned char c)
{
	bool after_cr = e->after_cr;
	e->after_cr = false;
	if (e->n_esc)
		return escape_feed(e, c);
	switch (c) {
	case '\x1b':
		e->esc[0] = (char)c;
		e->n_esc = 1;
		return LE_NONE;
	case '\r':
		e->after_cr = true;
		return enter(e);
	case '\n':
		if (after_cr)
			return LE_NONE;
		return enter(e);
	case KEY_CTRL('C'):
		fputs("^C\n", stdout);
		fflush(stdout);
		e->len = e->pos = 0;
		e->hist_at = e->n_hist;
		return LE_INTR;
	case KEY_CTRL('D'):
		if (e->len == 0) {
			fputc('\n', stdout);
			fflush(stdout);
			return LE_EOF;
		}
		key(e, K_DELETE);
		return LE_NONE;
	case KEY_CTRL('A'): key(e, K_HOME); return LE_NONE;
	case KEY_CTRL('E'): key(e, K_END); return LE_NONE;
	case KEY_CTRL('B'): key(e, K_LEFT); return LE_NONE;
	case KEY_CTRL('F'): key(e, K_RIGHT); return LE_NONE;
	case KEY_CTRL('P'): key(e, K_UP); return LE_NONE;
	case KEY_CTRL('N'): key(e, K_DOWN); return LE_NONE;
	case KEY_CTRL('L'):
		fputs("\x1b[H\x1b[2J", stdout);
		lineedit_show(e);
		return LE_NONE;
	case KEY_CTRL('U'):
		delete_range(e, 0, e->pos);
		lineedit_show(e);
		return LE_NONE;
	case KEY_CTRL('K'):
		e->len = e->pos;
		lineedit_show(e);
		return LE_NONE;
	case KEY_CTRL('W'): {
		size_t p = e->pos;
		while (p > 0 && e->buf[p - 1] == ' ')
			p--;
		while (p > 0 && e->buf[p - 1] != ' ')
			p--;
		delete_range(e, p, e->pos);
		lineedit_show(e);
		return LE_NONE;
	}
	case 0x7f:
	case KEY_CTRL('H'):
		if (e->pos == 0) {
			bell();
			return LE_NONE;
		}
		delete_range(e, e->pos - 1, e->pos);
		lineedit_show(e);
		return LE_NONE;
	default:
		if (c >= 0x20 && c < 0x7f)
			insert(e, (char)c);
		else
			bell();   /* Tab, Ctrl-Z, Ctrl-\, non-ASCII */
		return LE_NONE;
	}
}
