/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tests/unit/domains.h: the sched domains of a topology spec
 * ("sockets=1,cores=2,threads=2"), for the unit tests that build them
 * (include after <cmocka.h>: a bad spec fails the test).
 */
#ifndef IDLEREPLAY_TESTS_UNIT_DOMAINS_H
#define IDLEREPLAY_TESTS_UNIT_DOMAINS_H

#include "model/model.h"

static inline struct ir_domains *ut_domains(const char *spec)
{
	struct ir_topology *t = NULL;
	struct ir_domains *d;

	assert_int_equal(ir_topology_from_arg(spec, &t, NULL, 0), 0);
	d = ir_domains_build(t, NULL, 0);
	ir_topology_free(t);
	assert_non_null(d);
	return d;
}

#endif
