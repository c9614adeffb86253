/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the renderers, loading a saved report and writing an
 * output; none of them calls a renderer (the renderers call them). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/util.h"

/* Durations a person can read: ns, us, ms, s. */
const char *ir_fmt_ns(char *buf, size_t len, int64_t ns)
{
	double v = (double)ns;

	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1000)
		snprintf(buf, len, "%" PRId64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", v / 1e6);
	else
		snprintf(buf, len, "%.3f s", v / 1e9);
	return buf;
}

const char *ir_fmt_sns(char *buf, size_t len, int64_t ns)
{
	char b[32];

	if (ns == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+',
			 ir_fmt_ns(b, sizeof(b), ns < 0 ? -ns : ns));
	return buf;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double ir_percentile(double *v, int n, double pct)
{
	int rank;

	if (n <= 0)
		return __builtin_nan("");
	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	rank = (int)((pct / 100.0) * n + 0.999999);	/* nearest rank, ceil */
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static int add_level(const char **names, int n, int max, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return n;
	if (n < max)
		names[n++] = s;
	return n;
}

int ir_levels(json_object *doc, const char **names, int max)
{
	json_object *lv = jget(jget(doc, "domains"), "levels"), *pol = jget(doc, "policies");
	int n = 0;

	for (size_t i = 0; i < jlen(lv); i++)
		if (json_object_is_type(jidx(lv, i), json_type_string))
			n = add_level(names, n, max, json_object_get_string(jidx(lv, i)));
	for (size_t i = 0; i < jlen(pol); i++) {
		json_object *p = jidx(pol, i);
		const char *keys[] = { "pulls", "attempts", "balance_cost_by_level" };

		for (size_t k = 0; k < 3; k++) {
			json_object *by = k < 2 ? jget(jget(p, keys[k]), "by_level") : jget(p, keys[k]);

			if (!by || !json_object_is_type(by, json_type_object))
				continue;
			json_object_object_foreach(by, key, val) {
				(void)val;
				n = add_level(names, n, max, key);
			}
		}
	}
	return n;
}

json_object *ir_report_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	json_tokener *tok;
	json_object *doc = NULL, *s;
	char buf[65536];
	size_t n;
	enum json_tokener_error jerr = json_tokener_continue;

	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		doc = json_tokener_parse_ex(tok, buf, (int)n);
		jerr = json_tokener_get_error(tok);
		if (jerr != json_tokener_continue)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
		json_object_put(doc);
		doc = NULL;
	} else if (!doc || jerr != json_tokener_success) {
		snprintf(err, errlen, "not JSON (%s at offset %zu)",
			 jerr == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(jerr),
			 json_tokener_get_parse_end(tok));
		json_object_put(doc);
		doc = NULL;
	} else if (!json_object_is_type(doc, json_type_object) || !(s = jget(doc, "schema")) ||
		   !json_object_is_type(s, json_type_string)) {
		snprintf(err, errlen, "not an idlereplay report (no \"schema\" key)");
		json_object_put(doc);
		doc = NULL;
	} else if (strcmp(json_object_get_string(s), IR_REPORT_SCHEMA)) {
		snprintf(err, errlen, "unsupported schema \"%.64s\" (this idlereplay reads %s)",
			 json_object_get_string(s), IR_REPORT_SCHEMA);
		json_object_put(doc);
		doc = NULL;
	} else if (!json_object_is_type(jget(doc, "trace"), json_type_object) ||
		   !json_object_is_type(jget(doc, "observed"), json_type_object)) {
		snprintf(err, errlen, "not a complete %s report (\"trace\" or \"observed\" missing)", IR_REPORT_SCHEMA);
		json_object_put(doc);
		doc = NULL;
	}
	json_tokener_free(tok);
	fclose(f);
	return doc;
}

void ir_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int ir_out_open(struct ir_out *o, const char *path)
{
	int fd;

	o->path = path;
	o->tmp[0] = 0;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(o->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

int ir_out_close(struct ir_out *o, int ok)
{
	if (o->f == stdout)
		return fflush(stdout) || !ok ? -1 : 0;
	if (fclose(o->f) || !ok || rename(o->tmp, o->path)) {
		int e = errno;

		unlink(o->tmp);
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}

int64_t ir_idle_total(json_object *doc)
{
	json_object *c = jget(jget(doc, "observed"), "cpus");
	int64_t s = 0;

	for (size_t i = 0; i < jlen(c); i++)
		s += jint(jidx(c, i), "idle_ns");
	return s;
}

uint64_t ir_trace_fingerprint(json_object *t)
{
	int64_t v[4] = { jint(t, "first_ts"), jint(t, "last_ts"), jint(t, "events_total"), jint(t, "cpus") };
	const unsigned char *b = (const unsigned char *)v;
	uint64_t h = 1469598103934665603ULL;
	const char *host = jstr(t, "hostname", "");

	for (size_t i = 0; i < sizeof(v); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	for (; *host; host++)
		h = (h ^ (unsigned char)*host) * 1099511628211ULL;
	return h ? h : 1;
}

void ir_html_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '<' || c == '>' || c == '&' || c == '"' || c == '\'')
			fprintf(out, "&#%d;", c);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', out);
		else
			fputc(c, out);
	}
}
