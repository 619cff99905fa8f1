/* mstx._mstx: the mstx API (libms_tools_ext, include/mstx/ms_tools_ext.h)
 * for Python, one C function per call.  Whether a tool (msprof's agent)
 * receives the calls is known once, at import: libms_tools_ext looks for it
 * at its first call and never again.  Without one every function returns at
 * once, before looking at its arguments; with one a message costs its UTF-8
 * form (cached in the str by CPython) and the C call. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stdint.h>
#include <string.h>

#include "msprof/control.h"
#include "mstx/ms_tools_ext.h"

static int g_on;   /* a tool receives the calls */

/* The message of args[0] as UTF-8; NULL with an exception set. */
static const char *utf8_arg(PyObject *o)
{
	Py_ssize_t len;
	const char *s = PyUnicode_AsUTF8AndSize(o, &len);
	if (!s)
		return NULL;
	if ((size_t)len != strlen(s)) {
		PyErr_SetString(PyExc_ValueError, "mstx: a message cannot contain a NUL character");
		return NULL;
	}
	return s;
}

/* An optional domain argument: None or absent is the default domain, else
 * an mstx.Domain (its _handle) or a handle domain_create returned. */
static int domain_arg(PyObject *const *args, Py_ssize_t n, Py_ssize_t i, mstxDomainHandle_t *ret)
{
	*ret = NULL;
	if (n <= i || args[i] == Py_None)
		return 0;
	PyObject *o = args[i];
	if (!PyLong_Check(o)) {
		o = PyObject_GetAttrString(o, "_handle");
		if (!o) {
			PyErr_SetString(PyExc_TypeError, "mstx: domain must be an mstx.Domain or None");
			return -1;
		}
		if (o == Py_None) {
			Py_DECREF(o);
			return 0;
		}
	} else {
		Py_INCREF(o);
	}
	uintptr_t h = (uintptr_t)PyLong_AsUnsignedLongLong(o);
	Py_DECREF(o);
	if (PyErr_Occurred())
		return -1;
	*ret = (mstxDomainHandle_t)h;
	return 0;
}

static int nargs_ok(const char *name, Py_ssize_t n, Py_ssize_t lo, Py_ssize_t hi)
{
	if (n >= lo && n <= hi)
		return 1;
	PyErr_Format(PyExc_TypeError, "mstx.%s takes %zd to %zd arguments (%zd given)", name, lo, hi, n);
	return 0;
}

/* mark(message, domain=None) */
static PyObject *py_mark(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!g_on)
		Py_RETURN_NONE;
	if (!nargs_ok("mark", n, 1, 2))
		return NULL;
	mstxDomainHandle_t d;
	const char *msg = utf8_arg(args[0]);
	if (!msg || domain_arg(args, n, 1, &d) < 0)
		return NULL;
	if (d)
		mstxDomainMarkA(d, msg, NULL);
	else
		mstxMarkA(msg, NULL);
	Py_RETURN_NONE;
}

/* range_start(message, domain=None) -> id (0 when nothing records) */
static PyObject *py_range_start(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!g_on)
		return PyLong_FromLong(0);
	if (!nargs_ok("range_start", n, 1, 2))
		return NULL;
	mstxDomainHandle_t d;
	const char *msg = utf8_arg(args[0]);
	if (!msg || domain_arg(args, n, 1, &d) < 0)
		return NULL;
	mstxRangeId id = d ? mstxDomainRangeStartA(d, msg, NULL) : mstxRangeStartA(msg, NULL);
	return PyLong_FromUnsignedLongLong(id);
}

/* range_end(id, domain=None) */
static PyObject *py_range_end(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!g_on)
		Py_RETURN_NONE;
	if (!nargs_ok("range_end", n, 1, 2))
		return NULL;
	mstxDomainHandle_t d;
	mstxRangeId id = PyLong_AsUnsignedLongLong(args[0]);
	if (PyErr_Occurred() || domain_arg(args, n, 1, &d) < 0)
		return NULL;
	if (id == 0)
		Py_RETURN_NONE;
	if (d)
		mstxDomainRangeEnd(d, id);
	else
		mstxRangeEnd(id);
	Py_RETURN_NONE;
}

/* domain_create(name) -> handle (0: none, nothing records) */
static PyObject *py_domain_create(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!nargs_ok("domain_create", n, 1, 1))
		return NULL;
	const char *name = utf8_arg(args[0]);
	if (!name)
		return NULL;
	if (!g_on)
		return PyLong_FromLong(0);
	return PyLong_FromUnsignedLongLong((uintptr_t)mstxDomainCreateA(name));
}

/* step(n) */
static PyObject *py_step(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!nargs_ok("step", n, 1, 1))
		return NULL;
	unsigned long long s = PyLong_AsUnsignedLongLong(args[0]);
	if (PyErr_Occurred())
		return NULL;
	if (g_on)
		mstxStep(s);
	Py_RETURN_NONE;
}

