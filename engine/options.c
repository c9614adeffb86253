/* SPDX-License-Identifier: GPL-2.0-only */
/* The handle and its options: each value checked when it is set. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

const char *idlereplay_version(void)
{
	return IDLEREPLAY_VERSION;
}

int ir_engine_fail(struct idlereplay *ir, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ir->err, sizeof(ir->err), fmt, ap);
	va_end(ap);
	return code;
}

idlereplay *idlereplay_new(void)
{
	struct idlereplay *ir = calloc(1, sizeof(*ir));

	if (!ir)
		return NULL;
	ir->runs = calloc(IR_MAX_RUNS, sizeof(*ir->runs));
	if (!ir->runs) {
		free(ir);
		return NULL;
	}
	ir_state_params_default(&ir->sp);
	ir->max_lost = 1.0;
	ir->pf_sim_max = IR_CAP_DEFAULT_MAX;
	ir->cl_sim_seeds = IR_CL_DEFAULT_SEEDS;
	return ir;
}

void idlereplay_free(idlereplay *ir)
{
	if (!ir)
		return;
	json_object_put(ir->doc);
	ir_trace_close(ir->tr);
	free(ir->path);
	free(ir->runs);
	free(ir->json_path);
	free(ir->html_path);
	free(ir->decisions_path);
	free(ir->perfetto_path);
	free(ir->topo_arg);
	free(ir->reference);
	free(ir->kernel_policy);
	free(ir->buffer);
	free(ir);
}

const char *idlereplay_error(const idlereplay *ir)
{
	return ir ? ir->err : "out of memory";
}

void idlereplay_on_warning(idlereplay *ir, idlereplay_warning_fn *fn, void *arg)
{
	ir->warn = fn;
	ir->warn_arg = arg;
}

/* --sweep POLICY.PARAM=FROM:TO:STEP */
static int parse_sweep(const char *arg, struct ir_policy_params *base, char *param, size_t plen,
		       uint64_t *from, uint64_t *to, uint64_t *step, char *err, size_t errlen)
{
	const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
	char name[64], range[128], *c1, *c2;

	/* a base with parameters ("proportional:seeds=8.cost_scale=..."):
	 * the swept one's '=' follows the dot */
	if (dot && eq && eq < dot)
		eq = strchr(dot, '=');

	if (!dot || !eq || eq < dot || (size_t)(dot - arg) >= sizeof(name) ||
	    (size_t)(eq - dot - 1) >= plen || strlen(eq + 1) >= sizeof(range)) {
		snprintf(err, errlen, "bad --sweep '%s' (expected POLICY.PARAM=FROM:TO:STEP)", arg);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(dot - arg), arg);
	snprintf(param, plen, "%.*s", (int)(eq - dot - 1), dot + 1);
	snprintf(range, sizeof(range), "%s", eq + 1);
	if (ir_policy_parse(name, base, err, errlen))
		return -1;
	c1 = strchr(range, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2) {
		snprintf(err, errlen, "bad --sweep range '%s' (expected FROM:TO:STEP)", eq + 1);
		return -1;
	}
	*c1 = *c2 = 0;
	if (ir_parse_ns(range, from) || ir_parse_ns(c1 + 1, to) || ir_parse_ns(c2 + 1, step) ||
	    !*step || *to < *from) {
		snprintf(err, errlen, "bad --sweep range '%s' (FROM <= TO, STEP > 0)", eq + 1);
		return -1;
	}
	if ((*to - *from) / *step >= 1000) {
		snprintf(err, errlen, "--sweep '%s' has more than 1000 points", arg);
		return -1;
	}
	return ir_policy_set(base, param, *from, err, errlen);
}

static int set_string(struct idlereplay *ir, char **slot, const char *value)
{
	char *s = strdup(value);

	if (!s)
		return ir_engine_fail(ir, IR_ERR_INPUT, "out of memory");
	free(*slot);
	*slot = s;
	return IR_OK;
}

