/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fleet merge: many reports (one per host or trace) summarised per policy.
 * Streamed: ir_merge_add() keeps a few numbers per host and policy and the
 * document can be freed at once, so 10,000 reports need a few MB.
 *
 * Per policy: totals, the headline (report/headline.c) over the fleet, and
 * the distribution over hosts (median, p10, p90) of migrations avoided,
 * idle traded and the net effect; outliers are hosts beyond 3 x IQR from
 * the quartiles ("far out", Tukey).  Text, CSV and one HTML page.
 * Definitions: docs/report.md ("Fleet merge").
 *
 * Policies pair as in compare (report/fleet.c, ir_same_policy): the same
 * name and resolved parameters, never by name alone; a policy keeps the
 * label of the first report that has it.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

#define MAX_POLICIES 64
#define HTML_MAX_HOSTS 1000	/* host rows on the page; CSV and text have all */
#define MAX_OUTLIERS 10

enum kind { K_COUNT, K_NS };

/* observed, per host */
enum { O_CPUS, O_WINDOW, O_IDLE, O_IDLE_WAIT, O_POINTS, O_OPULLS, O_MIG, O_LOST, NOBS };
static const char *const obs_name[NOBS] = { "cpus", "window", "idle", "idle_waited", "newidle_points",
					    "newidle_pulls", "migrations", "lost_events" };
static const enum kind obs_kind[NOBS] = { K_COUNT, K_NS, K_NS, K_NS, K_COUNT, K_COUNT, K_COUNT, K_COUNT };

/* per host and policy */
enum { P_ATTEMPTS, P_PULLS, P_AVOIDED, P_LOST, P_TRADED, P_RECOVERED, P_COST, P_NET, NPOL };
static const char *const pol_name[NPOL] = { "attempts", "pulls", "avoided", "idle_lost", "idle_traded",
					    "idle_recovered", "balance_cost", "net" };
static const enum kind pol_kind[NPOL] = { K_COUNT, K_COUNT, K_COUNT, K_NS, K_NS, K_NS, K_NS, K_NS };

struct host_pol {
	int16_t pol;
	double v[NPOL];
};

struct host {
	char *name, *kernel, *file;
	uint64_t key;		/* the trace's fingerprint */
	bool other_ref;		/* its reference policy is not the first report's */
	double obs[NOBS];
	int npol;
	struct host_pol *p;
};

struct ir_merge {
	int n, cap;
	struct host *h;
	int npols;
	char *pols[MAX_POLICIES];	/* labels, as first seen */
	json_object *pol_id[MAX_POLICIES];	/* {name, label, params} that pair them */
	FILE *warn;			/* CPU-count / topology warnings (ir_merge_warn) */
	json_object *first;		/* the first report's trace and domains */
	char *first_file;
	char *reference;		/* the first report's */
	int ref_differs;		/* reports whose reference is another */
	int dropped_pols;		/* policies beyond MAX_POLICIES */
	int nfailed, failed_cap;
	char **failed;			/* "name: error" of traces without a report */
	/* fingerprints, open addressing: refuses a trace added twice */
	uint64_t *keys;
	int *key_host;
	size_t kcap;
	bool named;			/* names made unique (unique_names) */
};

struct ir_merge *ir_merge_new(void)
{
	return calloc(1, sizeof(struct ir_merge));
}

void ir_merge_free(struct ir_merge *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++) {
		free(m->h[i].name);
		free(m->h[i].kernel);
		free(m->h[i].file);
		free(m->h[i].p);
	}
	for (int i = 0; i < m->npols; i++) {
		free(m->pols[i]);
		json_object_put(m->pol_id[i]);
	}
	json_object_put(m->first);
	free(m->first_file);
	for (int i = 0; i < m->nfailed; i++)
		free(m->failed[i]);
	free(m->failed);
	free(m->reference);
	free(m->h);
	free(m->keys);
	free(m->key_host);
	free(m);
}

/* Index of the host with this key, or -1 (and a free slot in *slot). */
static int key_find(struct ir_merge *m, uint64_t key, size_t *slot)
{
	size_t i = key & (m->kcap - 1);

	while (m->keys[i]) {
		if (m->keys[i] == key)
			return m->key_host[i];
		i = (i + 1) & (m->kcap - 1);
	}
	*slot = i;
	return -1;
}

static int key_grow(struct ir_merge *m)
{
	size_t cap = m->kcap ? m->kcap * 2 : 1024;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	int *hosts = calloc(cap, sizeof(*hosts));

	if (!keys || !hosts) {
		free(keys);
		free(hosts);
		return -1;
	}
	for (size_t i = 0; i < m->kcap; i++)
		if (m->keys[i]) {
			size_t j = m->keys[i] & (cap - 1);

			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = m->keys[i];
			hosts[j] = m->key_host[i];
		}
	free(m->keys);
	free(m->key_host);
	m->keys = keys;
	m->key_host = hosts;
	m->kcap = cap;
	return 0;
}

void ir_merge_warn(struct ir_merge *m, FILE *warn)
{
	m->warn = warn;
}

