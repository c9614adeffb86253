/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/probe_btf.c on hand-built BTF: offsets added through embedded and
 * anonymous members, pointers followed (rq -> rd, rq -> sd -> parent),
 * typedefs and __rcu type tags skipped, sizes and signedness from the int
 * types, the this_rq register from the prototype, renamed members, fields
 * a kernel lacks left out, required ones refused.  Every expected string
 * is written by hand from the layout built here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <bpf/btf.h>

#include "record/probe_btf.h"

struct layout {
	bool ttwu_pending;	/* rq.ttwu_pending exists */
	bool new_names;		/* h_nr_queued / overloaded (v6.14 / v6.10) */
	bool ratio;		/* sched_domain.newidle_ratio (NI_RANDOM) */
	bool rq_first;		/* f(struct rq *, struct rq_flags *) or the reverse */
	bool no_avg_idle;
};

/* BTF with: u32, int, u64, bool(u8); struct sched_domain, root_domain,
 * cfs_rq, rq_flags, rq; FUNC newidle_balance. */
static struct btf *build(const struct layout *l)
{
	struct btf *b = btf__new_empty();
	int u32, s32, u64, u8, sd, sd_ptr, sd_tag, sd_tdef, rd, rd_ptr, cfs, rqf, rqf_ptr;
	int anon, rq, rq_ptr, proto;

	assert_non_null(b);
	u32 = btf__add_int(b, "unsigned int", 4, 0);
	s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	u8 = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);

	/* Fields go to the last type added: the self-pointer comes first,
	 * naming the struct's id-to-be. */
	sd_ptr = btf__add_ptr(b, (int)btf__type_cnt(b) + 1);
	sd = btf__add_struct(b, "sched_domain", 128);
	assert_int_equal(sd, sd_ptr + 1);
	assert_int_equal(btf__add_field(b, "parent", sd_ptr, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "child", sd_ptr, 64, 0), 0);
	if (l->ratio)
		assert_int_equal(btf__add_field(b, "newidle_ratio", u32, 96 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "max_newidle_lb_cost", u64, 104 * 8, 0), 0);
	/* struct sched_domain __rcu *sd: a type tag on the pointee, via a typedef */
	sd_tag = btf__add_type_tag(b, "rcu", sd);
	sd_ptr = btf__add_ptr(b, sd_tag);
	sd_tdef = btf__add_typedef(b, "sd_ptr_t", sd_ptr);

	rd = btf__add_struct(b, "root_domain", 64);
	assert_int_equal(btf__add_field(b, l->new_names ? "overloaded" : "overload",
					l->new_names ? u8 : s32, 40 * 8, 0), 0);
	rd_ptr = btf__add_ptr(b, rd);
	rqf = btf__add_struct(b, "rq_flags", 16);
	rqf_ptr = btf__add_ptr(b, rqf);

	cfs = btf__add_struct(b, "cfs_rq", 64);
	assert_int_equal(btf__add_field(b, "nr_running", u32, 16 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, l->new_names ? "h_nr_queued" : "h_nr_running",
					u32, 20 * 8, 0), 0);

	/* an anonymous struct at 3000 holding avg_idle at +8 */
	anon = btf__add_struct(b, NULL, 32);
	assert_int_equal(btf__add_field(b, "idle_stamp", u64, 0, 0), 0);
	if (!l->no_avg_idle)
		assert_int_equal(btf__add_field(b, "avg_idle", u64, 8 * 8, 0), 0);

	rq_ptr = btf__add_ptr(b, (int)btf__type_cnt(b) + 1);
	rq = btf__add_struct(b, "rq", 4096);
	assert_int_equal(btf__add_field(b, "nr_running", u32, 4 * 8, 0), 0);
	/* a bitfield of the same name as a wanted one would be unfetchable */
	if (l->ttwu_pending)
		assert_int_equal(btf__add_field(b, "ttwu_pending", u32, 104 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "cfs", cfs, 128 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "rd", rd_ptr, 2560 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "sd", sd_tdef, 2568 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "cpu", s32, 2672 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, NULL, anon, 3000 * 8, 0), 0);
	assert_int_equal(btf__add_field(b, "max_idle_balance_cost", u64, 2912 * 8, 0), 0);
	assert_int_equal(rq, rq_ptr + 1);

	proto = btf__add_func_proto(b, s32);
	if (l->rq_first) {
		assert_int_equal(btf__add_func_param(b, "this_rq", rq_ptr), 0);
		assert_int_equal(btf__add_func_param(b, "rf", rqf_ptr), 0);
	} else {
		assert_int_equal(btf__add_func_param(b, "rf", rqf_ptr), 0);
		assert_int_equal(btf__add_func_param(b, "this_rq", rq_ptr), 0);
	}
	assert_true(btf__add_func(b, "newidle_balance", BTF_FUNC_STATIC, proto) > 0);
	return b;
}

