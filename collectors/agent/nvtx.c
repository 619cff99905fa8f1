/* NVTX v3: the agent as an NVTX injection library.  A program built with
 * NVIDIA's header-only NVTX finds us through NVTX_INJECTION64_PATH and calls
 * InitializeInjectionNvtx2 once; we write our functions into its CORE and
 * CORE2 callback tables.  Marks, start/end and push/pop ranges (also per
 * domain), domains, registered strings, category names and OS thread names
 * are recorded like their mstx counterparts; resources, payloads and the
 * CUDA/OpenCL/sync modules are left as no-ops.  Wide strings become UTF-8. */
#include <string.h>

#include "collectors/agent/agent.h"
#include "collectors/agent/nvtx-abi.h"

/* A message from event attributes, as a UTF-8 pointer and length; wide
 * strings are converted into buf.  false: the attributes are unusable (a
 * bad call). */
struct msg {
	const char *s;
	long len;
	uint32_t category, color;
};

static size_t utf8_put(char *out, uint32_t cp)
{
	if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		cp = 0xfffd;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Up to RAW_AGENT_MAX_STR + 1 bytes (so the cut is seen and counted). */
#define WBUF (RAW_AGENT_MAX_STR + 8)

static long wide_to_utf8(const wchar_t *w, char *buf)
{
	size_t n = 0;
	for (; *w && n <= RAW_AGENT_MAX_STR; w++)
		n += utf8_put(buf + n, (uint32_t)*w);
	buf[n] = 0;
	return (long)n;
}

static bool attr_msg(const struct nv_event_attributes *a, char *wbuf, struct msg *m)
{
	*m = (struct msg){ .s = "", .len = 0 };
	if (!a || a->size < offsetof(struct nv_event_attributes, colorType))
		return false;
	m->category = a->category;
	if (a->size >= offsetof(struct nv_event_attributes, payloadType) && a->colorType == NV_COLOR_ARGB)
		m->color = a->color;
	if (a->size < sizeof(*a))
		return true; /* an attributes struct without a message */
	switch (a->messageType) {
	case NV_MESSAGE_TYPE_ASCII:
		if (!a->message.ascii)
			return false;
		m->s = a->message.ascii;
		m->len = -1;
		return true;
	case NV_MESSAGE_TYPE_UNICODE:
		if (!a->message.unicode)
			return false;
		m->len = wide_to_utf8(a->message.unicode, wbuf);
		m->s = wbuf;
		return true;
	case NV_MESSAGE_TYPE_REGISTERED: {
		uint32_t n;
		const char *s = agent_string_lookup(a->message.registered, &n);
		if (!s)
			return false;
		m->s = s;
		m->len = n;
		return true;
	}
	case NV_MESSAGE_UNKNOWN:
		return true;
	default:
		return false;
	}
}

static bool domain_of(const void *handle, uint32_t *ret)
{
	if (agent_domain_lookup(handle, ret))
		return true;
	agent_bad_call();
	return false;
}

/* A string argument, narrow (a) or wide (w, converted into wbuf), as a
 * message; false after agent_bad_call when it is NULL. */
static bool str_msg(const char *a, const wchar_t *w, char *wbuf, struct msg *m)
{
	*m = (struct msg){ .s = a, .len = -1 };
	if (w) {
		m->len = wide_to_utf8(w, wbuf);
		m->s = wbuf;
	}
	if (!m->s) {
		agent_bad_call();
		return false;
	}
	return true;
}

/* The domain and the message of an Ex call; false after agent_bad_call when
 * either is unusable. */
static bool ex_args(const void *domain, const struct nv_event_attributes *a, char *wbuf, uint32_t *d, struct msg *m)
{
	if (!domain_of(domain, d))
		return false;
	if (!attr_msg(a, wbuf, m)) {
		agent_bad_call();
		return false;
	}
	return true;
}

/* The message's length, for the calls that want one. */
static size_t msg_size(const struct msg *m)
{
	return m->len < 0 ? strnlen(m->s, RAW_AGENT_MAX_STR + 1) : (size_t)m->len;
}

/* --- CORE ----------------------------------------------------------------- */

static void domain_mark_ex(const void *domain, const struct nv_event_attributes *a)
{
	if (agent_idle_annotation())
		return;
	char wbuf[WBUF];
	struct msg m;
	uint32_t d;
	if (ex_args(domain, a, wbuf, &d, &m))
		agent_mark(d, EV_TYPE_MARKER_EX, m.s, m.len, m.category, m.color);
}

static void mark_ex(const struct nv_event_attributes *a)
{
	domain_mark_ex(NULL, a);
}

static void mark_str(const char *a, const wchar_t *w)
{
	if (agent_idle_annotation())
		return;
	char wbuf[WBUF];
	struct msg m;
	if (str_msg(a, w, wbuf, &m))
		agent_mark(0, EV_TYPE_MARKER, m.s, m.len, 0, 0);
}

static void mark_a(const char *s)
{
	mark_str(s, NULL);
}

static void mark_w(const wchar_t *s)
{
	mark_str(NULL, s);
}

/* --capture-range: a start that opened a capture returns an id its end is
 * known by (capture.c) */
static uint64_t capture_started(bool cap, uint64_t id)
{
	if (cap)
		agent_capture_began(id);
	return id ? id : cap ? AGENT_CAPTURE_ID : 0;
}

static uint64_t domain_range_start_ex(const void *domain, const struct nv_event_attributes *a)
{
	char wbuf[WBUF];
	struct msg m;
	uint32_t d;
	bool cap = agent_capture_on() && ex_args(domain, a, wbuf, &d, &m) &&
		   agent_capture_begin(AGENT_CAPTURE_NVTX, m.s, m.len);
	if (agent_idle_annotation())
		return capture_started(cap, 0);
	if (!ex_args(domain, a, wbuf, &d, &m))
		return 0;
	return capture_started(cap, agent_range_start(d, m.s, m.len, m.category, m.color));
}

static uint64_t range_start_ex(const struct nv_event_attributes *a)
{
	return domain_range_start_ex(NULL, a);
}

static uint64_t range_start_str(const char *a, const wchar_t *w)
{
	char wbuf[WBUF];
	struct msg m;
	bool cap = agent_capture_on() && str_msg(a, w, wbuf, &m) && agent_capture_begin(AGENT_CAPTURE_NVTX, m.s, m.len);
	if (agent_idle_annotation())
		return capture_started(cap, 0);
	if (!str_msg(a, w, wbuf, &m))
		return 0;
	return capture_started(cap, agent_range_start(0, m.s, m.len, 0, 0));
}

static uint64_t range_start_a(const char *s)
{
	return range_start_str(s, NULL);
}

static uint64_t range_start_w(const wchar_t *s)
{
	return range_start_str(NULL, s);
}

static void domain_range_end(const void *domain, uint64_t id)
{
	if (agent_capture_on() && agent_capture_end(id) && id == AGENT_CAPTURE_ID)
		return;
	if (agent_idle())
		return;
	uint32_t d;
	if (domain_of(domain, &d))
		agent_range_end(d, id);
}

static void range_end(uint64_t id)
{
	domain_range_end(NULL, id);
}

/* Push and pop keep their levels while idle too: see agent_push. */
static int domain_push_ex(const void *domain, const struct nv_event_attributes *a)
{
	char wbuf[WBUF];
	struct msg m;
	uint32_t d;
	if (!ex_args(domain, a, wbuf, &d, &m))
		return -1;
	int level = agent_push(d, m.s, m.len, m.category, m.color);
	if (agent_capture_on())
		agent_capture_push(AGENT_CAPTURE_NVTX, m.s, m.len, d, level);
	return level;
}

static int push_ex(const struct nv_event_attributes *a)
{
	return domain_push_ex(NULL, a);
}

static int push_str(const char *a, const wchar_t *w)
{
	char wbuf[WBUF];
	struct msg m;
	if (!str_msg(a, w, wbuf, &m))
		return -1;
	int level = agent_push(0, m.s, m.len, 0, 0);
	if (agent_capture_on())
		agent_capture_push(AGENT_CAPTURE_NVTX, m.s, m.len, 0, level);
	return level;
}

static int push_a(const char *s)
{
	return push_str(s, NULL);
}

static int push_w(const wchar_t *s)
{
	return push_str(NULL, s);
}

static int domain_pop(const void *domain)
{
	uint32_t d;
	if (!domain_of(domain, &d))
		return -1;
	int level = agent_pop(d);
	if (agent_capture_on())
		agent_capture_pop(d, level);
	return level;
}

static int pop(void)
{
	int level = agent_pop(0);
	if (agent_capture_on())
		agent_capture_pop(0, level);
	return level;
}

static void name_category(const void *domain, uint32_t category, const char *a, const wchar_t *w)
{
	uint32_t d;
	char wbuf[WBUF];
	struct msg m;
	if (domain_of(domain, &d) && str_msg(a, w, wbuf, &m))
		agent_name_category(d, category, m.s, msg_size(&m));
}

static void domain_name_category_a(const void *domain, uint32_t category, const char *name)
{
	name_category(domain, category, name, NULL);
}

static void domain_name_category_w(const void *domain, uint32_t category, const wchar_t *name)
{
	name_category(domain, category, NULL, name);
}

static void name_category_a(uint32_t category, const char *name)
{
	name_category(NULL, category, name, NULL);
}

static void name_category_w(uint32_t category, const wchar_t *name)
{
	name_category(NULL, category, NULL, name);
}

static void name_os_thread(uint32_t tid, const char *a, const wchar_t *w)
{
	char wbuf[WBUF];
	struct msg m;
	if (str_msg(a, w, wbuf, &m))
		agent_name_thread(tid, m.s, msg_size(&m));
}

static void name_os_thread_a(uint32_t tid, const char *name)
{
	name_os_thread(tid, name, NULL);
}

static void name_os_thread_w(uint32_t tid, const wchar_t *name)
{
	name_os_thread(tid, NULL, name);
}

/* --- CORE2: domains and strings ---------------------------------------------- */

static void *domain_create_a(const char *name)
{
	return agent_domain_create(name);
}

static void *domain_create_w(const wchar_t *name)
{
	char wbuf[WBUF];
	struct msg m;
	if (!str_msg(NULL, name, wbuf, &m))
		return NULL;
	return agent_domain_create(m.s);
}

static void domain_destroy(void *domain)
{
	agent_domain_destroy(domain);
}

static void *register_string(const void *domain, const char *a, const wchar_t *w)
{
	uint32_t d;
	char wbuf[WBUF];
	struct msg m;
	if (!domain_of(domain, &d) || !str_msg(a, w, wbuf, &m))
		return NULL;
	return agent_string_register(m.s, msg_size(&m));
}

static void *domain_register_string_a(const void *domain, const char *s)
{
	return register_string(domain, s, NULL);
}

static void *domain_register_string_w(const void *domain, const wchar_t *s)
{
	return register_string(domain, NULL, s);
}

/* --- injection ------------------------------------------------------------------ */

struct cb {
	unsigned id;
	nv_function_pointer fn;
};

#define CB(id, f) { id, (nv_function_pointer)(f) }

static const struct cb core[] = {
	CB(NV_CBID_CORE_MarkEx, mark_ex),
	CB(NV_CBID_CORE_MarkA, mark_a),
	CB(NV_CBID_CORE_MarkW, mark_w),
	CB(NV_CBID_CORE_RangeStartEx, range_start_ex),
	CB(NV_CBID_CORE_RangeStartA, range_start_a),
	CB(NV_CBID_CORE_RangeStartW, range_start_w),
	CB(NV_CBID_CORE_RangeEnd, range_end),
	CB(NV_CBID_CORE_RangePushEx, push_ex),
	CB(NV_CBID_CORE_RangePushA, push_a),
	CB(NV_CBID_CORE_RangePushW, push_w),
	CB(NV_CBID_CORE_RangePop, pop),
	CB(NV_CBID_CORE_NameCategoryA, name_category_a),
	CB(NV_CBID_CORE_NameCategoryW, name_category_w),
	CB(NV_CBID_CORE_NameOsThreadA, name_os_thread_a),
	CB(NV_CBID_CORE_NameOsThreadW, name_os_thread_w),
};

static const struct cb core2[] = {
	CB(NV_CBID_CORE2_DomainMarkEx, domain_mark_ex),
	CB(NV_CBID_CORE2_DomainRangeStartEx, domain_range_start_ex),
	CB(NV_CBID_CORE2_DomainRangeEnd, domain_range_end),
	CB(NV_CBID_CORE2_DomainRangePushEx, domain_push_ex),
	CB(NV_CBID_CORE2_DomainRangePop, domain_pop),
	CB(NV_CBID_CORE2_DomainNameCategoryA, domain_name_category_a),
	CB(NV_CBID_CORE2_DomainNameCategoryW, domain_name_category_w),
	CB(NV_CBID_CORE2_DomainRegisterStringA, domain_register_string_a),
	CB(NV_CBID_CORE2_DomainRegisterStringW, domain_register_string_w),
	CB(NV_CBID_CORE2_DomainCreateA, domain_create_a),
	CB(NV_CBID_CORE2_DomainCreateW, domain_create_w),
	CB(NV_CBID_CORE2_DomainDestroy, domain_destroy),
};

static bool fill(const struct nv_etbl_callbacks *cbs, int module, const struct cb *v, size_t n)
{
	nv_function_table table = NULL;
	unsigned size = 0;
	if (!cbs->GetModuleFunctionTable(module, &table, &size) || !table)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i].id < size && table[v[i].id])
			*table[v[i].id] = v[i].fn;
	return true;
}

/* Returns non-zero on success (NVTX's convention). */
AGENT_EXPORT int InitializeInjectionNvtx2(nv_get_export_table get)
{
	if (!get)
		return 0;
	const struct nv_etbl_callbacks *cbs = get(NV_ETID_CALLBACKS);
	if (!cbs || cbs->struct_size < sizeof(*cbs) || !cbs->GetModuleFunctionTable)
		return 0;
	const struct nv_etbl_version_info *vi = get(NV_ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof(*vi) && vi->SetInjectionNvtxVersion)
		vi->SetInjectionNvtxVersion(NV_TOOL_VERSION);
	if (!fill(cbs, NV_CB_MODULE_CORE, core, ARRAY_SIZE(core)))
		return 0;
	(void)fill(cbs, NV_CB_MODULE_CORE2, core2, ARRAY_SIZE(core2));
	agent_core_init();
	return 1;
}
