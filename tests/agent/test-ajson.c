/* The agent's JSON reader and writer: the protocol's messages, every
 * corner of the grammar it accepts or refuses, the writer's escaping and
 * bounds, and a fuzz run (mutated messages and random bytes must never
 * crash, over-read or over-write: run under ASan). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unittest.h"
#include "collectors/agent/ajson.h"

static char sbuf[70000];

static int parse(const char *s, struct ajson_obj *o)
{
	return ajson_parse(s, strlen(s), sbuf, sizeof(sbuf), o);
}

static void test_messages(void)
{
	struct ajson_obj o;
	const char *start = "{\"v\":1,\"type\":\"agent_start\",\"id\":7,\"session\":3,"
			    "\"prof_dir\":\"/tmp/PROF_1\",\"msproftx\":true,\"mstx_domain_include\":\"a,b\","
			    "\"mstx_domain_exclude\":\"\",\"pids\":[1,2,{\"x\":[]}],\"extra\":null}";
	CHECK(parse(start, &o) == 0);
	CHECK(o.n == 10);
	int64_t i;
	const char *s;
	bool b;
	CHECK(ajson_get_int(&o, "v", &i) == 0 && i == 1);
	CHECK(ajson_get_str(&o, "type", &s) == 0 && strcmp(s, "agent_start") == 0);
	CHECK(ajson_get_int(&o, "id", &i) == 0 && i == 7);
	CHECK(ajson_get_str(&o, "prof_dir", &s) == 0 && strcmp(s, "/tmp/PROF_1") == 0);
	CHECK(ajson_get_bool(&o, "msproftx", &b) == 0 && b);
	CHECK(ajson_get_str(&o, "mstx_domain_exclude", &s) == 0 && *s == 0);
	CHECK(ajson_get(&o, "pids")->type == AJ_NESTED);
	CHECK(ajson_get(&o, "extra")->type == AJ_NULL);
	CHECK(ajson_get_int(&o, "type", &i) == -EINVAL);
	CHECK(ajson_get_str(&o, "missing", &s) == -ENOENT);
	CHECK(ajson_get_bool(&o, "v", &b) == -EINVAL);

	CHECK(parse(" \n{ } \t", &o) == 0 && o.n == 0);
}

static void test_strings(void)
{
	struct ajson_obj o;
	const char *s;
	CHECK(parse("{\"k\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"}", &o) == 0);
	CHECK(ajson_get_str(&o, "k", &s) == 0 && strcmp(s, "a\"b\\c/d\b\f\n\r\t") == 0);
	CHECK(parse("{\"k\":\"\\u00fc\\u20ac\\ud83d\\ude00\"}", &o) == 0);
	CHECK(ajson_get_str(&o, "k", &s) == 0 && strcmp(s, "\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80") == 0);
	CHECK(parse("{\"k\":\"raw \xc3\xbc utf8\"}", &o) == 0);
	/* refused: NUL, lone surrogates, bad escapes, raw control characters */
	CHECK(parse("{\"k\":\"\\u0000\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"\\ud83d\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"\\ude00\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"\\ud83d\\u0041\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"\\x\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"\\u12g4\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"a\nb\"}", &o) == -EBADMSG);
	CHECK(parse("{\"k\":\"unterminated}", &o) == -EBADMSG);
	/* a NUL byte inside the input */
	CHECK(ajson_parse("{\"k\":\"a\0b\"}", 11, sbuf, sizeof(sbuf), &o) == -EBADMSG);
}