/* The policy's index, added if new; p: the report's policy object. */
static int policy_index(struct ir_merge *m, json_object *p, const char *label)
{
	json_object *id;
	char buf[160];
	const char *label_out = label;

	for (int i = 0; i < m->npols; i++)
		if (ir_same_policy(m->pol_id[i], p))
			return i;
	if (m->npols == MAX_POLICIES) {
		m->dropped_pols++;
		return -1;
	}
	/* only what pairing reads, so memory stays a few numbers per policy */
	if (!(id = json_object_new_object()))
		return -1;
	json_object_object_add(id, "name", json_object_new_string(jstr(p, "name", "")));
	json_object_object_add(id, "label", json_object_new_string(label));
	if (jget(p, "params")) {
		json_object *params = NULL;

		if (json_object_deep_copy(jget(p, "params"), &params, NULL)) {
			json_object_put(id);
			return -1;
		}
		json_object_object_add(id, "params", params);
	}
	/* the same label with other parameters (e.g. a trace's own migration
	 * cost): another policy, told apart as label#2, #3 ... */
	for (int i = 0, same = 1; i < m->npols; i++)
		if (!strcmp(jstr(m->pol_id[i], "label", ""), label) &&
		    snprintf(buf, sizeof(buf), "%s#%d", label, ++same) < (int)sizeof(buf))
			label_out = buf;
	if (!(m->pols[m->npols] = strdup(label_out))) {
		json_object_put(id);
		return -1;
	}
	m->pol_id[m->npols] = id;
	return m->npols++;
}

/* Against the first report: warn on another CPU count or topology. */
static int check_first(struct ir_merge *m, json_object *doc, const char *file)
{
	json_object *t = NULL, *d = NULL;

	if (m->first) {
		if (m->warn)
			ir_report_fleet_check_pair(m->first, m->first_file, doc, file, m->warn);
		return 0;
	}
	if (!(m->first = json_object_new_object()) || !(m->first_file = strdup(file)) ||
	    (jget(doc, "trace") && json_object_deep_copy(jget(doc, "trace"), &t, NULL)) ||
	    (jget(doc, "domains") && json_object_deep_copy(jget(doc, "domains"), &d, NULL))) {
		json_object_put(t);
		return -1;
	}
	if (t)
		json_object_object_add(m->first, "trace", t);
	if (d)
		json_object_object_add(m->first, "domains", d);
	return 0;
}

/* The last path component, without a .json suffix. */
static char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	size_t n;

	s = s ? s + 1 : path;
	n = strlen(s);
	if (n > 5 && !strcmp(s + n - 5, ".json"))
		n -= 5;
	return strndup(s, n);
}

int ir_merge_add(struct ir_merge *m, json_object *doc, const char *file, const char *name,
		 char *err, size_t errlen)
{
	json_object *t = jget(doc, "trace"), *o = jget(doc, "observed"), *pol = jget(doc, "policies");
	struct ir_headline hl[MAX_POLICIES];
	int nh = ir_headlines(doc, hl, MAX_POLICIES);
	uint64_t key = ir_trace_fingerprint(t);
	const char *ref = jstr(doc, "reference", NULL);
	struct host *h;
	size_t slot = 0;
	int dup;

	if (m->n * 2 + 2 > (int)m->kcap && key_grow(m))
		goto oom;
	if ((dup = key_find(m, key, &slot)) >= 0) {
		snprintf(err, errlen, "the same trace as %s (%s): merge each trace once",
			 m->h[dup].file, jstr(t, "path", "?"));
		return -1;
	}
	if (check_first(m, doc, file ? file : "-"))
		goto oom;
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 64;
		struct host *nh2 = realloc(m->h, (size_t)cap * sizeof(*nh2));

		if (!nh2)
			goto oom;
		m->h = nh2;
		m->cap = cap;
	}
	h = &m->h[m->n];
	memset(h, 0, sizeof(*h));
	h->key = key;
	h->file = strdup(file ? file : "-");
	h->name = name ? strdup(name) : ir_hostname(t) ? strdup(ir_hostname(t)) :
		  base_name(file ? file : jstr(t, "path", "?"));
	h->kernel = strdup(jstr(t, "kernel", "unknown"));
	h->p = calloc((size_t)(nh ? nh : 1), sizeof(*h->p));
	if (!h->file || !h->name || !h->kernel || !h->p) {
		free(h->file);
		free(h->name);
		free(h->kernel);
		free(h->p);
		goto oom;
	}
	h->obs[O_CPUS] = (double)jint(t, "cpus");
	h->obs[O_WINDOW] = (double)jint(t, "window_ns");
	h->obs[O_IDLE] = ir_idle_total(doc);
	h->obs[O_IDLE_WAIT] = (double)jint(o, "idle_while_waiting_ns");
	h->obs[O_POINTS] = (double)jint(o, "newidle_points");
	h->obs[O_OPULLS] = (double)jint(o, "newidle_pulls");
	h->obs[O_MIG] = (double)jint(jget(o, "migrations"), "total");
	h->obs[O_LOST] = (double)jint(t, "lost_events");
	for (int i = 0; i < nh && i < (int)jlen(pol); i++) {
		json_object *p = jidx(pol, i);
		int k = policy_index(m, p, hl[i].label);
		struct host_pol *hp;

		if (k < 0)
			continue;
		hp = &h->p[h->npol++];
		hp->pol = (int16_t)k;
		hp->v[P_ATTEMPTS] = (double)jint(jget(p, "attempts"), "total");
		hp->v[P_PULLS] = hl[i].pulls;
		hp->v[P_AVOIDED] = hl[i].has_ref ? hl[i].avoided : NAN;
		hp->v[P_LOST] = hl[i].idle_lost_ns;
		hp->v[P_TRADED] = hl[i].has_ref ? hl[i].idle_traded_ns : NAN;
		hp->v[P_RECOVERED] = hl[i].idle_recovered_ns;
		hp->v[P_COST] = hl[i].cost_ns;
		hp->v[P_NET] = hl[i].has_ref ? hl[i].net_ns : NAN;
	}
	if (!m->n && ref)
		m->reference = strdup(ref);
	else if (ref && (!m->reference || strcmp(ref, m->reference))) {
		m->ref_differs++;
		h->other_ref = true;
	}
	m->keys[slot] = key;
	m->key_host[slot] = m->n;
	m->n++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int ir_merge_failed(struct ir_merge *m, const char *name, const char *error)
{
	char *s;

	if (m->nfailed == m->failed_cap) {
		int cap = m->failed_cap ? m->failed_cap * 2 : 16;
		char **f = realloc(m->failed, (size_t)cap * sizeof(*f));

		if (!f)
			return -1;
		m->failed = f;
		m->failed_cap = cap;
	}
	if (asprintf(&s, "%s: %s", name, error) < 0)
		return -1;
	m->failed[m->nfailed++] = s;
	return 0;
}

