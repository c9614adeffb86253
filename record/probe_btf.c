/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The newidle probe's fetch-args, from the kernel's BTF (SPEC section 6).
 *
 * In:  a BTF (the running kernel's /sys/kernel/btf/vmlinux, or a test's),
 *      the newidle function's name, the machine (uname -m), the number of
 *      sched domain levels every CPU has.
 * Out: the kprobe argument string ("cpu=+2672(%di):s32 ..."), and which of
 *      the fields the replay reads this kernel has and lacks.
 *
 * Nothing is hard-coded but the field paths, named as the kernel names
 * them: offsets, sizes and signedness come from the BTF, pointers are
 * followed as "+OFF(...)" fetches (struct rq -> sd -> parent ...), and the
 * register holding this_rq is the position of the `struct rq *` parameter
 * in the function's BTF prototype.  Renamed members are tried newest first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "record/probe_btf.h"

/* Argument registers in calling-convention order, as kprobe_events names
 * them (Documentation/trace/kprobetrace.rst: %REG). */
static const struct {
	const char *machine;
	const char *regs[8];
} abi[] = {
	{ "x86_64", { "di", "si", "dx", "cx", "r8", "r9" } },		/* SysV AMD64 */
	{ "aarch64", { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" } },	/* AAPCS64 */
};

/* One recorded field: its event name and the member paths that hold it on
 * some release, newest first.  "." steps into an embedded struct, "->"
 * follows a pointer.  "%L" in a path is replaced by "->parent" L times
 * (sched domain level L above rq->sd). */
static const struct field {
	const char *name;
	const char *paths[3];
	bool required;
	bool per_level;
} fields[] = {
	{ "cpu", { "cpu" }, true, false },
	{ "nr_running", { "nr_running" }, false, false },
	/* v6.14 renamed cfs_rq.h_nr_running to h_nr_queued (same count). */
	{ "cfs_h_nr_running", { "cfs.h_nr_queued", "cfs.h_nr_running" }, false, false },
	/* v5.8 ("sched: Replace rq::wake_list"); absent before. */
	{ "ttwu_pending", { "ttwu_pending" }, false, false },
	{ "avg_idle", { "avg_idle" }, true, false },
	{ "max_idle_balance_cost", { "max_idle_balance_cost" }, true, false },
	/* v6.10 renamed root_domain.overload to overloaded. */
	{ "rd_overload", { "rd->overloaded", "rd->overload" }, false, false },
	{ "max_newidle_lb_cost", { "sd%L->max_newidle_lb_cost" }, false, true },
	/* "sched/fair: Proportional newidle balance" (NI_RANDOM) only. */
	{ "newidle_ratio", { "sd%L->newidle_ratio" }, false, true },
};

/* Skip typedefs and qualifiers (const, volatile, restrict, type tags such
 * as __rcu); returns the id of the underlying type, 0 if none. */
static __u32 skip_mods(const struct btf *btf, __u32 id)
{
	for (int i = 0; i < 32 && id; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		default:
			return id;
		}
	}
	return 0;
}

/* Member `name` of struct/union sid, searched through anonymous members
 * too.  Sets *type (modifiers skipped) and *bits (offset from sid's start).
 * Bitfields are not fetchable as whole units: treated as absent. */
static bool find_member(const struct btf *btf, __u32 sid, const char *name,
			__u32 *type, __u32 *bits, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	const struct btf_member *m;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)) || depth > 8)
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 off = btf_member_bit_offset(t, (__u32)i);

		if (mn && *mn) {
			if (strcmp(mn, name) || btf_member_bitfield_size(t, (__u32)i))
				continue;
			*type = skip_mods(btf, m->type);
			*bits = off;
			return *type != 0;
		}
		if (find_member(btf, skip_mods(btf, m->type), name, type, bits, depth + 1)) {
			*bits += off;
			return true;
		}
	}
	return false;
}

/* ":u32" etc. for an integer (or enum, or bool) type; NULL if not one. */
static const char *fetch_type(const struct btf *btf, __u32 id)
{
	static const char *const u[] = { "u8", "u16", "u32", "u64" };
	static const char *const s[] = { "s8", "s16", "s32", "s64" };
	const struct btf_type *t = btf__type_by_id(btf, id);
	bool is_signed = false;
	__u32 size;
	int k;

	if (!t)
		return NULL;
	if (btf_is_int(t)) {
		if (btf_int_offset(t) || btf_int_bits(t) != t->size * 8)
			return NULL;
		is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	} else if (!btf_is_enum(t) && !btf_is_enum64(t)) {
		return NULL;
	}
	size = t->size;
	k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
	return k < 0 ? NULL : is_signed ? s[k] : u[k];
}

