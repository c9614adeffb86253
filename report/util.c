/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the renderers, loading a saved report and writing an
 * output; none of them calls a renderer (the renderers call them). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/place.h"
#include "report/report.h"
#include "report/util.h"

/* A magnitude v >= 0 in ns, after sign: ns, us, ms, s.  In double, so
 * that no value (INT64_MIN's magnitude, a sum over a fleet) overflows. */
static const char *fmt_mag(char *buf, size_t len, const char *sign, double v)
{
	if (v < 1000)
		snprintf(buf, len, "%s%.0f ns", sign, v);
	else if (v < 1e6)
		snprintf(buf, len, "%s%.1f us", sign, v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%s%.2f ms", sign, v / 1e6);
	else
		snprintf(buf, len, "%s%.3f s", sign, v / 1e9);
	return buf;
}

/* Durations a person can read: ns, us, ms, s. */
const char *ir_fmt_ns(char *buf, size_t len, int64_t ns)
{
	return ir_fmt_dns(buf, len, (double)ns);
}

const char *ir_fmt_dns(char *buf, size_t len, double ns)
{
	if (ns < 0 || isnan(ns))
		snprintf(buf, len, "-");
	else
		fmt_mag(buf, len, "", ns);
	return buf;
}

const char *ir_fmt_dsns(char *buf, size_t len, double ns)
{
	if (ns == 0 || isnan(ns))
		snprintf(buf, len, isnan(ns) ? "-" : "0");
	else
		fmt_mag(buf, len, ns < 0 ? "-" : "+", fabs(ns));
	return buf;
}

const char *ir_fmt_sns(char *buf, size_t len, int64_t ns)
{
	return ir_fmt_dsns(buf, len, (double)ns);
}

const char *ir_tsafe(const char *s)
{
	/* rotating buffers: one printf may take a few of these */
	static _Thread_local char ring[8][4096];
	static _Thread_local unsigned next;
	char *b;
	size_t n = 0, room = sizeof(ring[0]) - 4;	/* "..." and NUL */
	const unsigned char *p;

	if (!s)
		return NULL;
	b = ring[next++ % 8];
	for (p = (const unsigned char *)s; *p; p++) {
		/* C0, DEL, and C1 (U+0080..U+009F, UTF-8 C2 80..C2 9F: CSI is C2 9B) */
		int c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;

		if (*p < 0x20 || *p == 0x7f || c1) {
			if (n + (c1 ? 8 : 4) > room)
				break;
			n += (size_t)snprintf(b + n, 5, "\\x%02x", *p);
			if (c1)
				n += (size_t)snprintf(b + n, 5, "\\x%02x", *++p);
		} else {
			if (n + 1 > room)
				break;
			b[n++] = (char)*p;
		}
	}
	if (*p) {
		memcpy(b + n, "...", 3);
		n += 3;
	}
	b[n] = '\0';
	return b;
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
			n = add_level(names, n, max, jtext(jidx(lv, i)));
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
	size_t n, total = 0;
	struct stat st;
	enum json_tokener_error jerr = json_tokener_continue;

	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	/* json-c needs up to ~26 bytes of memory per byte of JSON: refuse
	 * before parsing (a FIFO is counted as it is read, below) */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > IR_REPORT_MAX_BYTES) {
		snprintf(err, errlen, "%lld MiB, larger than the %d MiB a report may have",
			 (long long)(st.st_size >> 20), IR_REPORT_MAX_BYTES >> 20);
		fclose(f);
		return NULL;
	}
	tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	if (!tok) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		total += n;
		if (total > IR_REPORT_MAX_BYTES) {
			snprintf(err, errlen, "larger than the %d MiB a report may have", IR_REPORT_MAX_BYTES >> 20);
			json_tokener_free(tok);
			fclose(f);
			return NULL;
		}
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
	/* OWASP "CSV Injection": a cell starting with = + - @ TAB or CR is a
	 * formula to a spreadsheet; prefix it with ' inside a quoted field. */
	int formula = s[0] && strchr("=+-@\t\r", s[0]);

	if (!formula && !strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int ir_out_open(struct ir_out *o, const char *path)
{
	struct ir_place pl;
	int fd;

	o->path = path;
	o->tmp[0] = 0;
	o->f = NULL;
	if (ir_place_decide(path, &pl, NULL, 0))
		return -1;
	if (pl.kind == IR_PLACE_STDOUT) {
		o->f = stdout;
		return 0;
	}
	if (pl.kind == IR_PLACE_IN_PLACE) {
		/* a device, FIFO or /proc/self/fd/N: written where it is */
		fd = ir_place_open(path, &pl);
		if (fd < 0)
			return -1;
		o->f = fdopen(fd, "w");
		if (!o->f) {
			close(fd);
			return -1;
		}
		return 0;
	}
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(o->tmp)) {
		o->tmp[0] = 0;
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		o->tmp[0] = 0;
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = 0;
		return -1;
	}
	return 0;
}

int ir_out_close(struct ir_out *o, int ok)
{
	if (o->f == stdout)
		return fflush(stdout) || !ok ? -1 : 0;
	if (!o->tmp[0]) {	/* in place: nothing to rename or remove */
		int bad = fclose(o->f);

		if (bad || !ok) {
			errno = bad && errno ? errno : EIO;
			return -1;
		}
		return 0;
	}
	if (fclose(o->f) || !ok || rename(o->tmp, o->path)) {
		int e = errno;

		unlink(o->tmp);
		errno = e ? e : EIO;
		return -1;
	}
	return 0;
}

bool ir_out_is_stdout(const char *path)
{
	return path && ir_place_is_stdout(path);
}

double ir_idle_total(json_object *doc)
{
	json_object *c = jget(jget(doc, "observed"), "cpus");
	double s = 0;

	for (size_t i = 0; i < jlen(c); i++)
		s += (double)jint(jidx(c, i), "idle_ns");
	return s;
}

const char *ir_hostname(json_object *trace)
{
	const char *h = jstr(trace, "hostname", "");

	return *h ? h : NULL;
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
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* control bytes from data: visible, as in the text report */
			if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
				fprintf(out, "\\x%02x", (unsigned char)*s);
			else
				fputc(*s, out);
		}
	}
}

