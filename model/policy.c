/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Policy names, parameters and their defaults.  The kernel defaults:
 * sysctl_sched_migration_cost = 500000 ns (kernel/sched/fair.c, all
 * versions); the RFC's per-domain sd->sched_migration_cost (Feb 2018
 * "sched: Make idle_balance smarter about topology", patches 1/2 and 2/2
 * and the cover letter; SPEC section 1).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cpumask.h"

#define US 1000ull
#define MS 1000000ull

static const char *const policy_names[IR_POL__COUNT] = {
	"baseline", "domain-cost", "no-check", "mainline", "bump", "proportional",
};

const char *const ir_bail_name[IR_BAIL__COUNT] = {
	"none", "not_overloaded", "migration_cost", "lowest_cost", "ttwu_pending",
};

/* Lower-case level names used in parameter keys ("mc.max_newidle_lb_cost"). */
static const char *const level_key[IR_LVL__COUNT] = { "smt", "cls", "mc", "pkg", "node", "numa" };

/*
 * ASSUMED sd->max_newidle_lb_cost per level.  A plain trace does not show
 * it (SPEC 3: it is a monotone max of measured load_balance() durations,
 * decaying 1% a second).  These are the order of one newidle
 * load_balance() on bare-metal x86: a few us for an SMT pair, growing with
 * the span scanned (update_sd_lb_stats() walks every CPU's rq) and with
 * remote-cache misses across sockets.  The emulated vm-numa guest measured
 * 30-250 us per level (TCG is slow), so users must set them for their
 * machine: every report prints them.
 */
static const uint64_t default_max_newidle_lb_cost[IR_LVL__COUNT] = {
	[IR_LVL_SMT] = 5 * US, [IR_LVL_CLS] = 10 * US, [IR_LVL_MC] = 20 * US,
	[IR_LVL_PKG] = 30 * US, [IR_LVL_NODE] = 50 * US, [IR_LVL_NUMA] = 100 * US,
};

/* domain-cost presets: per-level sd->sched_migration_cost, SMT..NUMA. */
struct preset {
	const char *name;
	uint64_t cost[IR_LVL__COUNT];
	bool others_sysctl;	/* PKG/NODE/NUMA follow sysctl_sched_migration_cost */
};
static const struct preset presets[] = {
	/* the re-tested "domain based" numbers (the default) */
	{ "retest", { 0, 500 * US, 500 * US, 500 * US, 500 * US, 500 * US }, false },
	/* cover letter: SMT 0, across cores 50 us, across sockets 500 us */
	{ "cover", { 0, 50 * US, 50 * US, 500 * US, 500 * US, 500 * US }, false },
	/* patch 1/2 as coded: 0 / 500 us / 5000 us (the 10x slip) */
	{ "rfc1", { 0, 500 * US, 500 * US, 5 * MS, 5 * MS, 5 * MS }, false },
	/* patch 2/2 sysctls: thread 0, core 500 us, others the sysctl */
	{ "sysctl", { 0, 500 * US, 500 * US, 0, 0, 0 }, true },
};


const char *ir_level_key(enum ir_level_kind kind)
{
	return (unsigned)kind < IR_LVL__COUNT ? level_key[kind] : "?";
}

const char *ir_policy_name(enum ir_policy_kind kind)
{
	return (unsigned)kind < IR_POL__COUNT ? policy_names[kind] : "?";
}

static void apply_preset(struct ir_policy_params *p, const struct preset *ps)
{
	for (int l = 0; l < IR_LVL__COUNT; l++)
		p->sd_migration_cost[l] = ps->others_sysctl && l >= IR_LVL_PKG ?
					  p->sysctl_sched_migration_cost : ps->cost[l];
}

void ir_policy_defaults(enum ir_policy_kind kind, struct ir_policy_params *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	snprintf(p->label, sizeof(p->label), "%s", ir_policy_name(kind));
	p->sysctl_sched_migration_cost = 500 * US;
	memcpy(p->max_newidle_lb_cost, default_max_newidle_lb_cost, sizeof(p->max_newidle_lb_cost));
	apply_preset(p, &presets[0]);
	p->seed = 1;
	/* load_balance(): the 2018 policies patch v4.15; the others follow
	 * v5.19+ (7d2b5dd0bcc4) and the SMT task_hot() exemption (v5.10,
	 * ec73240b1627) */
	p->lb_release = kind == IR_POL_BASELINE || kind == IR_POL_DOMAIN_COST || kind == IR_POL_NO_CHECK ?
			415 : 519;
	p->smt_never_hot = p->lb_release >= 510;
	p->preemption = 1;	/* distribution kernels: PREEMPT_DYNAMIC implies CONFIG_PREEMPTION */
	p->nr_balance_failed = 0;
	p->ni_random = 1;
	p->seeds = kind == IR_POL_PROPORTIONAL ? 32 : 1;
	p->newidle_ratio = 512;
	p->cost_scale = 1000;
}