/* Build "+O2(+O1(%REG)):type" for path from struct sid; 0 ok, -1 absent. */
static int resolve_path(const struct btf *btf, __u32 sid, const char *path, const char *reg,
			char *out, size_t len)
{
	char base[512], name[64];
	const char *p = path;
	__u32 cur = sid, bits = 0;

	snprintf(base, sizeof(base), "%%%s", reg);
	for (;;) {
		size_t n = strcspn(p, ".-");
		__u32 type, off;
		const struct btf_type *t;

		if (n == 0 || n >= sizeof(name))
			return -1;
		memcpy(name, p, n);
		name[n] = '\0';
		if (!find_member(btf, cur, name, &type, &off, 0))
			return -1;
		bits += off;
		p += n;
		if (*p == '\0') {
			const char *ft = fetch_type(btf, type);

			if (!ft || bits % 8)
				return -1;
			return snprintf(out, len, "+%u(%s):%s", bits / 8, base, ft) < (int)len ? 0 : -1;
		}
		t = btf__type_by_id(btf, type);
		if (*p == '.') {		/* embedded struct */
			p++;
			cur = type;
		} else if (!strncmp(p, "->", 2)) {	/* follow the pointer */
			char next[512];

			if (!t || !btf_is_ptr(t) || bits % 8)
				return -1;
			if (snprintf(next, sizeof(next), "+%u(%s)", bits / 8, base) >= (int)sizeof(next))
				return -1;
			memcpy(base, next, sizeof(base));
			bits = 0;
			cur = skip_mods(btf, t->type);
			p += 2;
		} else {
			return -1;
		}
	}
}

/* Expand "%L" to L times "->parent". */
static void expand_level(const char *path, int level, char *out, size_t len)
{
	const char *l = strstr(path, "%L");
	size_t at = l ? (size_t)(l - path) : strlen(path);
	size_t n = 0;

	n += (size_t)snprintf(out, len, "%.*s", (int)at, path);
	for (int i = 0; l && i < level && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "->parent");
	if (l && n < len)
		snprintf(out + n, len - n, "%s", l + 2);
}

static void append(char *buf, size_t len, const char *word)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? " " : "", word);
}

/* Index of the first parameter of type `struct rq *`; -1 if none. */
static int rq_param(const struct btf *btf, __u32 func_id, __u32 rq_id)
{
	const struct btf_type *f = btf__type_by_id(btf, func_id);
	const struct btf_type *proto = f ? btf__type_by_id(btf, f->type) : NULL;
	const struct btf_param *p;

	if (!proto || !btf_is_func_proto(proto))
		return -1;
	p = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto); i++, p++) {
		const struct btf_type *t = btf__type_by_id(btf, skip_mods(btf, p->type));

		if (t && btf_is_ptr(t) && skip_mods(btf, t->type) == rq_id)
			return i;
	}
	return -1;
}

int rec_probe_btf_spec(const struct btf *btf, const char *func, const char *machine,
		       int sd_levels, struct rec_probe_spec *s, char *err, size_t len)
{
	const char *const *regs = NULL;
	int nregs = 0, fid, rid, arg;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(abi) / sizeof(abi[0]); i++)
		if (!strcmp(machine, abi[i].machine)) {
			regs = abi[i].regs;
			while (nregs < 8 && regs[nregs])
				nregs++;
		}
	if (!regs) {
		snprintf(err, len, "no argument registers known for machine %s", machine);
		return -1;
	}
	fid = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	rid = btf__find_by_name_kind(btf, "rq", BTF_KIND_STRUCT);
	if (fid <= 0 || rid <= 0) {
		snprintf(err, len, "the kernel's BTF has no %s", fid <= 0 ? func : "struct rq");
		return -1;
	}
	arg = rq_param(btf, (__u32)fid, (__u32)rid);
	if (arg < 0 || arg >= nregs) {
		snprintf(err, len, "%s has no struct rq * argument in a register (BTF prototype)", func);
		return -1;
	}
	snprintf(s->func, sizeof(s->func), "%s", func);
	snprintf(s->rq_reg, sizeof(s->rq_reg), "%%%s", regs[arg]);
	s->rq_arg = arg;
	if (sd_levels > REC_PROBE_MAX_LEVELS)
		sd_levels = REC_PROBE_MAX_LEVELS;
	s->sd_levels = sd_levels < 0 ? 0 : sd_levels;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];
		int levels = f->per_level ? s->sd_levels : 1;

		for (int l = 0; l < levels; l++) {
			char name[64], fetch[600], arg_text[700];
			bool ok = false;

			if (f->per_level)
				snprintf(name, sizeof(name), "sd%d_%s", l, f->name);
			else
				snprintf(name, sizeof(name), "%s", f->name);
			for (int k = 0; k < 3 && f->paths[k] && !ok; k++) {
				char path[256];

				expand_level(f->paths[k], l, path, sizeof(path));
				ok = resolve_path(btf, (__u32)rid, path, regs[arg], fetch, sizeof(fetch)) == 0;
			}
			if (!ok && f->required) {
				snprintf(err, len, "the kernel's BTF has no struct rq member for %s", f->name);
				return -1;
			}
			if (!ok) {
				append(s->missing, sizeof(s->missing), name);
				continue;
			}
			snprintf(arg_text, sizeof(arg_text), "%s=%s", name, fetch);
			if (strlen(s->args) + strlen(arg_text) + 2 > sizeof(s->args)) {
				snprintf(err, len, "probe arguments too long");
				return -1;
			}
			append(s->args, sizeof(s->args), arg_text);
			append(s->present, sizeof(s->present), name);
		}
	}
	return 0;
}