/* ---------------------------------------------------------------- summary */

struct dist {
	int n;				/* hosts with a value */
	double total, p10, p25, median, p75, p90;
};

static const struct host_pol *host_pol(const struct host *h, int k)
{
	for (int i = 0; i < h->npol; i++)
		if (h->p[i].pol == k)
			return &h->p[i];
	return NULL;
}

/* Distribution of column c (policy k, or observed when k < 0); tmp has m->n slots. */
static struct dist distribution(const struct ir_merge *m, int k, int c, double *tmp)
{
	struct dist d = { 0 };

	for (int i = 0; i < m->n; i++) {
		const struct host_pol *hp = k >= 0 ? host_pol(&m->h[i], k) : NULL;
		double v = k >= 0 ? (hp ? hp->v[c] : NAN) : m->h[i].obs[c];

		if (!isnan(v)) {
			tmp[d.n++] = v;
			d.total += v;
		}
	}
	if (!d.n) {
		d.total = d.p10 = d.p25 = d.median = d.p75 = d.p90 = NAN;
		return d;
	}
	d.p10 = ir_percentile(tmp, d.n, 10);	/* sorts tmp: the rest read it sorted */
	d.p25 = ir_percentile(tmp, d.n, 25);
	d.median = ir_percentile(tmp, d.n, 50);
	d.p75 = ir_percentile(tmp, d.n, 75);
	d.p90 = ir_percentile(tmp, d.n, 90);
	return d;
}

static const char *fmt_v(char *buf, size_t len, double v, enum kind k, bool sign)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (k == K_COUNT)
		snprintf(buf, len, sign ? "%+.0f" : "%.0f", v);
	else if (sign)
		ir_fmt_dsns(buf, len, v);
	else
		ir_fmt_dns(buf, len, v);
	return buf;
}

struct outlier {
	int host;
	double v, dist;
};

