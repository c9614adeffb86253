/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * examples/pulls.c: replay a trace with one policy and print how many tasks
 * it would have pulled at newidle points, using only the public API.
 *
 *   cc pulls.c $(pkg-config --cflags --libs idlereplay) -o pulls
 *   ./pulls trace.dat domain-cost:preset=cover
 *
 * Prints "LABEL pulls N" (policies[].pulls.total of the report document).
 */
#include <stdio.h>
#include <string.h>

#include <idlereplay.h>
#include <json-c/json.h>

static void progress(void *arg, uint64_t events, uint64_t total)
{
	(void)arg;
	(void)events;
	(void)total;	/* a GUI would move a bar here */
}

int main(int argc, char **argv)
{
	idlereplay *ir;
	json_object *policies, *p, *v;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s TRACE POLICY[:key=value,...]\n", argv[0]);
		return 1;
	}
	ir = idlereplay_new();
	if (!ir) {
		fprintf(stderr, "out of memory\n");
		return 2;
	}
	ret = idlereplay_set(ir, "policy", argv[2]);
	if (!ret)
		ret = idlereplay_open(ir, argv[1]);
	if (!ret)
		ret = idlereplay_run(ir, progress, NULL);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[0], idlereplay_error(ir));
		idlereplay_free(ir);
		return ret;
	}
	/* the one policy replayed is the document's first */
	if (json_object_object_get_ex(idlereplay_report(ir), "policies", &policies) &&
	    (p = json_object_array_get_idx(policies, 0)) && json_object_object_get_ex(p, "pulls", &v) &&
	    json_object_object_get_ex(v, "total", &v))
		printf("%s pulls %lld\n", argv[2], (long long)json_object_get_int64(v));
	else
		ret = 2;
	idlereplay_free(ir);
	return ret;
}