/* step_end(n) */
static PyObject *py_step_end(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!nargs_ok("step_end", n, 1, 1))
		return NULL;
	unsigned long long s = PyLong_AsUnsignedLongLong(args[0]);
	if (PyErr_Occurred())
		return NULL;
	if (g_on)
		mstxStepEnd(s);
	Py_RETURN_NONE;
}

/* start() / stop(): msprofStart / msprofStop, their return value (called
 * whether or not a tool receives the mstx calls: msprof answers them) */
static PyObject *py_start(PyObject *self, PyObject *unused)
{
	return PyLong_FromLong(msprofStart());
}

static PyObject *py_stop(PyObject *self, PyObject *unused)
{
	return PyLong_FromLong(msprofStop());
}

/* schedule(spec): msprofSchedule, its return value */
static PyObject *py_schedule(PyObject *self, PyObject *arg)
{
	if (!PyUnicode_Check(arg)) {
		PyErr_SetString(PyExc_TypeError, "mstx: a schedule is a str");
		return NULL;
	}
	const char *spec = utf8_arg(arg);
	if (!spec)
		return NULL;
	return PyLong_FromLong(msprofSchedule(spec));
}

/* name_thread(tid, name): mstxNameOsThreadA */
static PyObject *py_name_thread(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	if (!nargs_ok("name_thread", n, 2, 2))
		return NULL;
	unsigned long tid = PyLong_AsUnsignedLong(args[0]);
	if (PyErr_Occurred())
		return NULL;
	if (!PyUnicode_Check(args[1])) {
		PyErr_SetString(PyExc_TypeError, "mstx: a thread name is a str");
		return NULL;
	}
	const char *name = utf8_arg(args[1]);
	if (!name)
		return NULL;
	if (g_on && tid <= UINT32_MAX)
		mstxNameOsThreadA((uint32_t)tid, name);
	Py_RETURN_NONE;
}

/* tool_id() -> MSTX_TOOL_MSPROF_ID under msprof, MSTX_TOOL_INVALID_ID without a tool */
static PyObject *py_tool_id(PyObject *self, PyObject *unused)
{
	uint64_t id;
	mstxGetToolId(&id);
	return PyLong_FromUnsignedLongLong(id);
}

/* Range(message, domain=None): a range as a context manager, the type in
 * C so that `with mstx.range("x"):` costs about three C calls.  One object
 * may be entered again before it is left (recursion): the ids nest. */
#define RANGE_NEST 8

typedef struct {
	PyObject_HEAD
	PyObject *message;          /* str */
	PyObject *domain;           /* Domain, handle or None */
	mstxRangeId ids[RANGE_NEST];
	unsigned depth;             /* entered and not left; past RANGE_NEST: not recorded */
} RangeObject;

/* The package's decorator maker, wrap(message, domain, func) -> function
 * (set by mstx/__init__.py through _set_wrap). */
static PyObject *g_wrap;

static PyObject *py_set_wrap(PyObject *self, PyObject *fn)
{
	Py_XSETREF(g_wrap, Py_NewRef(fn));
	Py_RETURN_NONE;
}

static PyObject *wrap(PyObject *message, PyObject *domain, PyObject *func)
{
	if (!g_wrap) {
		PyErr_SetString(PyExc_RuntimeError, "mstx: import the mstx package, not mstx._mstx");
		return NULL;
	}
	return PyObject_CallFunctionObjArgs(g_wrap, message, domain, func, NULL);
}

/* range(message, domain=None), however called: the object, or for a
 * function (@mstx.range alone) the function wrapped. */
static PyObject *range_make(PyTypeObject *type, PyObject *message, PyObject *domain)
{
	if (!PyUnicode_Check(message)) {
		if (!PyCallable_Check(message)) {
			PyErr_SetString(PyExc_TypeError,
					"mstx.range: the message must be a str (or the function to decorate)");
			return NULL;
		}
		PyObject *name = PyObject_GetAttrString(message, "__qualname__");
		if (!name)
			return NULL;
		PyObject *w = wrap(name, domain, message);
		Py_DECREF(name);
		return w;
	}
	RangeObject *r = (RangeObject *)type->tp_alloc(type, 0);
	if (!r)
		return NULL;
	Py_INCREF(message);
	Py_INCREF(domain);
	r->message = message;
	r->domain = domain;
	return (PyObject *)r;
}

static PyObject *range_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *names[] = { "message", "domain", NULL };
	PyObject *message, *domain = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:range", names, &message, &domain))
		return NULL;
	return range_make(type, message, domain);
}

/* The common call, range("name") or range("name", domain), without the
 * argument tuple (PEP 590); keywords take range_new's way. */
static PyObject *range_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
	Py_ssize_t n = PyVectorcall_NARGS(nargsf);
	if (kwnames || n < 1 || n > 2)
		return _PyObject_MakeTpCall(PyThreadState_GET(), type, args, n, kwnames);
	return range_make((PyTypeObject *)type, args[0], n == 2 ? args[1] : Py_None);
}

