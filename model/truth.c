/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the recording kernel did at a probed newidle call (SPEC 6, 8), in
 * the terms of our models, so the replay can be checked against it.
 *
 * v5.16+ newidle_balance() / v6.10+ sched_balance_newidle() bail out early
 * when !rd->overload or this_rq->avg_idle < this_rq->sd->max_newidle_lb_cost
 * (the lowest domain), and since v5.13 first of all when this_rq->ttwu_pending;
 * the probe records all three, so the kernel's early bail
 * is known exactly at every call.  ret > 0 means it pulled.
 */
#include <string.h>

#include "model/model.h"

bool ir_probe_early_bail(const struct ir_probe_entry *v)
{
	/* v5.13 e5e678e4fea2: a pending wake-list wakeup returns first */
	if (v->ttwu_pending > 0)
		return true;
	if (v->rd_overload == 0)
		return true;
	return v->sd_max_newidle_lb_cost[0] >= 0 && v->avg_idle >= 0 &&
		v->avg_idle < v->sd_max_newidle_lb_cost[0];
}
