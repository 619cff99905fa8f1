/* The device worker (device.h): one thread per sampler, so that a vendor
 * call that blocks (NVML's init, its 20 ms PCIe measurements, a hung
 * driver) delays only the device samples, never the caller's event loop.
 *
 * Ownership: the worker is shared by its owner and its thread until one of
 * them lets go; `released` (under lock) says the owner did, `exited` that
 * the thread did; whichever comes second frees it.  The sampler and its
 * files belong to the thread alone, except the device descriptions, which
 * never change after RUNNING and which the owner may read. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/device.h"
#include "common/util.h"

struct dev_worker {
	pthread_mutex_t lock;
	pthread_cond_t cond;          /* stop requested (CLOCK_MONOTONIC waits) */
	pthread_t thread;
	struct dev_worker_config cfg;
	char *prof_dir;
	atomic_bool stop;             /* also read without the lock between devices */
	uint32_t reason;
	bool released, exited;
	struct dev_worker_state st;
	struct dev_sampler *s;
};

/* Released workers whose thread still runs (dev_workers_wait). */
static pthread_mutex_t orphans_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t orphans_cond = PTHREAD_COND_INITIALIZER;
static unsigned orphans;

static void worker_free(struct dev_worker *w)
{
	w->s = dev_sampler_free(w->s);
	w->cfg.probe = dev_probe_unref(w->cfg.probe);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w->prof_dir);
	free(w);
}

/* Under w->lock: a new phase, told to the owner unless it let go. */
static void set_phase(struct dev_worker *w, enum dev_worker_phase phase)
{
	w->st.phase = phase;
	if (!w->released && w->cfg.notify)
		w->cfg.notify(w->cfg.arg);
}

/* Sleep until the absolute CLOCK_MONOTONIC time `until` or a stop. */
static void wait_until(struct dev_worker *w, uint64_t until)
{
	struct timespec ts = { .tv_sec = (time_t)(until / NSEC_PER_SEC), .tv_nsec = (long)(until % NSEC_PER_SEC) };
	pthread_mutex_lock(&w->lock);
	while (!atomic_load(&w->stop) && mono_ns() < until)
		if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&w->lock);
}

/* The next deadline on the grid; a tick later than a whole period skips
 * the missed ones instead of sampling in a burst. */
static void advance(uint64_t *next, uint64_t period)
{
	uint64_t now = mono_ns();
	*next += period;
	if (*next + period <= now)
		*next = now + period;
}