static void test_numbers(void)
{
	struct ajson_obj o;
	int64_t i;
	CHECK(parse("{\"a\":0,\"b\":-0,\"c\":9223372036854775807,\"d\":-9223372036854775808,"
		    "\"e\":9223372036854775808,\"f\":1.5,\"g\":1e3,\"h\":-2E-2,\"i\":123456789012345678901234}",
		    &o) == 0);
	CHECK(ajson_get_int(&o, "a", &i) == 0 && i == 0);
	CHECK(ajson_get_int(&o, "b", &i) == 0 && i == 0);
	CHECK(ajson_get_int(&o, "c", &i) == 0 && i == INT64_MAX);
	CHECK(ajson_get_int(&o, "d", &i) == 0 && i == INT64_MIN);
	CHECK(ajson_get_int(&o, "e", &i) == -EINVAL);
	CHECK(ajson_get_int(&o, "f", &i) == -EINVAL && ajson_get(&o, "f")->type == AJ_NUMBER);
	CHECK(ajson_get_int(&o, "g", &i) == -EINVAL);
	CHECK(ajson_get_int(&o, "i", &i) == -EINVAL);
	const char *bad[] = { "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":+1}",
			      "{\"a\":0x10}", "{\"a\":NaN}", "{\"a\":1 2}" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		CHECK(parse(bad[k], &o) == -EBADMSG);
}