static void range_dealloc(RangeObject *r)
{
	Py_XDECREF(r->message);
	Py_XDECREF(r->domain);
	Py_TYPE(r)->tp_free((PyObject *)r);
}

static PyObject *range_enter(RangeObject *r, PyObject *unused)
{
	unsigned depth = r->depth++;
	if (g_on && depth < RANGE_NEST) {
		PyObject *args[2] = { r->message, r->domain };
		PyObject *id = py_range_start(NULL, args, 2);
		if (!id) {
			r->depth--;
			return NULL;
		}
		r->ids[depth] = PyLong_AsUnsignedLongLong(id);
		Py_DECREF(id);
	}
	Py_INCREF(r);
	return (PyObject *)r;
}

static PyObject *range_exit(RangeObject *r, PyObject *const *args, Py_ssize_t n)
{
	if (r->depth == 0) {
		PyErr_SetString(PyExc_RuntimeError, "mstx.range: left more often than entered");
		return NULL;
	}
	unsigned depth = --r->depth;
	if (g_on && depth < RANGE_NEST && r->ids[depth]) {
		mstxDomainHandle_t d;
		if (domain_arg(&r->domain, 1, 0, &d) < 0)
			return NULL;
		if (d)
			mstxDomainRangeEnd(d, r->ids[depth]);
		else
			mstxRangeEnd(r->ids[depth]);
	}
	Py_RETURN_FALSE;
}

/* @mstx.range("name"): the function, wrapped */
static PyObject *range_call(RangeObject *r, PyObject *args, PyObject *kw)
{
	PyObject *func;
	if (kw || !PyArg_ParseTuple(args, "O:range", &func))
		return kw ? (PyErr_SetString(PyExc_TypeError, "mstx.range: decorate one function"), NULL) : NULL;
	return wrap(r->message, r->domain, func);
}

static PyMethodDef range_methods[] = {
	{ "__enter__", (PyCFunction)range_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)(void (*)(void))range_exit, METH_FASTCALL, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyMemberDef range_members[] = {
	{ "message", T_OBJECT, offsetof(RangeObject, message), READONLY, "the range's name" },
	{ "domain", T_OBJECT, offsetof(RangeObject, domain), READONLY, "its domain (None: the default one)" },
	{ NULL, 0, 0, 0, NULL },
};

static PyTypeObject RangeType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "mstx.range",
	.tp_basicsize = sizeof(RangeObject),
	.tp_dealloc = (destructor)range_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "range(message, domain=None): a range, as a context manager or a decorator;\n"
		  "@mstx.range alone names it after the function",
	.tp_methods = range_methods,
	.tp_members = range_members,
	.tp_new = range_new,
	.tp_vectorcall = range_vectorcall,
	.tp_call = (ternaryfunc)range_call,
};

static PyMethodDef methods[] = {
	{ "mark", (PyCFunction)(void (*)(void))py_mark, METH_FASTCALL, "mark(message, domain=None)" },
	{ "range_start", (PyCFunction)(void (*)(void))py_range_start, METH_FASTCALL,
	  "range_start(message, domain=None) -> id" },
	{ "range_end", (PyCFunction)(void (*)(void))py_range_end, METH_FASTCALL, "range_end(id, domain=None)" },
	{ "domain_create", (PyCFunction)(void (*)(void))py_domain_create, METH_FASTCALL,
	  "domain_create(name) -> handle" },
	{ "step", (PyCFunction)(void (*)(void))py_step, METH_FASTCALL, "step(n)" },
	{ "step_end", (PyCFunction)(void (*)(void))py_step_end, METH_FASTCALL, "step_end(n)" },
	{ "start", py_start, METH_NOARGS, "start() -> 0, or a negative errno" },
	{ "schedule", py_schedule, METH_O, "schedule(spec) -> 0, or a negative errno" },
	{ "stop", py_stop, METH_NOARGS, "stop() -> 0, or a negative errno" },
	{ "name_thread", (PyCFunction)(void (*)(void))py_name_thread, METH_FASTCALL, "name_thread(tid, name)" },
	{ "tool_id", py_tool_id, METH_NOARGS, "tool_id() -> the id of the tool receiving the calls" },
	{ "_set_wrap", py_set_wrap, METH_O, "the package's decorator maker: wrap(message, domain, func)" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "mstx._mstx", "The mstx API of libms_tools_ext, for the mstx package.", -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__mstx(void);
PyMODINIT_FUNC PyInit__mstx(void)
{
	uint64_t id;
	mstxGetToolId(&id);
	g_on = id != MSTX_TOOL_INVALID_ID;
	if (PyType_Ready(&RangeType) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&module);
	Py_INCREF(&RangeType);
	if (m && (PyModule_AddObject(m, "Range", (PyObject *)&RangeType) < 0 ||
		  PyModule_AddIntConstant(m, "ENABLED", g_on) < 0 ||
		  PyModule_AddObject(m, "TOOL_MSPROF_ID", PyLong_FromUnsignedLongLong(MSTX_TOOL_MSPROF_ID)) < 0)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