static int set_duration(struct idlereplay *ir, const char *name, const char *value)
{
	uint64_t v;

	if (ir_parse_ns(value, &v))
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad duration '%s' for --%s (" IR_DURATION_RANGE ")", value, name);
	if (!strcmp(name, "migration-cost")) {
		ir->sp.sched_migration_cost = v;
		ir->mc_set = true;
	} else if (!strcmp(name, "max-idle-balance-cost")) {
		ir->sp.max_idle_balance_cost = v;
	} else if (!strcmp(name, "tick")) {
		ir->sp.tick_ns = v;
		ir->tick_set = true;
	} else if (!strcmp(name, "balance-interval")) {
		ir->sp.balance_interval_ns = v;
	} else if (!strcmp(name, "lookahead-max")) {
		ir->sp.lookahead_max_ns = v;
	} else if (!strcmp(name, "refill")) {
		ir->cl_refill_ns = v;
		ir->cl_refill_set = true;
	} else {
		ir->sp.newidle_lead_ns = v;
	}
	return IR_OK;
}

static int set_detail(struct idlereplay *ir, const char *value)
{
	char off[64];
	const char *colon = strchr(value, ':');

	if (!colon || (size_t)(colon - value) >= sizeof(off))
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --detail '%s' (OFFSET:LENGTH)", value);
	snprintf(off, sizeof(off), "%.*s", (int)(colon - value), value);
	if (ir_parse_ns(off, &ir->detail_off) || ir_parse_ns(colon + 1, &ir->detail_len) || !ir->detail_len)
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --detail '%s' (OFFSET:LENGTH)", value);
	ir->want_timeline = true;
	return IR_OK;
}

/* sd->busy_factor (sd_init(): 16), get_sd_balance_interval() */
static int set_busy_factor(struct idlereplay *ir, const char *value)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || end == value || *end || *value == '-' || v < 1 || v > 1024)
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --busy-factor '%s' (an integer, 1 to 1024)", value);
	ir->sp.busy_factor = (uint32_t)v;
	return IR_OK;
}

static int set_max_lost(struct idlereplay *ir, const char *value)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end || !(v >= 0 && v <= 100))
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --max-lost '%s' (a percentage, 0 to 100)", value);
	ir->max_lost = v;
	return IR_OK;
}

/* --perfetto-sim-max: records (slices, newidle calls, migrations) kept per
 * simulated schedule; bounds the export's memory and size */
static int set_pf_sim_max(struct idlereplay *ir, const char *value)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno || end == value || *end || *value == '-' || v > 100000000ull)
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --perfetto-sim-max '%s' (an integer, 0 to 100000000)", value);
	ir->pf_sim_max = v;
	return IR_OK;
}

/* --sim-seeds: the closed loop simulates a randomised policy (NI_RANDOM's
 * dice) once per seed, seed .. seed + N - 1, and reports the mean and the
 * 5-95 % spread */
static int set_sim_seeds(struct idlereplay *ir, const char *value)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || end == value || *end || *value == '-' || v < 1 || v > IR_CL_MAX_SEEDS)
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --sim-seeds '%s' (an integer, 1 to %d)", value,
				      IR_CL_MAX_SEEDS);
	ir->cl_sim_seeds = (unsigned)v;
	return IR_OK;
}

static int set_policy(struct idlereplay *ir, const char *value)
{
	char err[1024];

	if (ir->nr_policy_args == IR_MAX_RUNS)
		return ir_engine_fail(ir, IR_ERR_USAGE, "too many --policy options");
	if (ir_policy_parse(value, &ir->runs[ir->nr_policy_args].p, err, sizeof(err)))
		return ir_engine_fail(ir, IR_ERR_USAGE, "--policy %s: %s", value, err);
	ir->nr_policy_args++;
	return IR_OK;
}

static int set_sweep(struct idlereplay *ir, const char *value)
{
	struct ir_sweep_arg *s = &ir->sweep_args[ir->nr_sweep_args];
	char err[1024];

	if (ir->nr_sweep_args == IR_MAX_SWEEPS)
		return ir_engine_fail(ir, IR_ERR_USAGE, "too many --sweep options (%d at most)", IR_MAX_SWEEPS);
	if (parse_sweep(value, &s->base, s->param, sizeof(s->param), &s->from, &s->to, &s->step,
			err, sizeof(err)))
		return ir_engine_fail(ir, IR_ERR_USAGE, "%s", err);
	ir->nr_sweep_args++;
	return IR_OK;
}