/* ------------------------------------------------------------- axes */

static double symlog(const struct ir_axis *a, double v)
{
	return a->symlog ? copysign(log10(1 + fabs(v) / a->c), v) : v;
}

void ir_axis_init(struct ir_axis *a, const double *v, int n)
{
	double mn = 0, mx = 0;

	a->lo = a->hi = 0;
	for (int i = 0; i < n; i++) {
		double m = fabs(v[i]);

		if (isnan(v[i]))
			continue;
		a->lo = fmin(a->lo, v[i]);
		a->hi = fmax(a->hi, v[i]);
		if (m > 0 && (!mn || m < mn))
			mn = m;
		mx = fmax(mx, m);
	}
	a->symlog = mn > 0 && mx >= 100 * mn;
	a->c = a->symlog ? mn : 1;
	if (!(a->hi > a->lo))
		a->hi = a->lo + 1;
}

double ir_axis_pos(const struct ir_axis *a, double v)
{
	double lo = symlog(a, a->lo), hi = symlog(a, a->hi);

	return hi > lo ? (symlog(a, v) - lo) / (hi - lo) : 0;
}

int ir_axis_ticks(const struct ir_axis *a, double *t, int max)
{
	int n = 0;

	if (!a->symlog)
		return 0;	/* the caller's linear ticks */
	if (n < max)
		t[n++] = 0;
	for (double d = a->c; n < max && (d <= a->hi || -d >= a->lo); d *= 10) {
		if (d <= a->hi && n < max)
			t[n++] = d;
		if (-d >= a->lo && n < max)
			t[n++] = -d;
	}
	return n;
}

void ir_lost_sentence(FILE *out, json_object *l, json_object *t)
{
	char b1[32], b2[32];

	fprintf(out, "CPU %" PRId64 " lost events (overrun %" PRId64 ", dropped %" PRId64
		", missed %" PRId64 "%s)", jint(l, "cpu"), jint(l, "overrun"), jint(l, "dropped"),
		jint(l, "missed"), jint(l, "missed_unknown_count") ? ", some of unknown count" : "");
	if (jint(l, "first_ts"))
		fprintf(out, " between %s and %s into the trace",
			ir_fmt_dns(b1, sizeof(b1), (double)jint(l, "first_ts") - (double)jint(t, "first_ts")),
			ir_fmt_dns(b2, sizeof(b2), (double)jint(l, "last_ts") - (double)jint(t, "first_ts")));
	fputs(": its newidle points, migrations, idle and busy time and every policy's counts on it are "
	      "undercounted", out);
}

bool ir_cl_stalled_sentence(FILE *out, const char *prefix, json_object *fit, json_object *cl,
			    void (*put)(FILE *, const char *))
{
	json_object *fz = jget(fit, "frozen");
	bool stalled = fz && json_object_get_boolean(jget(fz, "stalled")), forced = fz && jint(fz, "forced_wakeups");
	int n = 0;

	json_object_object_foreach(cl, l0, f0) {
		(void)l0;
		stalled |= json_object_get_boolean(jget(f0, "stalled"));
	}
	if (!stalled && !forced)
		return false;
	fputs(prefix, out);

	/* a stalled run ended with tasks left holding work the trace recorded
	 * (sim/sched.c): its completion, idle and waits stop where it stalled */
	if (fz && json_object_get_boolean(jget(fz, "stalled"))) {
		fputs("not finished: the frozen run", out);
		n++;
	}
	json_object_object_foreach(cl, label, f) {
		if (!json_object_get_boolean(jget(f, "stalled")))
			continue;
		fputs(n++ ? ", " : "not finished: ", out);
		put(out, label);
	}
	if (n)
		fprintf(out, " stalled (tasks were left with recorded work when no event remained), so %s figures "
			"stop there", n > 1 ? "their" : "its");
	if (forced) {
		fprintf(out, "%sthe frozen run forced %" PRId64 " wakeups the trace does not show, so it is not the "
			"recorded schedule", n ? "; " : "", jint(fz, "forced_wakeups"));
	}
	return true;
}