enum ir_lb_rules ir_lb_rules_of(const struct ir_policy_params *p)
{
	return p->lb_release < 505 ? IR_LB_V415 : p->lb_release < 519 ? IR_LB_V516 : IR_LB_V519;
}

void ir_lb_env_init(struct ir_lb_env *env, const struct ir_policy_params *p, const struct ir_domains *dom,
		    const struct ir_point *pt, enum ir_lb_idle idle)
{
	*env = (struct ir_lb_env){
		.dom = dom, .pt = pt, .idle = idle, .rules = ir_lb_rules_of(p),
		.now = pt->rq_ts ? pt->rq_ts : pt->ts,
		.sysctl_sched_migration_cost = p->sysctl_sched_migration_cost,
		.nr_balance_failed = (unsigned)p->nr_balance_failed,
		/* detach_tasks(): "#ifdef CONFIG_PREEMPTION ... if (env->idle ==
		 * CPU_NEWLY_IDLE) break" (v6.1; since v4.13) */
		.preemption = p->preemption != 0 && idle == IR_CPU_NEWLY_IDLE,
		.smt_never_hot = p->smt_never_hot != 0,
		.llc_spread = p->lb_release >= 510, .load_shift = p->lb_release >= 510,
		.imbalance_pct_117 = p->lb_release >= 510,
		.numa_allow_inclusive = p->lb_release >= 519,
		/* a newidle balance runs before context_switch(): rq->curr is
		 * still prev, so idle_cpu(this CPU) is false; a periodic one sees
		 * the CPU as it is (busy: it runs a task) */
		.this_cpu_busy = idle != IR_CPU_IDLE,
		.runnable_classify = p->lb_release >= 507, .util_est = p->lb_release >= 417,
		.pelt_load = p->lb_release >= 507,
		/* load_balance()'s LBF_ALL_PINNED redo: v4.15 through v6.1 and on */
		.all_pinned_redo = true,
	};
}

void ir_lb_env_level(struct ir_lb_env *env, const struct ir_policy_params *p, int level)
{
	env->level = level;
	env->nr_balance_failed = env->pt->nr_balance_failed && level >= 0 && level < IR_MAX_LEVELS ?
		env->pt->nr_balance_failed[level] : (unsigned)p->nr_balance_failed;
}

/* The parameter a key names, or NULL. */
static uint64_t *param_slot(struct ir_policy_params *p, const char *key)
{
	const char *dot = strchr(key, '.');

	if (!strcmp(key, "sysctl_sched_migration_cost"))
		return &p->sysctl_sched_migration_cost;
	static const struct { const char *key; size_t off; } plain[] = {
		{ "seed", offsetof(struct ir_policy_params, seed) },
		{ "seeds", offsetof(struct ir_policy_params, seeds) },
		{ "lb_release", offsetof(struct ir_policy_params, lb_release) },
		{ "preemption", offsetof(struct ir_policy_params, preemption) },
		{ "smt_never_hot", offsetof(struct ir_policy_params, smt_never_hot) },
		{ "nr_balance_failed", offsetof(struct ir_policy_params, nr_balance_failed) },
		{ "ni_random", offsetof(struct ir_policy_params, ni_random) },
		{ "newidle_ratio", offsetof(struct ir_policy_params, newidle_ratio) },
		{ "cost_scale", offsetof(struct ir_policy_params, cost_scale) },
	};

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(key, plain[i].key))
			return (uint64_t *)((char *)p + plain[i].off);
	if (!dot)
		return NULL;
	for (int l = 0; l < IR_LVL__COUNT; l++) {
		size_t n = strlen(level_key[l]);

		if ((size_t)(dot - key) != n || strncasecmp(key, level_key[l], n))
			continue;
		if (!strcmp(dot + 1, "max_newidle_lb_cost"))
			return &p->max_newidle_lb_cost[l];
		if (!strcmp(dot + 1, "migration_cost") || !strcmp(dot + 1, "sched_migration_cost"))
			return &p->sd_migration_cost[l];
	}
	return NULL;
}

