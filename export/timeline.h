/* msprof_{ts}.json: every domain's layers (timeline.c). */
#pragma once

struct exp;
struct exp_tl;

int exp_write_timeline(struct exp *e, const char *dir);
/* Every layer of msprof_{ts}.json, the mstx layers last, into tl (the
 * cluster timeline's spool of one rank). */
int exp_write_layers(struct exp *e, struct exp_tl *tl);
