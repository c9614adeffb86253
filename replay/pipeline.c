/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Decoding on a second core: a producer thread reads pages and decodes
 * events into batches; the caller's thread runs the state machine and the
 * policies over them.  Events are copied with their comm strings, so the
 * producer may reuse its pages at once.  A few batches in flight bound the
 * memory; handing over a whole batch at a time keeps locking off the
 * per-event path.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay/pipeline.h"

#define BATCH 2048
#define NBATCH 4

struct slot {
	struct ir_event ev;
	char comm[2][IR_COMM_LEN];
};

struct batch {
	int n;
	struct slot s[BATCH];
};

struct ir_pipeline {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *b;		/* NBATCH */
	uint64_t head, tail;		/* batches produced, consumed */
	bool done, stop;
	int status;
	ir_produce_fn produce;
	void *ctx;
	struct batch *cur;		/* producer's batch being filled */
};

static const char *copy_comm(char *dst, const char *src, uint16_t *len)
{
	size_t n;

	if (!src)
		return NULL;
	n = strnlen(src, *len < IR_COMM_LEN ? *len : IR_COMM_LEN);
	memcpy(dst, src, n);
	if (n < IR_COMM_LEN)
		dst[n] = 0;
	*len = (uint16_t)n;
	return dst;
}

/* Hand the filled batch over; wait for room.  Returns true to stop. */
static bool publish(struct ir_pipeline *p)
{
	bool stop;

	pthread_mutex_lock(&p->lock);
	p->head++;
	pthread_cond_broadcast(&p->cond);
	while (p->head - p->tail == NBATCH && !p->stop)
		pthread_cond_wait(&p->cond, &p->lock);
	stop = p->stop;
	p->cur = &p->b[p->head % NBATCH];
	p->cur->n = 0;
	pthread_mutex_unlock(&p->lock);
	return stop;
}

/* The producer's ir_event_fn: copy the event into the batch. */
static int put(void *arg, const struct ir_event *ev)
{
	struct ir_pipeline *p = arg;
	struct slot *s = &p->cur->s[p->cur->n++];

	s->ev = *ev;
	switch (ev->type) {
	case IR_EV_SWITCH:
		s->ev.sw.prev_comm = copy_comm(s->comm[0], ev->sw.prev_comm, &s->ev.sw.prev_comm_len);
		s->ev.sw.next_comm = copy_comm(s->comm[1], ev->sw.next_comm, &s->ev.sw.next_comm_len);
		break;
	case IR_EV_WAKING:
	case IR_EV_WAKEUP:
	case IR_EV_WAKEUP_NEW:
		s->ev.wake.comm = copy_comm(s->comm[0], ev->wake.comm, &s->ev.wake.comm_len);
		break;
	case IR_EV_MIGRATE:
		s->ev.mig.comm = copy_comm(s->comm[0], ev->mig.comm, &s->ev.mig.comm_len);
		break;
	case IR_EV_FORK:
		s->ev.fork.child_comm = copy_comm(s->comm[0], ev->fork.child_comm, &s->ev.fork.child_comm_len);
		break;
	default:
		break;
	}
	if (p->cur->n == BATCH && publish(p))
		return 1;
	return 0;
}

static void *producer(void *arg)
{
	struct ir_pipeline *p = arg;
	int status = p->produce(p->ctx, put, p);

	pthread_mutex_lock(&p->lock);
	p->status = status;
	if (p->cur->n)
		p->head++;
	p->done = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int ir_pipeline_run(ir_produce_fn produce, void *ctx, ir_event_fn consume, void *arg, bool *stopped)
{
	struct ir_pipeline p = { .produce = produce, .ctx = ctx };
	pthread_t th;
	int status;

	*stopped = false;
	p.b = malloc(NBATCH * sizeof(*p.b));
	if (!p.b)
		return produce(ctx, consume, arg);	/* no room for batches: one thread */
	p.cur = &p.b[0];
	p.cur->n = 0;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	if (pthread_create(&th, NULL, producer, &p)) {
		pthread_mutex_destroy(&p.lock);
		pthread_cond_destroy(&p.cond);
		free(p.b);
		return produce(ctx, consume, arg);
	}
	for (;;) {
		struct batch *b;

		pthread_mutex_lock(&p.lock);
		while (p.tail == p.head && !p.done)
			pthread_cond_wait(&p.cond, &p.lock);
		if (p.tail == p.head && p.done) {
			pthread_mutex_unlock(&p.lock);
			break;
		}
		b = &p.b[p.tail % NBATCH];
		pthread_mutex_unlock(&p.lock);

		for (int i = 0; i < b->n && !*stopped; i++)
			if (consume(arg, &b->s[i].ev))
				*stopped = true;

		pthread_mutex_lock(&p.lock);
		p.tail++;
		if (*stopped)
			p.stop = true;
		pthread_cond_broadcast(&p.cond);
		pthread_mutex_unlock(&p.lock);
		if (*stopped)
			break;
	}
	pthread_join(th, NULL);
	status = p.status;
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.cond);
	free(p.b);
	return status;
}