/* The parameters each policy reads (model/decide.c, model/outcome.c,
 * model/lb.c): sysctl_sched_migration_cost in every policy (task_hot() in
 * load_balance() reads it; also 4.15's early bail, the RFC's "sysctl"
 * preset, bump's cap), the per-level migration_cost only in domain-cost, the NI_RANDOM draw and
 * its seeds only in proportional; the costs' scale and the load_balance()
 * rules in every policy. */
#define LB_PARAMS "cost_scale, lb_release, preemption, smt_never_hot, nr_balance_failed"
static const char *valid_params(enum ir_policy_kind kind)
{
	switch (kind) {
	case IR_POL_DOMAIN_COST:
		return "preset, sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, LEVEL.migration_cost, " LB_PARAMS;
	case IR_POL_PROPORTIONAL:
		return "sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, seed, seeds, ni_random, newidle_ratio, "
			LB_PARAMS;
	default:
		return "sysctl_sched_migration_cost, LEVEL.max_newidle_lb_cost, " LB_PARAMS;
	}
}

static bool applies(const struct ir_policy_params *p, const char *key, const uint64_t *slot)
{
	if (slot == &p->seed || slot == &p->seeds || slot == &p->ni_random || slot == &p->newidle_ratio)
		return p->kind == IR_POL_PROPORTIONAL;
	if (slot == &p->cost_scale || slot == &p->lb_release || slot == &p->preemption ||
	    slot == &p->smt_never_hot || slot == &p->nr_balance_failed ||
	    slot == &p->sysctl_sched_migration_cost)
		return true;
	if (!strstr(key, "max_newidle"))	/* LEVEL.migration_cost */
		return p->kind == IR_POL_DOMAIN_COST;
	return true;
}

int ir_policy_set(struct ir_policy_params *p, const char *key, uint64_t value, char *err, size_t errlen)
{
	uint64_t *v = param_slot(p, key);

	if (!v || !applies(p, key, v)) {
		ir_seterr(err, errlen, "policy %s: %s '%s' (%s takes %s; LEVEL is smt, cls, mc, pkg, node or numa)",
			  ir_policy_name(p->kind), v ? "no parameter" : "unknown parameter", key,
			  ir_policy_name(p->kind), valid_params(p->kind));
		return IR_ERR_USAGE;
	}
	*v = value;
	return 0;
}

int ir_policy_get(const struct ir_policy_params *p, const char *key, uint64_t *value)
{
	uint64_t *v = param_slot((struct ir_policy_params *)p, key);

	if (!v)
		return -1;
	*value = *v;
	return 0;
}

/* "500us", "0.5ms", "2s", "1500" (ns): every duration option and parameter. */
int ir_parse_ns(const char *s, uint64_t *out)
{
	return ir_parse_duration(s, 1, out);
}

