/* SPDX-License-Identifier: GPL-2.0-only */
/* The document a run made, and writing it in each format. */
#include <errno.h>
#include <string.h>

#include "engine/engine.h"

struct json_object *idlereplay_report(const idlereplay *ir)
{
	return ir->doc;
}

const char *idlereplay_report_string(idlereplay *ir)
{
	if (!ir->doc)
		return NULL;
	return json_object_to_json_string_ext(ir->doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static bool is_calibration(json_object *doc)
{
	json_object *s;

	return json_object_object_get_ex(doc, "schema", &s) &&
	       !strcmp(json_object_get_string(s), IR_CALIB_SCHEMA);
}

static int write_with(json_object *doc, const char *path, int (*render)(json_object *, FILE *))
{
	struct ir_out o;

	if (ir_out_open(&o, path))
		return -1;
	return ir_out_close(&o, render(doc, o.f) == 0);
}

int idlereplay_write(idlereplay *ir, const char *format, const char *path)
{
	bool calib;
	int bad;

	ir->err[0] = 0;
	if (!ir->doc)
		return ir_engine_fail(ir, IR_ERR_USAGE, "no report yet (run first)");
	calib = is_calibration(ir->doc);
	if (!strcmp(format, "json"))
		bad = ir_report_write_json(ir->doc, path);
	else if (!strcmp(format, "text"))
		bad = write_with(ir->doc, path, calib ? ir_calib_text : ir_report_text);
	else if (!strcmp(format, "html") && !calib)
		bad = ir_report_write_html(ir->doc, path);
	else if (!strcmp(format, "csv") && !calib)
		bad = write_with(ir->doc, path, ir_report_csv);
	else
		return ir_engine_fail(ir, IR_ERR_USAGE, "no '%s' format for %s (json, text%s)", format,
				      calib ? "a calibration" : "a report", calib ? "" : ", html, csv");
	if (bad) {
		const char *what = !strcmp(format, "json") ? "JSON" : !strcmp(format, "html") ? "HTML" :
				   !strcmp(format, "csv") ? "CSV" : "text";

		return ir_engine_fail(ir, IR_ERR_INPUT, "%s: cannot write %s%s: %s", path, what,
				      calib ? "" : " report", strerror(errno));
	}
	return IR_OK;
}

int ir_engine_write_outputs(struct idlereplay *ir)
{
	int ret;

	if (ir->json_path && (ret = idlereplay_write(ir, "json", ir->json_path)))
		return ret;
	if (ir->html_path && (ret = idlereplay_write(ir, "html", ir->html_path)))
		return ret;
	return IR_OK;
}
