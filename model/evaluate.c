/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * All policies at one newidle point, and which policy models the kernel
 * that recorded a trace.  The loop is the hot path of the decision replay:
 * it allocates nothing.
 */
#include <string.h>

#include "model/model.h"

void ir_evaluate(const struct ir_point *pt, const struct ir_domains *dom,
		 struct ir_policy_run *runs, int n, struct ir_decision *d, struct ir_outcome *o)
{
	struct ir_decision_ctx ctx;

	ir_decision_ctx_init(&ctx, pt, dom);
	for (int i = 0; i < n; i++) {
		ir_decide(&ctx, &runs[i].p, &runs[i].st, &d[i]);
		ir_outcome(pt, &d[i], &o[i]);
		ir_policy_update(&ctx, &runs[i].p, &d[i], &o[i], &runs[i].st);
	}
}

static bool has_feature(const char *features, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = features; p && (p = strstr(p, name)); p += n) {
		bool start = p == features || p[-1] == ' ' || p[-1] == '\t';
		bool end = p[n] == 0 || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';

		if (start && end)
			return true;
	}
	return false;
}

enum ir_policy_kind ir_policy_for_kernel(int major, int minor, const char *sched_features)
{
	/* NI_RANDOM (33cf66d88306, v6.19) and its backports */
	if (sched_features && has_feature(sched_features, "NI_RANDOM"))
		return IR_POL_PROPORTIONAL;
	if (sched_features && has_feature(sched_features, "NO_NI_RANDOM"))
		return major > 6 || (major == 6 && minor >= 17) ? IR_POL_BUMP : IR_POL_MAINLINE;
	if (major < 0 || major < 5 || (major == 5 && minor < 16))
		return major < 0 ? IR_POL_MAINLINE : IR_POL_BASELINE;
	if (major == 6 && (minor == 17 || minor == 18))
		return IR_POL_BUMP;	/* 155213a2aed4 in v6.17, reverted in v6.19 */
	if (major > 6 || (major == 6 && minor >= 19))
		return IR_POL_PROPORTIONAL;
	return IR_POL_MAINLINE;
}
