// Independent reader check for the Arrow files written by package reports.
//
// Usage: node reports/arrowcheck/check.mjs DIR
//
// DIR holds the .arrow files and expected.json, written by the Go test
// TestArrowFilesReadByNode:
//   { "files": { "<name>.arrow": { "kind": "...", "min_batches": N,
//       "fields": [{"name", "type", "nullable"}], "rows": [{col: value}],
//       "metadata": {key: value} } } }   (metadata optional: keys that must match)
// Types are named as Go's arrow.DataType.Name() spells them (int32, int64,
// float64, utf8, bool; a list with its element type, list<float64>). int64 values come as decimal strings (they may exceed
// 2^53); non-finite floats as "NaN", "Infinity", "-Infinity".
// Exits 1 and lists every mismatch when the files and the JSON disagree.
//
// It also writes every table it read back out with apache-arrow's own IPC file
// writer to DIR/js/<name>, so the Go test can check the reverse direction: the
// Go reader on files from a foreign writer.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordBatchReader, tableFromIPC, tableToIPC } from 'apache-arrow';
import { typeName } from './arrowtypes.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node check.mjs DIR');
  process.exit(2);
}
const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
const problems = [];
const fail = (file, msg) => problems.push(`${file}: ${msg}`);

// sameValue compares a cell read by apache-arrow with its expected JSON value.
function sameValue(type, got, want) {
  if (want === null || got === null) return got === want;
  switch (type) {
    case 'int64': return typeof got === 'bigint' && got.toString() === want;
    case 'float64': {
      const w = typeof want === 'string' ? Number(want) : want; // "NaN", "Infinity"
      return typeof got === 'number' && Object.is(got, w);
    }
    case 'list<float64>': {
      const items = Array.from(got);
      return Array.isArray(want) && items.length === want.length && items.every((x, i) => sameValue('float64', x, want[i]));
    }
    default: return got === want;
  }
}

const ARROW_MAGIC = 'ARROW1';
for (const [name, spec] of Object.entries(expected.files)) {
  const buf = readFileSync(join(dir, name));
  // The IPC file format starts and ends with the magic; the stream format does not.
  if (buf.subarray(0, 6).toString() !== ARROW_MAGIC || buf.subarray(buf.length - 6).toString() !== ARROW_MAGIC) {
    fail(name, 'not an Arrow IPC file (magic ARROW1 missing at start or end)');
    continue;
  }
  const reader = RecordBatchReader.from(buf);
  if (!reader.isFile()) {
    fail(name, 'apache-arrow does not read it as the IPC file format');
    continue;
  }
  const table = tableFromIPC(buf);
  const fields = table.schema.fields;
  mkdirSync(join(dir, 'js'), { recursive: true });
  writeFileSync(join(dir, 'js', name), tableToIPC(table, 'file'));

  const kind = table.schema.metadata.get('entropix.schema');
  if (kind !== spec.kind) fail(name, `schema metadata entropix.schema = ${kind}, want ${spec.kind}`);
  for (const [key, want] of Object.entries(spec.metadata ?? {})) {
    const got = table.schema.metadata.get(key);
    if (got !== want) fail(name, `schema metadata ${key} = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  if (fields.length !== spec.fields.length) {
    fail(name, `${fields.length} columns, want ${spec.fields.length}`);
  }
  spec.fields.forEach((want, i) => {
    const got = fields[i];
    if (!got) return;
    const gotType = typeName(got.type);
    if (got.name !== want.name) fail(name, `column ${i} is ${got.name}, want ${want.name}`);
    if (gotType !== want.type) fail(name, `column ${want.name} has type ${gotType}, want ${want.type}`);
    if (got.nullable !== want.nullable) fail(name, `column ${want.name} nullable=${got.nullable}, want ${want.nullable}`);
  });
  if (table.batches.length < (spec.min_batches ?? 1)) {
    fail(name, `${table.batches.length} record batches, want at least ${spec.min_batches}`);
  }
  if (table.numRows !== spec.rows.length) {
    fail(name, `${table.numRows} rows, want ${spec.rows.length}`);
    continue;
  }
  spec.fields.forEach((f, c) => {
    const col = table.getChildAt(c);
    if (!col) return;
    for (let r = 0; r < spec.rows.length; r++) {
      const got = col.get(r);
      const want = spec.rows[r][f.name];
      if (!sameValue(f.type, got, want)) {
        fail(name, `row ${r} column ${f.name}: got ${typeof got === 'bigint' ? got + 'n' : JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
    }
  });
}

if (problems.length > 0) {
  console.error(problems.slice(0, 50).join('\n'));
  if (problems.length > 50) console.error(`... and ${problems.length - 50} more`);
  process.exit(1);
}
console.log(`arrowcheck: ${Object.keys(expected.files).length} files match (apache-arrow)`);
