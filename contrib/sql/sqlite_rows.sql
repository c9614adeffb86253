-- SPDX-License-Identifier: GPL-2.0-only
-- idlereplay's long-format rows (report --format jsonl) in SQLite, through
-- its JSON functions: the raw lines, imported first, become a table with the
-- documented columns (docs/report.md, "Long-format rows"), indexed for the
-- join of contrib/sql/fleet_totals.sql:
--   sqlite3 fleet.db -cmd 'CREATE TABLE idlereplay_raw(line TEXT)' \
--       -cmd '.mode ascii' -cmd '.separator "\037" "\n"' '.import rows.jsonl idlereplay_raw'
--   sqlite3 fleet.db < contrib/sql/sqlite_rows.sql
--   sqlite3 -box fleet.db < contrib/sql/fleet_totals.sql
-- (ASCII mode with a unit separator that JSON never holds: one line, one value.)
DROP TABLE IF EXISTS idlereplay_rows;
CREATE TABLE idlereplay_rows AS SELECT
  json_extract(line, '$.trace') AS trace,
  json_extract(line, '$.trace_id') AS trace_id,
  json_extract(line, '$.host') AS host,
  json_extract(line, '$.kernel') AS kernel,
  json_extract(line, '$.cpus') AS cpus,
  json_extract(line, '$.window_ns') AS window_ns,
  json_extract(line, '$.policy') AS policy,
  json_extract(line, '$.label') AS label,
  json_extract(line, '$.reference') AS reference,
  json_extract(line, '$.sweep_param') AS sweep_param,
  json_extract(line, '$.sweep_value') AS sweep_value,
  json_extract(line, '$.level') AS level,
  json_extract(line, '$.newidle_points') AS newidle_points,
  json_extract(line, '$.attempts') AS attempts,
  json_extract(line, '$.pulls') AS pulls,
  json_extract(line, '$.balance_cost_ns') AS balance_cost_ns,
  json_extract(line, '$.migrations_avoided') AS migrations_avoided,
  json_extract(line, '$.idle_recovered_ns') AS idle_recovered_ns,
  json_extract(line, '$.idle_lost_ns') AS idle_lost_ns,
  json_extract(line, '$.idle_traded_ns') AS idle_traded_ns,
  json_extract(line, '$.bails_not_overloaded') AS bails_not_overloaded,
  json_extract(line, '$.bails_migration_cost') AS bails_migration_cost,
  json_extract(line, '$.bails_lowest_cost') AS bails_lowest_cost,
  json_extract(line, '$.bails_ttwu_pending') AS bails_ttwu_pending
FROM idlereplay_raw;
CREATE INDEX idlereplay_rows_ref ON idlereplay_rows(trace_id, label, level);
