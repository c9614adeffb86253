-- SPDX-License-Identifier: GPL-2.0-only
-- Fleet totals per policy from idlereplay's long-format rows: the figures of
-- the "total" row of 'idlereplay report merge' (docs/fleet.md).  Plain SQL
-- over a table or view idlereplay_rows with the documented columns: SQLite
-- (contrib/sql/sqlite_rows.sql), DuckDB (read_json_auto), Spark SQL and
-- Trino (the jsonl files as a table).  Rows of one trace must be loaded once
-- (trace_id is the key; 'report merge' refuses a trace twice).
-- net_ns: (idle recovered - balancing cost) - the reference's, per host.
SELECT r.label AS policy,
       COUNT(*) AS hosts,
       SUM(r.pulls) AS pulls,
       SUM(r.migrations_avoided) AS migrations_avoided,
       SUM(r.idle_traded_ns) AS idle_traded_ns,
       SUM(r.idle_recovered_ns) AS idle_recovered_ns,
       SUM(r.idle_lost_ns) AS idle_lost_ns,
       SUM(r.balance_cost_ns) AS balance_cost_ns,
       SUM((r.idle_recovered_ns - r.balance_cost_ns) - (b.idle_recovered_ns - b.balance_cost_ns)) AS net_ns
FROM idlereplay_rows r
LEFT JOIN idlereplay_rows b
  ON b.trace_id = r.trace_id AND b.label = r.reference AND b.level = 'all' AND b.sweep_param IS NULL
WHERE r.level = 'all' AND r.sweep_param IS NULL
GROUP BY r.label
ORDER BY r.label;