int ir_parse_duration(const char *s, uint64_t unit_ns, uint64_t *out)
{
	static const struct { const char *sfx; double mul; } sfx[] = {
		{ "", 0 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno)
		return -1;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (!strcmp(end, sfx[i].sfx)) {
			v *= sfx[i].mul ? sfx[i].mul : (double)unit_ns;
			if (v > 1e18)
				return -1;
			*out = (uint64_t)(v + 0.5);
			return 0;
		}
	return -1;
}

int ir_policy_parse(const char *arg, struct ir_policy_params *p, char *err, size_t errlen)
{
	const char *colon = strchr(arg, ':');
	size_t nlen = colon ? (size_t)(colon - arg) : strlen(arg);
	const struct preset *preset = NULL;
	uint64_t explicit = 0;	/* levels whose migration_cost was given */
	char *opts, *save = NULL;
	int kind = -1, rc = 0;

	for (int k = 0; k < IR_POL__COUNT; k++)
		if (strlen(policy_names[k]) == nlen && !strncmp(arg, policy_names[k], nlen))
			kind = k;
	if (kind < 0) {
		ir_seterr(err, errlen, "unknown policy '%.*s' (baseline, domain-cost, no-check, mainline, "
		       "bump, proportional)", (int)nlen, arg);
		return IR_ERR_USAGE;
	}
	ir_policy_defaults((enum ir_policy_kind)kind, p);
	snprintf(p->label, sizeof(p->label), "%s", arg);
	if (!colon)
		return 0;
	opts = strdup(colon + 1);
	if (!opts)
		return IR_ERR_USAGE;
	/* the preset first, wherever it is, so explicit values override it */
	for (char *kv = strtok_r(opts, ",", &save); kv && !rc; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		uint64_t v;

		if (!eq || eq == kv) {
			ir_seterr(err, errlen, "policy %s: expected key=value, got '%s'", policy_names[kind], kv);
			rc = IR_ERR_USAGE;
			break;
		}
		*eq++ = '\0';
		if (!strcmp(kv, "preset")) {
			if (kind != IR_POL_DOMAIN_COST) {
				ir_seterr(err, errlen, "policy %s: no parameter 'preset' (%s takes %s; presets are domain-cost's)",
					  policy_names[kind], policy_names[kind], valid_params((enum ir_policy_kind)kind));
				rc = IR_ERR_USAGE;
				break;
			}
			preset = NULL;
			for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
				if (!strcmp(eq, presets[i].name))
					preset = &presets[i];
			if (!preset) {
				ir_seterr(err, errlen, "policy %s: unknown preset '%s' (retest, cover, rfc1, sysctl)",
				       policy_names[kind], eq);
				rc = IR_ERR_USAGE;
			}
			continue;
		}
		if (ir_parse_ns(eq, &v)) {
			ir_seterr(err, errlen, "policy %s: bad value '%s' for %s (ns, or with ns/us/ms/s)",
			       policy_names[kind], eq, kv);
			rc = IR_ERR_USAGE;
			break;
		}
		rc = ir_policy_set(p, kv, v, err, errlen);
		for (int l = 0; !rc && l < IR_LVL__COUNT; l++) {
			size_t n = strlen(level_key[l]);
			if (!strncasecmp(kv, level_key[l], n) && kv[n] == '.' && strstr(kv, "migration_cost") &&
			    !strstr(kv, "max_newidle"))
				explicit |= 1u << l;
		}
	}
	if (!rc && preset) {
		uint64_t keep[IR_LVL__COUNT];

		memcpy(keep, p->sd_migration_cost, sizeof(keep));
		apply_preset(p, preset);
		for (int l = 0; l < IR_LVL__COUNT; l++)
			if (explicit & (1u << l))
				p->sd_migration_cost[l] = keep[l];
	}
	free(opts);
	return rc;
}

int ir_policy_params_format(const struct ir_policy_params *p, char *buf, size_t len)
{
	size_t n = 0;

#define PUT(...) do { \
		int w_ = snprintf(buf + n, len > n ? len - n : 0, __VA_ARGS__); \
		if (w_ < 0) return -1; \
		n += (size_t)w_; \
	} while (0)
	if (len)
		buf[0] = '\0';
	PUT("sysctl_sched_migration_cost=%llu", (unsigned long long)p->sysctl_sched_migration_cost);
	for (int l = 0; l < IR_LVL__COUNT; l++)
		PUT(",%s.max_newidle_lb_cost=%llu", level_key[l], (unsigned long long)p->max_newidle_lb_cost[l]);
	if (p->kind == IR_POL_DOMAIN_COST)
		for (int l = 0; l < IR_LVL__COUNT; l++)
			PUT(",%s.migration_cost=%llu", level_key[l], (unsigned long long)p->sd_migration_cost[l]);
	if (p->cost_scale != 1000)
		PUT(",cost_scale=%llu", (unsigned long long)p->cost_scale);
	PUT(",lb_release=%llu,preemption=%llu,smt_never_hot=%llu,nr_balance_failed=%llu",
	    (unsigned long long)p->lb_release, (unsigned long long)p->preemption,
	    (unsigned long long)p->smt_never_hot, (unsigned long long)p->nr_balance_failed);
	if (p->kind == IR_POL_PROPORTIONAL)
		PUT(",ni_random=%llu,seed=%llu,seeds=%llu", (unsigned long long)p->ni_random,
		    (unsigned long long)p->seed, (unsigned long long)p->seeds);
	if (p->kind == IR_POL_PROPORTIONAL && p->newidle_ratio != 512)
		PUT(",newidle_ratio=%llu", (unsigned long long)p->newidle_ratio);
#undef PUT
	return n < len ? 0 : -1;
}