/* The vm-* traces' kernel (6.1.192 Debian, NI_RANDOM backport) as its
 * recipe wrote the probe by hand: the same strings must come out. */
static void test_v61_layout(void **state)
{
	struct layout l = { .ttwu_pending = true, .ratio = true, .rq_first = true };
	struct btf *b = build(&l);
	struct rec_probe_spec s;
	char err[256] = "";

	(void)state;
	assert_int_equal(rec_probe_btf_spec(b, "newidle_balance", "x86_64", 3, &s, err, sizeof(err)), 0);
	assert_string_equal(s.rq_reg, "%di");
	assert_string_equal(s.args,
		"cpu=+2672(%di):s32 nr_running=+4(%di):u32 cfs_h_nr_running=+148(%di):u32 "
		"ttwu_pending=+104(%di):u32 avg_idle=+3008(%di):u64 "
		"max_idle_balance_cost=+2912(%di):u64 rd_overload=+40(+2560(%di)):s32 "
		"sd0_max_newidle_lb_cost=+104(+2568(%di)):u64 "
		"sd1_max_newidle_lb_cost=+104(+0(+2568(%di))):u64 "
		"sd2_max_newidle_lb_cost=+104(+0(+0(+2568(%di)))):u64 "
		"sd0_newidle_ratio=+96(+2568(%di)):u32 "
		"sd1_newidle_ratio=+96(+0(+2568(%di))):u32 "
		"sd2_newidle_ratio=+96(+0(+0(+2568(%di)))):u32");
	assert_string_equal(s.missing, "");
	btf__free(b);
}

/* Newer names, no NI_RANDOM, this_rq second (aarch64: x1), one level;
 * an older kernel's missing ttwu_pending left out and named. */
static void test_renames_and_missing(void **state)
{
	struct layout l = { .new_names = true };
	struct btf *b = build(&l);
	struct rec_probe_spec s;
	char err[256] = "";

	(void)state;
	assert_int_equal(rec_probe_btf_spec(b, "newidle_balance", "aarch64", 1, &s, err, sizeof(err)), 0);
	assert_string_equal(s.rq_reg, "%x1");
	assert_int_equal(s.rq_arg, 1);
	assert_string_equal(s.args,
		"cpu=+2672(%x1):s32 nr_running=+4(%x1):u32 cfs_h_nr_running=+148(%x1):u32 "
		"avg_idle=+3008(%x1):u64 max_idle_balance_cost=+2912(%x1):u64 "
		"rd_overload=+40(+2560(%x1)):u8 sd0_max_newidle_lb_cost=+104(+2568(%x1)):u64");
	assert_string_equal(s.missing, "ttwu_pending sd0_newidle_ratio");
	assert_string_equal(s.present,
		"cpu nr_running cfs_h_nr_running avg_idle max_idle_balance_cost rd_overload "
		"sd0_max_newidle_lb_cost");
	btf__free(b);
}

/* No domain levels: no sdN fields at all. */
static void test_no_levels(void **state)
{
	struct layout l = { .rq_first = true, .ttwu_pending = true };
	struct btf *b = build(&l);
	struct rec_probe_spec s;
	char err[256] = "";

	(void)state;
	assert_int_equal(rec_probe_btf_spec(b, "newidle_balance", "x86_64", 0, &s, err, sizeof(err)), 0);
	assert_null(strstr(s.args, "sd0"));
	assert_null(strstr(s.missing, "sd0"));
	btf__free(b);
}

static void test_refusals(void **state)
{
	struct layout l = { .rq_first = true };
	struct btf *b = build(&l);
	struct rec_probe_spec s;
	char err[256] = "";

	(void)state;
	assert_int_equal(rec_probe_btf_spec(b, "sched_balance_newidle", "x86_64", 1, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "the kernel's BTF has no sched_balance_newidle");
	assert_int_equal(rec_probe_btf_spec(b, "newidle_balance", "riscv64", 1, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "no argument registers known for machine riscv64");
	btf__free(b);

	l.no_avg_idle = true;
	b = build(&l);
	assert_int_equal(rec_probe_btf_spec(b, "newidle_balance", "x86_64", 1, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "the kernel's BTF has no struct rq member for avg_idle");
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v61_layout),
		cmocka_unit_test(test_renames_and_missing),
		cmocka_unit_test(test_no_levels),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
