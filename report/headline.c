/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One headline per policy, the line a report starts with (docs/report.md,
 * "Headline"): migrations avoided and idle traded against the reference,
 * and the net effect once the modelled balancing cost is counted:
 *   net = (idle_recovered - balance_cost) - the reference's same figure.
 * Shared by the text, HTML and fleet renderers; reads only the document.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

int ir_headlines(json_object *doc, struct ir_headline *h, int max)
{
	json_object *pol = jget(doc, "policies");
	const char *ref = jstr(doc, "reference", NULL);
	int n = 0, r = -1;

	for (size_t i = 0; i < jlen(pol) && n < max; i++, n++) {
		json_object *p = jidx(pol, i);

		memset(&h[n], 0, sizeof(h[n]));
		snprintf(h[n].label, sizeof(h[n].label), "%s", jstr(p, "label", jstr(p, "name", "?")));
		h[n].pulls = (double)jint(jget(p, "pulls"), "total");
		h[n].avoided = (double)jint(jget(p, "migrations_avoided"), "total");
		h[n].idle_traded_ns = (double)jint(p, "idle_traded_ns");
		h[n].idle_recovered_ns = (double)jint(p, "idle_recovered_ns");
		h[n].idle_lost_ns = (double)jint(p, "idle_lost_ns");
		h[n].cost_ns = (double)jint(p, "balance_cost_ns");
		h[n].reference = ref && !strcmp(ref, h[n].label);
		if (h[n].reference)
			r = n;
	}
	for (int i = 0; i < n; i++) {
		h[i].has_ref = r >= 0;
		if (r >= 0)
			h[i].net_ns = (h[i].idle_recovered_ns - h[i].cost_ns) -
				      (h[r].idle_recovered_ns - h[r].cost_ns);
	}
	return n;
}

/* "X more" / "X less" / "the same": a signed difference in words, since
 * the headline mixes figures where more is worse (idle) and better (net). */
static const char *diff_words(char *buf, size_t len, double ns, const char *more, const char *less)
{
	char v[32];

	if (ns == 0 || isnan(ns))
		snprintf(buf, len, "the same");
	else
		snprintf(buf, len, "%s %s", ir_fmt_dns(v, sizeof(v), fabs(ns)), ns > 0 ? more : less);
	return buf;
}

const char *ir_headline_text(const struct ir_headline *h, const char *ref, char *buf, size_t len)
{
	char tr[48], rec[32], cost[32], net[48], mig[64];
	double a = h->avoided;

	diff_words(tr, sizeof(tr), h->idle_traded_ns, "more idle", "less idle");
	ir_fmt_dns(rec, sizeof(rec), h->idle_recovered_ns);
	ir_fmt_dns(cost, sizeof(cost), h->cost_ns);
	diff_words(net, sizeof(net), h->net_ns, "better", "worse");
	if (h->reference || !h->has_ref) {
		snprintf(buf, len, "%s%s: %.0f migration%s; recovers %s of idle for %s of modelled balancing",
			 ir_tsafe(h->label), h->reference ? " (reference)" : "", h->pulls, h->pulls == 1 ? "" : "s",
			 rec, cost);
		return buf;
	}
	if (a > 0)
		snprintf(mig, sizeof(mig), "avoids %.0f migration%s", a, a == 1 ? "" : "s");
	else if (a < 0)
		snprintf(mig, sizeof(mig), "%.0f more migration%s", -a, a == -1 ? "" : "s");
	else
		snprintf(mig, sizeof(mig), "same migrations");
	/* net: idle recovered less balancing, against the reference's */
	snprintf(buf, len, "%s: %s (%s%s) vs %s; recovers %s of idle for %s of modelled balancing: net %s %s %s",
		 ir_tsafe(h->label), mig, tr, h->idle_traded_ns == 0 ? " idle" : "", ir_tsafe(ref), rec, cost,
		 net, h->net_ns == 0 ? "as" : "than", ir_tsafe(ref));
	return buf;
}

/* The headline block, as text lines or HTML (ids and data-* for tests). */
static void headlines(json_object *doc, FILE *out, bool html)
{
	struct ir_headline h[64];
	int n = ir_headlines(doc, h, 64);
	const char *ref = jstr(doc, "reference", "-");
	json_object *f = jget(doc, "fidelity"), *g = jget(doc, "ground_truth");
	const char *mode = g && !strcmp(jstr(g, "mode", "assumed"), "probed") ? "probed" : "assumed";
	char line[512];

	if (n)
		fputs(html ? "<section id=\"headline\"><h2>Headline <span class=\"muted\">(open-loop estimates)"
			     "</span></h2>\n<ul>\n" : "\nHeadline (open-loop estimates)\n", out);
	for (int i = 0; i < n; i++) {
		ir_headline_text(&h[i], ref, line, sizeof(line));
		if (!html) {
			fprintf(out, "  %s\n", line);
			continue;
		}
		fputs("<li data-policy=\"", out);
		ir_html_text(out, h[i].label);
		fprintf(out, "\" data-pulls=\"%.0f\"", h[i].pulls);
		if (h[i].has_ref && !h[i].reference)
			fprintf(out, " data-avoided=\"%.0f\" data-traded=\"%.0f\" data-net=\"%.0f\"",
				h[i].avoided, h[i].idle_traded_ns, h[i].net_ns);
		fputs(">", out);
		ir_html_text(out, line);
		fputs("</li>\n", out);
	}
	if (n)
		fputs(html ? "</ul></section>\n" : "\n", out);
	if (f) {
		int64_t obs = jint(f, "observed_pulls"), pred = jint(f, "predicted_pulls");
		const char *costs = jstr(f, "costs", "assumed");

		/* Say what the comparison can show: with no observed pull there is
		 * no precision to judge, and assumed costs are not the kernel's. */
		if (!obs)
			snprintf(line, sizeof(line), "%s (the recording kernel's model, %s costs) predicts %" PRId64
				 " newidle pulls where the kernel made none: %s", ir_tsafe(jstr(f, "policy", "?")),
				 ir_tsafe(costs), pred, pred ? (strcmp(costs, "assumed") ? "precision cannot be judged"
				 : "cannot be judged; `idlereplay calibrate` fits the costs") : "nothing to judge");
		else
			snprintf(line, sizeof(line), "%s (the recording kernel's model, %s costs) predicts %" PRId64
				 " newidle pulls, the kernel made %" PRId64 ", %" PRId64 " of them at the same points",
				 ir_tsafe(jstr(f, "policy", "?")), ir_tsafe(costs), pred, obs, jint(f, "true_positives"));
		fputs(html ? "<p class=\"warn\" id=\"fidelity-summary\">Fidelity: " : "FIDELITY: ", out);
		if (html)
			ir_html_text(out, line);
		else
			fputs(line, out);
		fputs(html ? " (details below).</p>\n" : " (details at the end)\n", out);
	}
	if (g)
		fprintf(out, "%s%" PRId64 " probed newidle calls, %" PRId64 " matched (%s parameters; details %s)%s\n",
			html ? "<p class=\"warn\" id=\"truth-summary\">Ground truth: " : "GROUND TRUTH: ",
			jint(g, "calls"), jint(g, "matched_points"), mode, html ? "below" : "at the end",
			html ? ".</p>" : "");
}

void ir_headlines_text(json_object *doc, FILE *out)
{
	headlines(doc, out, false);
}

void ir_headlines_html(json_object *doc, FILE *out)
{
	headlines(doc, out, true);
}
