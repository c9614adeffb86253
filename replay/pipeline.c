/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading on a second core: a producer thread reads and merges the pages
 * and copies each raw record into a batch; the caller's thread decodes
 * them and runs the state machine and the policies.  (Splitting there
 * balances the two: profiles put about half the work on each side.)
 * Records are copied, so the producer may reuse its pages at once.  A few
 * batches in flight bound the memory; handing over a whole batch at a time
 * keeps locking off the per-record path.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay/pipeline.h"

#define BATCH 2048
#define NBATCH 4
#define SLOT_DATA 256		/* sched events are under 128 bytes; longer ones are cut */

struct slot {
	struct tep_record rec;
	unsigned char data[SLOT_DATA];
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

/* The producer's record sink: copy the record into the batch. */
static int put(void *arg, const struct tep_record *rec)
{
	struct ir_pipeline *p = arg;
	struct slot *s = &p->cur->s[p->cur->n++];
	int n = rec->size < 0 ? 0 : rec->size > SLOT_DATA ? SLOT_DATA : rec->size;

	s->rec = *rec;
	s->rec.size = n;
	memcpy(s->data, rec->data, (size_t)n);
	s->rec.data = s->data;
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

int ir_pipeline_run(ir_produce_fn produce, void *ctx, ir_record_fn consume, void *arg, bool *stopped)
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
			if (consume(arg, &b->s[i].rec))
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
