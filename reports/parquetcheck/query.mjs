// query.mjs runs one SQL statement in an in-memory DuckDB and prints its result
// as JSON: {"columns": [{"name", "type"}], "rows": [[cell, ...], ...]}, cells as
// DuckDB's JSON conversion writes them (BIGINT as a string, NULL as null).
// Usage: node query.mjs "SELECT ... FROM read_parquet('results.parquet')"
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node query.mjs SQL');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const res = await conn.runAndReadAll(sql);
const names = res.columnNames();
const types = res.columnTypes().map((t) => t.toString());
const columns = names.map((name, i) => ({ name, type: types[i] }));
process.stdout.write(JSON.stringify({ columns, rows: res.getRowsJson() }) + '\n');