/* Sample until stopped; -errno of a write error. */
static int run(struct dev_worker *w)
{
	const uint64_t mp = w->cfg.mem_period_ns, pp = w->cfg.pcie_period_ns;
	uint64_t mem_next = w->cfg.sampler.mono0_ns, pcie_next = mem_next;

	while (!atomic_load(&w->stop)) {
		uint64_t now = mono_ns();
		bool mem = mp && mem_next <= now, pcie = pp && pcie_next <= now;
		if (!mem && !pcie) {
			uint64_t next = UINT64_MAX;
			if (mp)
				next = mem_next;
			if (pp && pcie_next < next)
				next = pcie_next;
			wait_until(w, next);
			continue;
		}
		int r;
		if (mem) {
			if ((r = dev_sampler_tick(w->s, DEV_TICK_MEM, &w->stop)) < 0)
				return r;
			advance(&mem_next, mp);
		}
		if (pcie && !atomic_load(&w->stop)) {
			if ((r = dev_sampler_tick(w->s, DEV_TICK_PCIE, &w->stop)) < 0)
				return r;
			advance(&pcie_next, pp);
		}
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct dev_worker *w = arg;
	char why[sizeof(w->st.why)] = "";
	struct dev_sampler *s = NULL;

	const struct dev_sampler *from = w->cfg.probe ? dev_probe_sampler(w->cfg.probe) : NULL;
	int r = from ? dev_sampler_borrow(from, &s) :
	        w->cfg.probe ? -ENODEV : dev_sampler_open(&s, why, sizeof(why));
	/* The files are made under the lock: an owner that stops (or lets go
	 * of) an OPENING worker that opens its own backend knows no
	 * device_<N> appears after that.  One that borrows was told of its
	 * devices: it makes them, then finishes at once. */
	pthread_mutex_lock(&w->lock);
	if (r == 0 && !from && atomic_load(&w->stop)) {
		r = -ECANCELED;
		snprintf(why, sizeof(why), "stopped before the devices were open");
	}
	if (r == 0)
		r = dev_sampler_begin(s, &w->cfg.sampler, why, sizeof(why));
	if (r < 0) {
		s = dev_sampler_free(s);
		snprintf(w->st.why, sizeof(w->st.why), "%s", why[0] ? why : strerror(-r));
		w->st.error = r;
		set_phase(w, DEV_WORKER_OFF);
		pthread_mutex_unlock(&w->lock);
		goto out;
	}
	w->s = s;
	set_phase(w, DEV_WORKER_RUNNING);
	pthread_mutex_unlock(&w->lock);

	int err = run(w);
	uint64_t bytes = dev_sampler_bytes(s);   /* before finish closes the files */
	pthread_mutex_lock(&w->lock);            /* run() may end on an error, racing a stop */
	uint32_t reason = w->reason;
	pthread_mutex_unlock(&w->lock);
	int fr = dev_sampler_finish(s, reason);

	pthread_mutex_lock(&w->lock);
	w->st.error = err < 0 ? err : fr;
	w->st.stopped = err == 0;
	w->st.records = dev_sampler_records(s);
	w->st.bytes = bytes;
	set_phase(w, DEV_WORKER_DONE);
	pthread_mutex_unlock(&w->lock);

out:
	pthread_mutex_lock(&w->lock);
	w->exited = true;
	bool mine = w->released;
	pthread_mutex_unlock(&w->lock);
	if (mine) {
		/* released while running: detached, nobody joins us */
		worker_free(w);
		pthread_mutex_lock(&orphans_lock);
		orphans--;
		pthread_cond_broadcast(&orphans_cond);
		pthread_mutex_unlock(&orphans_lock);
	}
	return NULL;
}

int dev_worker_new(const struct dev_worker_config *cfg, struct dev_worker **ret)
{
	struct dev_worker *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->cfg = *cfg;
	w->prof_dir = strdup(cfg->sampler.prof_dir);
	if (!w->prof_dir) {
		free(w);
		return -ENOMEM;
	}
	w->cfg.sampler.prof_dir = w->prof_dir;
	if (cfg->probe)
		w->cfg.probe = dev_probe_ref(cfg->probe);
	w->st.phase = DEV_WORKER_OPENING;
	atomic_init(&w->stop, false);

	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->lock, NULL);

	/* Signals stay with the caller's threads (msprofd's loop handles
	 * them): the worker starts with all of them blocked. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		worker_free(w);
		return -r;
	}
	*ret = w;
	return 0;
}

void dev_worker_get(struct dev_worker *w, struct dev_worker_state *ret)
{
	pthread_mutex_lock(&w->lock);
	*ret = w->st;
	pthread_mutex_unlock(&w->lock);
}

const struct dev_sampler *dev_worker_sampler(struct dev_worker *w)
{
	if (w->cfg.probe)
		return dev_probe_sampler(w->cfg.probe);   /* the same devices, from the start */
	pthread_mutex_lock(&w->lock);
	const struct dev_sampler *s = w->s;
	pthread_mutex_unlock(&w->lock);
	return s;
}

void dev_worker_stop(struct dev_worker *w, uint32_t reason)
{
	pthread_mutex_lock(&w->lock);
	if (!atomic_load(&w->stop)) {
		w->reason = reason;
		atomic_store(&w->stop, true);
		pthread_cond_signal(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
}

struct dev_worker *dev_worker_release(struct dev_worker *w)
{
	if (!w)
		return NULL;
	dev_worker_stop(w, 2 /* the raw format's client_gone: nobody waits any more */);
	pthread_mutex_lock(&w->lock);
	w->released = true;
	bool exited = w->exited;
	pthread_t t = w->thread;   /* w is the thread's to free once we unlock */
	if (!exited) {
		pthread_mutex_lock(&orphans_lock);
		orphans++;
		pthread_mutex_unlock(&orphans_lock);
	}
	pthread_mutex_unlock(&w->lock);
	if (exited) {
		pthread_join(t, NULL);
		worker_free(w);
	} else {
		pthread_detach(t);
	}
	return NULL;
}

unsigned dev_workers_wait(unsigned timeout_ms)
{
	uint64_t until = real_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	struct timespec ts = { .tv_sec = (time_t)(until / NSEC_PER_SEC), .tv_nsec = (long)(until % NSEC_PER_SEC) };
	pthread_mutex_lock(&orphans_lock);
	while (orphans)
		if (pthread_cond_timedwait(&orphans_cond, &orphans_lock, &ts) == ETIMEDOUT)
			break;
	unsigned n = orphans;
	pthread_mutex_unlock(&orphans_lock);
	return n;
}