int idlereplay_set(idlereplay *ir, const char *name, const char *value)
{
	static const char *const durations[] = {
		"migration-cost", "max-idle-balance-cost", "tick", "newidle-lead", "balance-interval",
		"refill", "lookahead-max",
	};
	static const char *const flags[] = { "probe-seed", "timeline", "allow-lost", "closed-loop",
					      "no-sync-wakeups" };

	if (!strcmp(name, "lookahead-share")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = value ? strtoul(value, &end, 10) : 0;
		if (!value || errno || end == value || *end || *value == '-' || v > 100)
			return ir_engine_fail(ir, IR_ERR_USAGE, "bad --lookahead-share '%s' (a percent, 1 to 100; "
					      "0: measured from the trace's pulling calls)", value ? value : "");
		ir->sp.lookahead_share = (unsigned)v;
		return IR_OK;
	}
	bool flag = false;

	ir->err[0] = 0;
	if (!strcmp(name, "late-window"))
		return ir_engine_fail(ir, IR_ERR_USAGE, "--late-window is gone: a task queued before the blocking "
				      "switch was already queued when pick_next_task() ran (the rq lock is held from "
				      "deactivate_task()), so it is never a newidle point");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		flag |= !strcmp(name, flags[i]);
	if (flag != !value)
		return ir_engine_fail(ir, IR_ERR_USAGE, flag ? "--%s takes no value" : "--%s needs a value", name);
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
		if (!strcmp(name, durations[i]))
			return set_duration(ir, name, value);
	if (!strcmp(name, "probe-seed")) {
		ir->sp.probe_seed = true;
		return IR_OK;
	}
	if (!strcmp(name, "timeline")) {
		ir->want_timeline = true;
		return IR_OK;
	}
	if (!strcmp(name, "closed-loop")) {
		ir->closed_loop = true;
		return IR_OK;
	}
	if (!strcmp(name, "allow-lost")) {
		ir->allow_lost = true;
		return IR_OK;
	}
	if (!strcmp(name, "no-sync-wakeups")) {
		ir->cl_no_sync = true;
		return IR_OK;
	}
	if (!strcmp(name, "max-lost"))
		return set_max_lost(ir, value);
	if (!strcmp(name, "busy-factor"))
		return set_busy_factor(ir, value);
	if (!strcmp(name, "perfetto-sim-max"))
		return set_pf_sim_max(ir, value);
	if (!strcmp(name, "sim-seeds"))
		return set_sim_seeds(ir, value);
	if (!strcmp(name, "idle-exit")) {
		if (!strcmp(value, "median") || !strcmp(value, "trace")) {
			ir->cl_idle_exit_median = !strcmp(value, "median");
			return IR_OK;
		}
		return ir_engine_fail(ir, IR_ERR_USAGE, "bad --idle-exit '%s' (median or trace)", value);
	}
	if (!strcmp(name, "buffer"))
		return set_string(ir, &ir->buffer, value);
	if (!strcmp(name, "detail"))
		return set_detail(ir, value);
	if (!strcmp(name, "policy"))
		return set_policy(ir, value);
	if (!strcmp(name, "sweep"))
		return set_sweep(ir, value);
	if (!strcmp(name, "html")) {
		ir->want_timeline = true;
		return set_string(ir, &ir->html_path, value);
	}
	if (!strcmp(name, "json"))
		return set_string(ir, &ir->json_path, value);
	if (!strcmp(name, "decisions"))
		return set_string(ir, &ir->decisions_path, value);
	if (!strcmp(name, "perfetto"))
		return set_string(ir, &ir->perfetto_path, value);
	if (!strcmp(name, "topology"))
		return set_string(ir, &ir->topo_arg, value);
	if (!strcmp(name, "reference"))
		return set_string(ir, &ir->reference, value);
	if (!strcmp(name, "kernel-policy"))
		return set_string(ir, &ir->kernel_policy, value);
	return ir_engine_fail(ir, IR_ERR_USAGE, "unknown option '%s'", name);
}