static int cmp_outlier(const void *a, const void *b)
{
	double x = ((const struct outlier *)a)->dist, y = ((const struct outlier *)b)->dist;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Hosts beyond 3 x IQR from the quartiles of policy k's column c, farthest first. */
static int outliers(const struct ir_merge *m, int k, int c, const struct dist *d, struct outlier *out, int max)
{
	double iqr = d->p75 - d->p25, lo = d->p25 - 3 * iqr, hi = d->p75 + 3 * iqr;
	struct outlier cand[MAX_OUTLIERS * 4];
	int n = 0, total = 0;

	if (d->n < 4)
		return 0;
	for (int i = 0; i < m->n; i++) {
		const struct host_pol *hp = host_pol(&m->h[i], k);
		double v = hp ? hp->v[c] : NAN;

		if (isnan(v) || (v >= lo && v <= hi))
			continue;
		total++;
		if (n < (int)(sizeof(cand) / sizeof(cand[0]))) {
			cand[n++] = (struct outlier){ i, v, v < lo ? lo - v : v - hi };
		} else {
			/* keep the farthest: replace the nearest kept */
			int near = 0;

			for (int j = 1; j < n; j++)
				if (cand[j].dist < cand[near].dist)
					near = j;
			if ((v < lo ? lo - v : v - hi) > cand[near].dist)
				cand[near] = (struct outlier){ i, v, v < lo ? lo - v : v - hi };
		}
	}
	qsort(cand, (size_t)n, sizeof(cand[0]), cmp_outlier);
	if (n > max)
		n = max;
	memcpy(out, cand, (size_t)n * sizeof(*out));
	return total;
}

/* Fleet totals of policy k as a headline. */
static struct ir_headline fleet_headline(const struct ir_merge *m, int k, double *tmp)
{
	struct ir_headline h = { 0 };

	snprintf(h.label, sizeof(h.label), "%s", m->pols[k]);
	h.reference = m->reference && !strcmp(m->reference, m->pols[k]);
	h.has_ref = m->reference != NULL;
	h.pulls = distribution(m, k, P_PULLS, tmp).total;
	h.avoided = distribution(m, k, P_AVOIDED, tmp).total;
	h.idle_traded_ns = distribution(m, k, P_TRADED, tmp).total;
	h.idle_recovered_ns = distribution(m, k, P_RECOVERED, tmp).total;
	h.idle_lost_ns = distribution(m, k, P_LOST, tmp).total;
	h.cost_ns = distribution(m, k, P_COST, tmp).total;
	h.net_ns = distribution(m, k, P_NET, tmp).total;
	return h;
}

static int hosts_with(const struct ir_merge *m, int o)
{
	int n = 0;

	for (int i = 0; i < m->n; i++)
		n += m->h[i].obs[o] > 0;
	return n;
}

/* " (a, b, c and N more)": the first hosts for which pick(m, i, k) holds, by name */
#define NAMED_HOSTS 5
static void name_hosts(const struct ir_merge *m, FILE *out, const char *what, bool (*pick)(const struct ir_merge *, int, int),
		       int k)
{
	int n = 0;

	for (int i = 0; i < m->n; i++) {
		if (!pick(m, i, k))
			continue;
		if (n < NAMED_HOSTS)
			fprintf(out, "%s%s", n ? ", " : what, ir_tsafe(m->h[i].name));
		n++;
	}
	if (n > NAMED_HOSTS)
		fprintf(out, " and %d more", n - NAMED_HOSTS);
	if (n)
		fputc(')', out);
}

static bool other_ref(const struct ir_merge *m, int i, int k)
{
	(void)k;
	return m->h[i].other_ref;
}

static bool lacks_policy(const struct ir_merge *m, int i, int k)
{
	return host_pol(&m->h[i], k) == NULL;
}

static void warnings(const struct ir_merge *m, FILE *out, const char *pre, const char *post, int max_failed)
{
	int lost = hosts_with(m, O_LOST);

	if (m->nfailed)
		fprintf(out, "%sWARNING: %d traces gave no report and are left out:%s\n", pre, m->nfailed, post);
	for (int i = 0; i < m->nfailed && i < max_failed; i++)
		fprintf(out, "%s  %s%s\n", pre, ir_tsafe(m->failed[i]), post);
	if (m->nfailed > max_failed)
		fprintf(out, "%s  ... and %d more%s\n", pre, m->nfailed - max_failed, post);
	if (lost)
		fprintf(out, "%sWARNING: %d of %d hosts lost events: their figures are incomplete (lost_events column)%s\n",
			pre, lost, m->n, post);
	if (m->ref_differs) {
		fprintf(out, "%sWARNING: %d report%s another reference policy than %s", pre, m->ref_differs,
			m->ref_differs == 1 ? " uses" : "s use", ir_tsafe(m->reference ? m->reference : "-"));
		name_hosts(m, out, " (", other_ref, 0);
		fprintf(out, ": their avoided and traded figures are against theirs%s\n", post);
	}
	for (int k = 0; k < m->npols; k++) {
		int with = 0;

		for (int i = 0; i < m->n; i++)
			with += host_pol(&m->h[i], k) != NULL;
		if (with == m->n)
			continue;
		fprintf(out, "%sNOTE: policy %s is in %d of %d reports", pre, ir_tsafe(m->pols[k]), with, m->n);
		name_hosts(m, out, " (not in ", lacks_policy, k);
		fprintf(out, "; its distribution is over those%s\n", post);
	}
	if (m->dropped_pols)
		fprintf(out, "%sWARNING: more than %d policies: the rest are left out%s\n", pre, MAX_POLICIES, post);
	fprintf(out, "%sNOTE: policy figures are open-loop estimates (docs/report.md)%s\n", pre, post);
}

/* ------------------------------------------------------------------- text */

/*
 * One row of the outlier list: a host (host >= 0) with its value and the
 * median, or (host < 0) the count of those past the MAX_OUTLIERS shown; with
 * k < 0, the list was empty.  The text and the HTML list walk the same rows.
 */
typedef void (*outlier_row_fn)(const struct ir_merge *m, FILE *out, int k, int c, int host, const char *v,
			       const char *median, int more);

static void list_outliers(const struct ir_merge *m, FILE *out, double *tmp, outlier_row_fn row)
{
	static const int dcols[] = { P_AVOIDED, P_TRADED };
	char v[48], med[48];
	int any = 0;

	for (int k = 0; k < m->npols; k++)
		for (int c = 0; c < 2; c++) {
			struct dist d = distribution(m, k, dcols[c], tmp);
			struct outlier o[MAX_OUTLIERS];
			int n = outliers(m, k, dcols[c], &d, o, MAX_OUTLIERS);

			for (int i = 0; i < n && i < MAX_OUTLIERS; i++, any++)
				row(m, out, k, c, o[i].host, fmt_v(v, sizeof(v), o[i].v, pol_kind[dcols[c]], true),
				    fmt_v(med, sizeof(med), d.median, pol_kind[dcols[c]], true), 0);
			if (n > MAX_OUTLIERS)
				row(m, out, k, c, -1, NULL, NULL, n - MAX_OUTLIERS);
		}
	if (!any)
		row(m, out, -1, 0, -1, NULL, NULL, 0);
}

static void text_outlier(const struct ir_merge *m, FILE *out, int k, int c, int host, const char *v,
			 const char *median, int more)
{
	if (k < 0)
		fprintf(out, "  none\n");
	else if (host >= 0)
		fprintf(out, "  %-24.24s %-8s %-24s %12s (median %s)\n", ir_tsafe(m->pols[k]), c ? "traded" : "avoided",
			ir_tsafe(m->h[host].name), v, median);
	else
		fprintf(out, "  %-24.24s %-8s ... and %d more\n", ir_tsafe(m->pols[k]), c ? "traded" : "avoided", more);
}

static void html_outlier(const struct ir_merge *m, FILE *out, int k, int c, int host, const char *v,
			 const char *median, int more)
{
	if (k < 0) {
		fprintf(out, "<li>none</li>\n");
		return;
	}
	fprintf(out, "<li>");
	ir_html_text(out, m->pols[k]);
	fprintf(out, " %s: ", c ? "idle traded" : "avoided");
	if (host >= 0) {
		ir_html_text(out, m->h[host].name);
		fprintf(out, " %s (median %s)</li>\n", v, median);
	} else {
		fprintf(out, "... and %d more</li>\n", more);
	}
}

static void write_text(const struct ir_merge *m, FILE *out, double *tmp)
{
	static const int dcols[] = { P_AVOIDED, P_TRADED, P_NET };
	char b[4][48], line[512];

	fprintf(out, "Fleet: %d host%s, %d polic%s; reference %s\n", m->n, m->n == 1 ? "" : "s", m->npols,
		m->npols == 1 ? "y" : "ies",
		ir_tsafe(m->reference ? m->reference : "none"));
	warnings(m, out, "", "", 20);
	fprintf(out, "\nHeadline (fleet totals)\n");
	for (int k = 0; k < m->npols; k++) {
		struct ir_headline h = fleet_headline(m, k, tmp);

		fprintf(out, "  %s\n", ir_headline_text(&h, m->reference ? m->reference : "-", line, sizeof(line)));
	}
	fprintf(out, "\nPer host vs %s: total, then median [p10, p90] over hosts\n", ir_tsafe(m->reference ? m->reference : "-"));
	/* wide enough for "-1234567 [-1234567, -1234567]" and "-999.99 ms [-999.99 ms,
	 * -999.99 ms]": the columns stay aligned whatever the fleet's figures */
	fprintf(out, "  %-24s %5s %9s  %28s %11s  %35s %11s  %35s\n", "policy", "hosts", "avoided", "median [p10, p90]",
		"idle traded", "median [p10, p90]", "net", "median [p10, p90]");
	for (int k = 0; k < m->npols; k++) {
		fprintf(out, "  %-24.24s", ir_tsafe(m->pols[k]));
		for (size_t c = 0; c < 3; c++) {
			struct dist d = distribution(m, k, dcols[c], tmp);
			char dd[80];

			if (!c)
				fprintf(out, " %5d", d.n);
			snprintf(dd, sizeof(dd), "%s [%s, %s]", fmt_v(b[1], 48, d.median, pol_kind[dcols[c]], true),
				 fmt_v(b[2], 48, d.p10, pol_kind[dcols[c]], true),
				 fmt_v(b[3], 48, d.p90, pol_kind[dcols[c]], true));
			fprintf(out, c ? " %11s  %35s" : " %9s  %28s", fmt_v(b[0], 48, d.total, pol_kind[dcols[c]], true), dd);
		}
		fputc('\n', out);
	}
	fprintf(out, "\nOutliers (hosts beyond 3 x IQR from the quartiles)\n");
	list_outliers(m, out, tmp, text_outlier);

	fprintf(out, "\nObserved\n  %-24s %-16s", "host", "kernel");
	for (int c = 0; c < NOBS; c++)
		fprintf(out, " %13s", obs_name[c]);
	fputc('\n', out);
	for (int i = 0; i < m->n; i++) {
		fprintf(out, "  %-24.24s %-16.16s", ir_tsafe(m->h[i].name),
			ir_tsafe(m->h[i].kernel));
		for (int c = 0; c < NOBS; c++)
			fprintf(out, " %13s", fmt_v(b[0], 48, m->h[i].obs[c], obs_kind[c], false));
		fputc('\n', out);
	}
	for (int k = 0; k < m->npols; k++) {
		int missing = 0;

		fprintf(out, "\nPolicy %s\n", ir_tsafe(m->pols[k]));
		for (int i = 0; i < m->n; i++)
			if (!host_pol(&m->h[i], k) && missing++ < MAX_OUTLIERS)
				fprintf(out, "%s%s", missing > 1 ? ", " : "  no policy with these parameters in: ",
					ir_tsafe(m->h[i].name));
		if (missing > MAX_OUTLIERS)
			fprintf(out, " and %d more", missing - MAX_OUTLIERS);
		if (missing)
			fputc('\n', out);
		fprintf(out, "  %-24s %-16s", "host", "kernel");
		for (int c = 0; c < NPOL; c++)
			fprintf(out, " %14s", pol_name[c]);
		fputc('\n', out);
		for (int i = 0; i < m->n; i++) {
			const struct host_pol *hp = host_pol(&m->h[i], k);

			fprintf(out, "  %-24.24s %-16.16s", ir_tsafe(m->h[i].name),
				ir_tsafe(m->h[i].kernel));
			for (int c = 0; c < NPOL; c++)
				fprintf(out, " %14s", fmt_v(b[0], 48, hp ? hp->v[c] : NAN, pol_kind[c],
							   c == P_AVOIDED || c == P_TRADED || c == P_NET));
			fputc('\n', out);
		}
		fprintf(out, "  --------\n");
		for (int s = 0; s < 4; s++) {
			static const char *const what[] = { "total", "median", "p10", "p90" };

			fprintf(out, "  %-24s %-16s", what[s], "");
			for (int c = 0; c < NPOL; c++) {
				struct dist d = distribution(m, k, c, tmp);
				double v = s == 0 ? d.total : s == 1 ? d.median : s == 2 ? d.p10 : d.p90;

				fprintf(out, " %14s", fmt_v(b[0], 48, v, pol_kind[c],
							   c == P_AVOIDED || c == P_TRADED || c == P_NET));
			}
			fputc('\n', out);
		}
	}
}

/* -------------------------------------------------------------------- CSV */

static void csv_num(FILE *out, double v)
{
	if (!isnan(v))
		fprintf(out, "%.0f", v);
}

static void write_csv(const struct ir_merge *m, FILE *out, double *tmp)
{
	fputs("host,kernel", out);
	for (int c = 0; c < NOBS; c++)
		fprintf(out, ",%s%s", obs_name[c], obs_kind[c] == K_NS ? "_ns" : "");
	for (int k = 0; k < m->npols; k++)
		for (int c = 0; c < NPOL; c++) {
			char h[200];

			snprintf(h, sizeof(h), "%s:%s%s", m->pols[k], pol_name[c], pol_kind[c] == K_NS ? "_ns" : "");
			fputc(',', out);
			ir_csv_field(out, h);
		}
	fputc('\n', out);
	for (int i = 0; i < m->n; i++) {
		ir_csv_field(out, m->h[i].name);
		fputc(',', out);
		ir_csv_field(out, m->h[i].kernel);
		for (int c = 0; c < NOBS; c++) {
			fputc(',', out);
			csv_num(out, m->h[i].obs[c]);
		}
		for (int k = 0; k < m->npols; k++) {
			const struct host_pol *hp = host_pol(&m->h[i], k);

			for (int c = 0; c < NPOL; c++) {
				fputc(',', out);
				csv_num(out, hp ? hp->v[c] : NAN);
			}
		}
		fputc('\n', out);
	}
	for (int s = 0; s < 4; s++) {
		static const char *const what[] = { "total", "median", "p10", "p90" };

		fprintf(out, "%s,", what[s]);
		for (int k = -1; k < m->npols; k++)
			for (int c = 0; c < (k < 0 ? NOBS : NPOL); c++) {
				struct dist d = distribution(m, k, c, tmp);

				fputc(',', out);
				csv_num(out, s == 0 ? d.total : s == 1 ? d.median : s == 2 ? d.p10 : d.p90);
			}
		fputc('\n', out);
	}
}

/* ------------------------------------------------------------------- HTML */

/* One range chart: per policy a p10-p90 bar, the median as a dot, values as
 * text.  A symmetric log axis when the values differ a hundredfold
 * (ir_axis_init()): negative values mirror positive ones, the axis says so
 * and carries ticks at 0 and +-C x 10^k. */
static void html_chart(const struct ir_merge *m, FILE *out, int c, const char *title, const char *id, double *tmp)
{
	struct dist d[MAX_POLICIES];
	double div = 1, vals[3 * MAX_POLICIES], ticks[24];
	const char *unit = "";
	int W = 760, L = 200, R = 150, row = 26, nv = 0, nt, H;
	struct ir_axis ax;

	for (int k = 0; k < m->npols; k++) {
		d[k] = distribution(m, k, c, tmp);
		if (!d[k].n)
			continue;
		vals[nv++] = d[k].p10;
		vals[nv++] = d[k].median;
		vals[nv++] = d[k].p90;
	}
	ir_axis_init(&ax, vals, nv);
	H = 40 + row * m->npols + (ax.symlog ? 34 : 0);
	if (pol_kind[c] == K_NS) {
		double a = fmax(fabs(ax.lo), fabs(ax.hi));

		div = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
		unit = a >= 1e9 ? " s" : a >= 1e6 ? " ms" : a >= 1e3 ? " us" : " ns";
	}
#define RX(v) (L + ir_axis_pos(&ax, (v)) * (W - L - R))
	fprintf(out, "<h3>%s per host: median, p10-p90%s</h3>\n<svg id=\"%s\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
		"style=\"max-width:%dpx\" role=\"img\" data-scale=\"%s\" data-c=\"%.17g\" data-lo=\"%.17g\" "
		"data-hi=\"%.17g\" data-x0=\"%d\" data-x1=\"%d\">\n", title, ax.symlog ? " (symmetric log scale)" : "",
		id, W, H, W, ax.symlog ? "symlog" : "linear", ax.c, ax.lo, ax.hi, L, W - R);
	nt = ir_axis_ticks(&ax, ticks, 24);
	if (!nt)
		ticks[nt++] = 0;	/* linear: the zero line */
	for (int i = 0; i < nt; i++) {
		double x = RX(ticks[i]);

		fprintf(out, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"%d\" stroke=\"%s\"/>"
			"<text x=\"%.1f\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">%.3g</text>\n",
			x, x, 40 + row * m->npols - 10, ticks[i] ? "#ddd" : "#888", x, ticks[i] / div);
	}
	if (ax.symlog) {
		fprintf(out, "<text class=\"axl\" x=\"%d\" y=\"%d\" font-size=\"11\">symmetric log scale%s%s: "
			"position sign(v) log10(1 + |v| / C), C = %.3g%s (linear below C, negative values mirrored)</text>\n",
			4, H - 20, *unit ? ", values in" : "", unit, ax.c / div, unit);
		fprintf(out, "<text class=\"axl\" x=\"%d\" y=\"%d\" font-size=\"11\">ticks: 0 and +-C x 10^k</text>\n",
			4, H - 6);
	}
	for (int k = 0; k < m->npols; k++) {
		double y = 30 + row * k;

		fprintf(out, "<g class=\"range\" data-policy=\"");
		ir_html_text(out, m->pols[k]);
		if (!d[k].n) {
			fprintf(out, "\" data-n=\"0\"><text x=\"4\" y=\"%.1f\" font-size=\"12\">", y + 4);
			ir_html_text(out, m->pols[k]);
			fprintf(out, ": no values</text></g>\n");
			continue;
		}
		fprintf(out, "\" data-median=\"%.0f\" data-p10=\"%.0f\" data-p90=\"%.0f\">", d[k].median, d[k].p10, d[k].p90);
		fprintf(out, "<text x=\"4\" y=\"%.1f\" font-size=\"12\">", y + 4);
		ir_html_text(out, m->pols[k]);
		fprintf(out, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"10\" fill=\"#9ecae1\"/>"
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#08519c\"/>"
			"<text x=\"%d\" y=\"%.1f\" font-size=\"12\">%.3g%s [%.3g, %.3g]</text></g>\n",
			RX(d[k].p10), y - 5, fmax(RX(d[k].p90) - RX(d[k].p10), 1.5), RX(d[k].median), y, W - R + 6, y + 4,
			d[k].median / div, unit, d[k].p10 / div, d[k].p90 / div);
	}
#undef RX
	fprintf(out, "</svg>\n");
}

static void write_html(const struct ir_merge *m, FILE *out, double *tmp)
{
	static const int dcols[] = { P_AVOIDED, P_TRADED, P_NET };
	char b[4][48], line[512];
	int shown = m->n < HTML_MAX_HOSTS ? m->n : HTML_MAX_HOSTS;

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<link rel=\"icon\" href=\"data:,\"><title>idlereplay fleet: %d host%s</title>\n<style>"
		"body{font-family:sans-serif;margin:1em;max-width:1100px}"
		"table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
		"td:first-child,th:first-child{text-align:left}.scroll{overflow-x:auto}"
		".warn{background:#fff3cd;padding:4px 8px;margin:2px 0}.headline li{margin:3px 0}"
		"</style></head><body>\n<h1>Fleet: %d host%s, %d polic%s</h1>\n", m->n, m->n == 1 ? "" : "s",
		m->n, m->n == 1 ? "" : "s", m->npols, m->npols == 1 ? "y" : "ies");
	fprintf(out, "<p>Reference policy: <b>");
	ir_html_text(out, m->reference ? m->reference : "none");
	fprintf(out, "</b>. Definitions: docs/report.md of idlereplay.</p>\n<div id=\"warnings\">\n");
	{
		/* the warnings of the text report, as paragraphs */
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		if (mem) {
			warnings(m, mem, "", "", 1000);
			fclose(mem);
			for (char *s = buf, *e; s && *s; s = e + 1) {
				e = strchr(s, '\n');
				if (!e)
					break;
				*e = 0;
				fprintf(out, "<p class=\"warn\">");
				ir_html_text(out, s);
				fprintf(out, "</p>\n");
			}
			free(buf);
		}
	}
	fprintf(out, "</div>\n<h2>Headline (fleet totals)</h2>\n<ul class=\"headline\" id=\"headline\">\n");
	for (int k = 0; k < m->npols; k++) {
		struct ir_headline h = fleet_headline(m, k, tmp);

		fprintf(out, "<li data-policy=\"");
		ir_html_text(out, m->pols[k]);
		fprintf(out, "\" data-avoided=\"%.0f\" data-traded=\"%.0f\" data-net=\"%.0f\">",
			h.avoided, h.idle_traded_ns, h.net_ns);
		ir_html_text(out, ir_headline_text(&h, m->reference ? m->reference : "-", line, sizeof(line)));
		fprintf(out, "</li>\n");
	}
	fprintf(out, "</ul>\n<h2>Per host</h2>\n<div class=\"scroll\"><table id=\"dist\"><tr><th>policy</th><th>hosts</th>"
		"<th>avoided</th><th>median</th><th>p10</th><th>p90</th><th>idle traded</th><th>median</th><th>p10</th>"
		"<th>p90</th><th>net</th><th>median</th><th>p10</th><th>p90</th></tr>\n");
	for (int k = 0; k < m->npols; k++) {
		fprintf(out, "<tr><td>");
		ir_html_text(out, m->pols[k]);
		fprintf(out, "</td>");
		for (size_t c = 0; c < 3; c++) {
			struct dist d = distribution(m, k, dcols[c], tmp);
			enum kind kd = pol_kind[dcols[c]];

			if (!c)
				fprintf(out, "<td>%d</td>", d.n);
			fprintf(out, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td>", fmt_v(b[0], 48, d.total, kd, true),
				fmt_v(b[1], 48, d.median, kd, true), fmt_v(b[2], 48, d.p10, kd, true),
				fmt_v(b[3], 48, d.p90, kd, true));
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table></div>\n");
	html_chart(m, out, P_AVOIDED, "Migrations avoided", "chart-avoided", tmp);
	html_chart(m, out, P_TRADED, "Idle traded", "chart-traded", tmp);
	html_chart(m, out, P_NET, "Net effect with balancing cost", "chart-net", tmp);

	fprintf(out, "<h2>Outliers</h2>\n<p>Hosts beyond 3 x IQR from the quartiles.</p>\n<ul id=\"outliers\">\n");
	list_outliers(m, out, tmp, html_outlier);
	fprintf(out, "</ul>\n<h2>Hosts</h2>\n");
	if (shown < m->n)
		fprintf(out, "<p>The first %d of %d hosts; 'report merge --format csv' lists all.</p>\n", shown, m->n);
	fprintf(out, "<div class=\"scroll\"><table id=\"hosts\"><tr><th>host</th><th>kernel</th><th>lost events</th>");
	for (int k = 0; k < m->npols; k++) {
		fprintf(out, "<th>");
		ir_html_text(out, m->pols[k]);
		fprintf(out, " avoided</th><th>traded</th>");
	}
	fprintf(out, "</tr>\n");
	for (int i = 0; i < shown; i++) {
		fprintf(out, "<tr><td>");
		ir_html_text(out, m->h[i].name);
		fprintf(out, "</td><td>");
		ir_html_text(out, m->h[i].kernel);
		fprintf(out, "</td><td>%.0f</td>", m->h[i].obs[O_LOST]);
		for (int k = 0; k < m->npols; k++) {
			const struct host_pol *hp = host_pol(&m->h[i], k);

			fprintf(out, "<td>%s</td><td>%s</td>", fmt_v(b[0], 48, hp ? hp->v[P_AVOIDED] : NAN, K_COUNT, true),
				fmt_v(b[1], 48, hp ? hp->v[P_TRADED] : NAN, K_NS, true));
		}
		fprintf(out, "</tr>\n");
	}
	fprintf(out, "</table></div>\n<p>Policy figures are open-loop estimates.</p>\n</body></html>\n");
}

struct name_ix {
	char *name;		/* not owned */
	char *base;		/* the report's file name, owned */
	int i;
};

static int cmp_name(const void *a, const void *b)
{
	const struct name_ix *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* by file name, then path (hosts of one path together), then order */
static const struct host *sort_hosts;

static int cmp_base(const void *a, const void *b)
{
	const struct name_ix *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	if (!c)
		c = strcmp(sort_hosts[x->i].file, sort_hosts[y->i].file);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The report's path without .json, owned. */
static char *path_name(const char *file)
{
	size_t n = strlen(file);

	return strndup(file, n > 5 && !strcmp(file + n - 5, ".json") ? n - 5 : n);
}

/* One run of hosts sharing a name: "vm (monday)" by the report's file name;
 * where that repeats too, by its path, "vm (mon/r)", "mon/r" where the name
 * is the file's; a path given twice (stdin) gets its position, "- #2". */
static int rename_run(struct ir_merge *m, struct name_ix *v, int n)
{
	for (int k = 0; k < n; k++)
		if (!(v[k].base = base_name(m->h[v[k].i].file)))
			return -1;
	sort_hosts = m->h;
	qsort(v, (size_t)n, sizeof(*v), cmp_base);
	for (int a = 0, z; a < n; a = z) {
		for (z = a + 1; z < n && !strcmp(v[z].base, v[a].base); z++)
			;
		for (int k = a; k < z; k++) {
			struct host *h = &m->h[v[k].i];
			char *id = z - a > 1 ? path_name(h->file) : strdup(v[k].base), *nn = NULL;
			int p0 = k, p1 = k, r;

			if (!id)
				return -1;
			/* the same path (stdin, say): sorted together, numbered in order */
			while (p0 > a && !strcmp(m->h[v[p0 - 1].i].file, h->file))
				p0--;
			while (p1 + 1 < z && !strcmp(m->h[v[p1 + 1].i].file, h->file))
				p1++;
			if (!strcmp(h->name, v[k].base))
				r = p1 > p0 ? asprintf(&nn, "%s #%d", id, k - p0 + 1) : asprintf(&nn, "%s", id);
			else
				r = p1 > p0 ? asprintf(&nn, "%s (%s) #%d", h->name, id, k - p0 + 1) :
					      asprintf(&nn, "%s (%s)", h->name, id);
			free(id);
			if (r < 0)
				return -1;
			free(h->name);
			h->name = nn;
		}
	}
	return 0;
}

/*
 * Hosts that share a name (one machine's traces of several days, reports
 * without a hostname in files of the same name) would be rows nobody can
 * tell apart: each gets its report's file name, or its path.  In place,
 * once, before the first output.
 */
static int unique_names(struct ir_merge *m)
{
	struct name_ix *v;
	int ret = 0;

	if (m->named || m->n < 2)
		return 0;
	v = calloc((size_t)m->n, sizeof(*v));
	if (!v)
		return -1;
	for (int i = 0; i < m->n; i++)
		v[i] = (struct name_ix){ m->h[i].name, NULL, i };
	qsort(v, (size_t)m->n, sizeof(*v), cmp_name);
	for (int a = 0, z; a < m->n && !ret; a = z) {
		for (z = a + 1; z < m->n && !strcmp(v[z].name, v[a].name); z++)
			;
		if (z - a > 1)
			ret = rename_run(m, v + a, z - a);	/* names of later runs untouched */
	}
	for (int i = 0; i < m->n; i++)
		free(v[i].base);
	free(v);
	m->named = !ret;
	return ret;
}

int ir_merge_write(struct ir_merge *m, enum ir_merge_format fmt, FILE *out)
{
	double *tmp = malloc(sizeof(double) * (size_t)(m->n ? m->n : 1));

	if (!tmp || unique_names(m)) {
		free(tmp);
		return -1;
	}
	if (fmt == IR_MERGE_CSV)
		write_csv(m, out, tmp);
	else if (fmt == IR_MERGE_HTML)
		write_html(m, out, tmp);
	else
		write_text(m, out, tmp);
	free(tmp);
	return ferror(out) ? -1 : 0;
}