static void test_structure(void)
{
	struct ajson_obj o;
	const char *bad[] = {
		"", "[]", "1", "\"s\"", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{,}", "{\"a\":1 \"b\":2}",
		"{a:1}", "{'a':1}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":[1,]}", "{\"a\":[}", "{\"a\":{1:2}}",
		"{\"a\":1}x", "{\"a\":1}{}", "{\"a\":1,\"a\":2}", "{\"a\":[1 2]}", "{\"a\":{\"b\"}}",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int r = parse(bad[k], &o);
		if (r != -EBADMSG)
			fprintf(stderr, "accepted or wrong error %d: %s\n", r, bad[k]);
		CHECK(r == -EBADMSG);
	}
	/* depth: 31 nested arrays inside the object pass, 32 do not */
	char deep[256];
	for (int depth = 30; depth <= 32; depth++) {
		int n = snprintf(deep, sizeof(deep), "{\"a\":");
		for (int k = 0; k < depth; k++)
			deep[n++] = '[';
		for (int k = 0; k < depth; k++)
			deep[n++] = ']';
		deep[n++] = '}';
		deep[n] = 0;
		CHECK(parse(deep, &o) == (depth < AJSON_MAX_DEPTH ? 0 : -EBADMSG));
	}
	/* members */
	char many[4096];
	int n = snprintf(many, sizeof(many), "{");
	for (int k = 0; k <= AJSON_MAX_MEMBERS; k++)
		n += snprintf(many + n, sizeof(many) - (size_t)n, "%s\"k%d\":%d", k ? "," : "", k, k);
	snprintf(many + n, sizeof(many) - (size_t)n, "}");
	CHECK(parse(many, &o) == -E2BIG);
	/* the string buffer must hold the input */
	CHECK(ajson_parse("{}", 2, sbuf, 2, &o) == -ENOBUFS);
	CHECK(ajson_parse("{}", 2, sbuf, 3, &o) == 0);
}

/* The writer's test object, into buf of cap bytes: ajw_end's result. */
static long write_sample(char *buf, size_t cap)
{
	struct ajw w;
	ajw_begin(&w, buf, cap);
	ajw_int(&w, "v", 1);
	ajw_str(&w, "type", "hello");
	ajw_str(&w, "name", "a\"b\\c\n\x01\x7f");
	ajw_int(&w, "rank", -1);
	ajw_uint(&w, "big", UINT64_MAX);
	ajw_bool(&w, "ok", true);
	ajw_bool(&w, "no", false);
	return ajw_end(&w);
}

static void test_writer(void)
{
	char buf[256];
	long n = write_sample(buf, sizeof(buf));
	CHECK(n > 0 && (size_t)n == strlen(buf));
	CHECK(strcmp(buf, "{\"v\":1,\"type\":\"hello\",\"name\":\"a\\\"b\\\\c\\n\\u0001\\u007f\",\"rank\":-1,"
			  "\"big\":18446744073709551615,\"ok\":true,\"no\":false}") == 0 ||
	      strcmp(buf, "{\"v\":1,\"type\":\"hello\",\"name\":\"a\\\"b\\\\c\\u000a\\u0001\\u007f\",\"rank\":-1,"
			  "\"big\":18446744073709551615,\"ok\":true,\"no\":false}") == 0);
	/* round trip through the reader */
	struct ajson_obj o;
	const char *s;
	int64_t i;
	CHECK(ajson_parse(buf, (size_t)n, sbuf, sizeof(sbuf), &o) == 0);
	CHECK(ajson_get_str(&o, "name", &s) == 0 && strcmp(s, "a\"b\\c\n\x01\x7f") == 0);
	CHECK(ajson_get_int(&o, "rank", &i) == 0 && i == -1);
	/* overflow at every size: never past the buffer, always refused */
	for (size_t cap = 0; cap < (size_t)n + 1; cap++) {
		char *small = malloc(cap ? cap : 1);
		CHECK(write_sample(small, cap) == -ENOSPC);
		free(small);
	}
}

/* Parse an exact-size heap copy, so ASan sees any over-read. */
static void fuzz_one(const char *in, size_t n)
{
	char *copy = malloc(n ? n : 1);
	memcpy(copy, in, n);
	char *strings = malloc(n + 1);
	struct ajson_obj o;
	int r = ajson_parse(copy, n, strings, n + 1, &o);
	if (r == 0) {
		for (size_t i = 0; i < o.n; i++) {
			CHECK(o.m[i].key != NULL);
			if (o.m[i].type == AJ_STRING)
				CHECK(strlen(o.m[i].s) == o.m[i].len);
		}
	} else {
		CHECK(r == -EBADMSG || r == -E2BIG);
	}
	free(strings);
	free(copy);
}

static void test_fuzz(void)
{
	static const char *seeds[] = {
		("{\"v\":1,\"type\":\"agent_start\",\"id\":7,\"session\":3,\"prof_dir\":\"/tmp/PROF_1\","
		 "\"msproftx\":true,\"mstx_domain_include\":\"a,b\",\"mstx_domain_exclude\":\"\"}"),
		"{\"v\":1,\"type\":\"hello\",\"id\":1,\"ok\":true,\"daemon_pid\":42,\"version\":\"0.1.0\"}",
		"{\"v\":1,\"type\":\"error\",\"id\":3,\"code\":\"bad_request\",\"message\":\"\\u00fc \\\"x\\\"\"}",
		"{\"a\":[1,[2,{\"b\":[null,true,false,-1.5e3]}]],\"c\":{\"d\":\"\\ud83d\\ude00\"}}",
	};
	const char alphabet[] = "{}[]\":,\\u0123456789abcdefEe+-. \ntrnulsf\x00\x80\xff";
	char buf[512];
	unsigned iterations = 200000;
	for (unsigned it = 0; it < iterations; it++) {
		const char *seed = seeds[rnd() % (sizeof(seeds) / sizeof(seeds[0]))];
		size_t n = strlen(seed);
		memcpy(buf, seed, n);
		unsigned edits = 1 + (unsigned)(rnd() % 4);
		for (unsigned e = 0; e < edits; e++) {
			size_t pos = n ? rnd() % n : 0;
			switch (rnd() % 4) {
			case 0: /* replace */
				if (n)
					buf[pos] = alphabet[rnd() % (sizeof(alphabet) - 1)];
				break;
			case 1: /* insert */
				if (n < sizeof(buf) - 1) {
					memmove(buf + pos + 1, buf + pos, n - pos);
					buf[pos] = alphabet[rnd() % (sizeof(alphabet) - 1)];
					n++;
				}
				break;
			case 2: /* delete */
				if (n) {
					memmove(buf + pos, buf + pos + 1, n - pos - 1);
					n--;
				}
				break;
			default: /* truncate */
				n = pos;
				break;
			}
		}
		fuzz_one(buf, n);
	}
	/* plain random bytes */
	for (unsigned it = 0; it < 50000; it++) {
		size_t n = rnd() % 64;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)(i == 0 && rnd() % 2 ? '{' : alphabet[rnd() % (sizeof(alphabet) - 1)]);
		fuzz_one(buf, n);
	}
}

int main(void)
{
	test_messages();
	test_strings();
	test_numbers();
	test_structure();
	test_writer();
	test_fuzz();
	printf("ok\n");
	return 0;
}
