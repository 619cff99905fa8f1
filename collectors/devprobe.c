/* The device probe (device.h): the backend opened once, on a thread of its
 * own, and kept open for the workers to borrow.
 *
 * Ownership: a reference count, under lock.  The owner holds one, the
 * thread one until it is done, each worker that borrows one
 * (dev_probe_ref); the last to let go closes the backend (nvmlShutdown,
 * dlclose) and frees the probe, so a worker still in a driver call after
 * its owner and the probe's owner let go never finds the library gone. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/device.h"
#include "common/util.h"

struct dev_probe {
	pthread_mutex_t lock;
	unsigned refs;
	bool released;                /* the owner let go: no notify */
	void (*notify)(void *arg);
	void *arg;
	enum dev_probe_phase phase;
	char why[256];                /* NONE */
	struct dev_sampler *s;        /* FOUND: the devices, the open backend */
	uint64_t started_ns;
};

static void probe_unref_locked(struct dev_probe *p, bool *ret_free)
{
	*ret_free = --p->refs == 0;
}

static void probe_free(struct dev_probe *p)
{
	p->s = dev_sampler_free(p->s);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct dev_probe *dev_probe_unref(struct dev_probe *p)
{
	if (!p)
		return NULL;
	bool last;
	pthread_mutex_lock(&p->lock);
	probe_unref_locked(p, &last);
	pthread_mutex_unlock(&p->lock);
	if (last)
		probe_free(p);
	return NULL;
}

struct dev_probe *dev_probe_ref(struct dev_probe *p)
{
	pthread_mutex_lock(&p->lock);
	p->refs++;
	pthread_mutex_unlock(&p->lock);
	return p;
}

static void *probe_main(void *arg)
{
	struct dev_probe *p = arg;
	char why[sizeof(p->why)] = "";
	struct dev_sampler *s = NULL;

	int r = dev_sampler_open(&s, why, sizeof(why));
	pthread_mutex_lock(&p->lock);
	if (r < 0) {
		snprintf(p->why, sizeof(p->why), "%s", why[0] ? why : strerror(-r));
		p->phase = DEV_PROBE_NONE;
	} else {
		p->s = s;
		p->phase = DEV_PROBE_FOUND;
	}
	if (!p->released && p->notify)
		p->notify(p->arg);
	bool last;
	probe_unref_locked(p, &last);
	pthread_mutex_unlock(&p->lock);
	if (last)
		probe_free(p);
	return NULL;
}

int dev_probe_new(void (*notify)(void *arg), void *arg, struct dev_probe **ret)
{
	struct dev_probe *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	p->refs = 2;   /* the owner's, the thread's */
	p->notify = notify;
	p->arg = arg;
	p->phase = DEV_PROBE_RUNNING;
	p->started_ns = mono_ns();

	/* Signals stay with the caller's threads, as for the workers.  The
	 * thread is detached: a driver that hangs in its init keeps it, and
	 * nobody may have to wait for it. */
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int r = pthread_create(&t, &attr, probe_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		probe_free(p);
		return -r;
	}
	*ret = p;
	return 0;
}

enum dev_probe_phase dev_probe_get(struct dev_probe *p, char *why, size_t why_len)
{
	pthread_mutex_lock(&p->lock);
	enum dev_probe_phase phase = p->phase;
	if (why && why_len)
		snprintf(why, why_len, "%s", phase == DEV_PROBE_NONE ? p->why : "");
	pthread_mutex_unlock(&p->lock);
	return phase;
}

const struct dev_sampler *dev_probe_sampler(struct dev_probe *p)
{
	pthread_mutex_lock(&p->lock);
	const struct dev_sampler *s = p->s;
	pthread_mutex_unlock(&p->lock);
	return s;
}

uint64_t dev_probe_started_ns(const struct dev_probe *p)
{
	return p->started_ns;   /* set before the thread starts, never changed */
}

struct dev_probe *dev_probe_release(struct dev_probe *p)
{
	if (!p)
		return NULL;
	pthread_mutex_lock(&p->lock);
	p->released = true;
	pthread_mutex_unlock(&p->lock);
	return dev_probe_unref(p);
}
