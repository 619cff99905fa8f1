/* Codec of the agent's device-task records (gputask.h). */
#include <errno.h>
#include <string.h>

#include "collectors/gputask.h"

int gpu_encode_task(struct raw_buf *b, const struct gpu_task *t)
{
	raw_buf_reset(b);
	raw_buf_u64(b, t->start);
	raw_buf_u64(b, t->end);
	raw_buf_u32(b, t->kind);
	raw_buf_u32(b, t->device);
	raw_buf_u32(b, t->context);
	raw_buf_u32(b, t->stream);
	raw_buf_u32(b, t->correlation);
	for (int i = 0; i < 3; i++)
		raw_buf_u32(b, (uint32_t)t->grid[i]);
	for (int i = 0; i < 3; i++)
		raw_buf_u32(b, (uint32_t)t->block[i]);
	raw_buf_u32(b, t->shared_mem);
	raw_buf_u32(b, t->registers);
	raw_buf_u32(b, t->copy_kind);
	raw_buf_u64(b, t->bytes);
	raw_buf_lstr(b, t->kind == GPU_TASK_KERNEL ? t->name : "", GPU_NAME_MAX);
	return b->err;
}

int gpu_decode_task(const uint8_t *p, size_t len, struct gpu_task *ret)
{
	struct raw_cur c = { p, len, 0 };
	struct gpu_task *t = ret;
	t->start = raw_cur_u64(&c);
	t->end = raw_cur_u64(&c);
	t->kind = raw_cur_u32(&c);
	t->device = raw_cur_u32(&c);
	t->context = raw_cur_u32(&c);
	t->stream = raw_cur_u32(&c);
	t->correlation = raw_cur_u32(&c);
	for (int i = 0; i < 3; i++)
		t->grid[i] = (int32_t)raw_cur_u32(&c);
	for (int i = 0; i < 3; i++)
		t->block[i] = (int32_t)raw_cur_u32(&c);
	t->shared_mem = raw_cur_u32(&c);
	t->registers = raw_cur_u32(&c);
	t->copy_kind = raw_cur_u32(&c);
	t->bytes = raw_cur_u64(&c);
	raw_cur_lstr(&c, t->name, GPU_NAME_MAX);
	if (c.err || c.left || t->kind < GPU_TASK_KERNEL || t->kind > GPU_TASK_MEMSET || t->end < t->start ||
	    t->device > 30)
		return -EBADMSG;
	if (t->kind == GPU_TASK_KERNEL)
		for (int i = 0; i < 3; i++)
			if (t->grid[i] < 1 || t->block[i] < 1)
				return -EBADMSG;
	return 0;
}

int gpu_encode_api(struct raw_buf *b, const struct gpu_api *a)
{
	raw_buf_reset(b);
	raw_buf_u64(b, a->start);
	raw_buf_u64(b, a->end);
	raw_buf_u32(b, a->tid);
	raw_buf_u32(b, a->correlation);
	raw_buf_u32(b, a->cbid);
	raw_buf_u32(b, a->result);
	raw_buf_lstr(b, a->name, GPU_NAME_MAX);
	return b->err;
}

int gpu_decode_api(const uint8_t *p, size_t len, struct gpu_api *ret)
{
	struct raw_cur c = { p, len, 0 };
	ret->start = raw_cur_u64(&c);
	ret->end = raw_cur_u64(&c);
	ret->tid = raw_cur_u32(&c);
	ret->correlation = raw_cur_u32(&c);
	ret->cbid = raw_cur_u32(&c);
	ret->result = raw_cur_u32(&c);
	raw_cur_lstr(&c, ret->name, GPU_NAME_MAX);
	if (c.err || c.left || ret->end < ret->start || !ret->name[0])
		return -EBADMSG;
	return 0;
}

const char *gpu_sync_name(uint32_t type)
{
	static const char *const names[] = { [GPU_SYNC_UNKNOWN] = "Unknown", [GPU_SYNC_EVENT] = "Event Synchronize",
					     [GPU_SYNC_STREAM_WAIT_EVENT] = "Stream Wait Event",
					     [GPU_SYNC_STREAM] = "Stream Synchronize",
					     [GPU_SYNC_CONTEXT] = "Context Synchronize" };
	return type <= GPU_SYNC_TYPE_MAX ? names[type] : names[GPU_SYNC_UNKNOWN];
}

int gpu_encode_sync(struct raw_buf *b, const struct gpu_sync *s)
{
	raw_buf_reset(b);
	raw_buf_u64(b, s->start);
	raw_buf_u64(b, s->end);
	raw_buf_u32(b, s->type);
	raw_buf_u32(b, s->context);
	raw_buf_u32(b, s->stream);
	raw_buf_u32(b, s->event);
	raw_buf_u32(b, s->correlation);
	raw_buf_u32(b, s->result);
	return b->err;
}

int gpu_decode_sync(const uint8_t *p, size_t len, struct gpu_sync *ret)
{
	struct raw_cur c = { p, len, 0 };
	ret->start = raw_cur_u64(&c);
	ret->end = raw_cur_u64(&c);
	ret->type = raw_cur_u32(&c);
	ret->context = raw_cur_u32(&c);
	ret->stream = raw_cur_u32(&c);
	ret->event = raw_cur_u32(&c);
	ret->correlation = raw_cur_u32(&c);
	ret->result = raw_cur_u32(&c);
	if (c.err || c.left || ret->end < ret->start || ret->type > GPU_SYNC_TYPE_MAX)
		return -EBADMSG;
	return 0;
}
