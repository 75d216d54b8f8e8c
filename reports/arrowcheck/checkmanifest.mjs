// Independent check of a run directory's manifest.json, read back field for field.
//
// Usage: node reports/arrowcheck/checkmanifest.mjs [--schema-only] MANIFEST.json SCHEMA.json
//
// SCHEMA.json is rundir.ManifestSchema(), written by the Go test that runs this
// checker: every key of the manifest with its JSON type, spelled as the Go type
// says it is written. Go's encoding/json matches keys case-insensitively on
// reading, so a key written "Name" where the type says "name" goes unnoticed in
// Go; here keys are compared exactly, as any other language reads them:
//
//   - every key the file holds is one the schema names (an open object, a
//     sampler's spec, may hold more), every key the schema requires is there,
//     and each value has the schema's type (null only where it may be null;
//     times parse as RFC 3339);
//   - unless --schema-only, the values agree with each other as eval writes
//     them: run_key is fingerprint@started; jobs are samplers × seeds × repeats in
//     the canonical order, each naming its sampler's label and one of the seeds;
//     each sampler's spec is the config's; shard matches config.shard; backend,
//     devices, first_token_argmax and the task name are the config's; a complete
//     run has finished at or after it started; file hashes are SHA-256 hex.
//
// Exits 1 with a message naming the key path on the first violation; prints a
// one-line summary on success. Uses node built-ins only.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

const args = process.argv.slice(2);
const schemaOnly = args[0] === '--schema-only';
if (schemaOnly) args.shift();
if (args.length !== 2) {
  console.error('usage: node checkmanifest.mjs [--schema-only] MANIFEST.json SCHEMA.json');
  process.exit(2);
}
const [manifestPath, schemaPath] = args;

class Violation extends Error {}
function check(ok, msg) {
  if (!ok) throw new Violation(typeof msg === 'function' ? msg() : msg);
}
const show = (v) => JSON.stringify(v);

let keys = 0;
function walk(path, v, f) {
  keys++;
  if (v === null) {
    check(f.nullable || f.type === 'any', `${path}: null, but it is a ${f.type}`);
    return;
  }
  switch (f.type) {
    case 'any':
      return;
    case 'string':
      check(typeof v === 'string', () => `${path}: ${show(v)} is not a string`);
      if (f.format === 'date-time') {
        check(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v) && !Number.isNaN(Date.parse(v)),
          () => `${path}: ${show(v)} is not an RFC 3339 time`);
      }
      return;
    case 'number':
      check(typeof v === 'number', () => `${path}: ${show(v)} is not a number`);
      return;
    case 'bool':
      check(typeof v === 'boolean', () => `${path}: ${show(v)} is not a boolean`);
      return;
    case 'array':
      check(Array.isArray(v), () => `${path}: ${show(v)} is not an array`);
      v.forEach((x, i) => walk(`${path}[${i}]`, x, f.items));
      return;
    case 'object': {
      check(typeof v === 'object' && !Array.isArray(v), () => `${path}: ${show(v)} is not an object`);
      const fields = f.fields ?? {};
      for (const k of Object.keys(v)) {
        if (k in fields) continue;
        if (f.items) walk(`${path}.${k}`, v[k], f.items);
        else {
          const fold = (n) => n.toLowerCase().replaceAll('_', '');
          const like = Object.keys(fields).find((n) => fold(n) === fold(k));
          check(f.open, `${path}.${k}: no such key in a manifest${like ? ` (the key is spelled ${show(like)})` : ''}`);
        }
      }
      for (const [k, sub] of Object.entries(fields)) {
        if (k in v) walk(`${path}.${k}`, v[k], sub);
        else check(sub.optional, `${path}.${k}: missing`);
      }
      return;
    }
    default:
      throw new Error(`schema: unknown type ${show(f.type)} at ${path}`);
  }
}

// values checks what the keys hold against each other, as eval writes them.
function values(m) {
  const c = m.config;
  check(m.run_key.startsWith(`${m.fingerprint}@`), `run_key ${show(m.run_key)} is not fingerprint@started (fingerprint ${show(m.fingerprint)})`);
  const keyTime = m.run_key.slice(m.fingerprint.length + 1);
  check(Date.parse(keyTime) === Date.parse(m.started), `run_key's time ${show(keyTime)} is not started ${show(m.started)}`);
  check(['running', 'finishing', 'complete'].includes(m.status), `status ${show(m.status)}`);
  if (m.status === 'complete') {
    check(m.finished && Date.parse(m.finished) >= Date.parse(m.started), `finished ${show(m.finished)} before started ${show(m.started)}`);
  }
  check(m.samplers.length === c.samplers.length, `samplers: ${m.samplers.length}, config.samplers: ${c.samplers.length}`);
  m.samplers.forEach((s, i) => {
    check(isDeepStrictEqual(s.spec, c.samplers[i]), () => `samplers[${i}].spec ${show(s.spec)} is not config.samplers[${i}] ${show(c.samplers[i])}`);
  });
  check(new Set(m.samplers.map((s) => s.label)).size === m.samplers.length, 'samplers: two share a label');
  const want = m.samplers.length * c.seeds.length * c.repeats;
  check(m.jobs.length === want, `jobs: ${m.jobs.length}, want samplers × seeds × repeats = ${m.samplers.length} × ${c.seeds.length} × ${c.repeats} = ${want}`);
  let j = 0;
  m.samplers.forEach((s, si) => {
    for (const seed of c.seeds) {
      for (let r = 0; r < c.repeats; r++, j++) {
        const got = m.jobs[j];
        const exp = { sampler_index: si, sampler: s.label, seed, repeat: r };
        check(isDeepStrictEqual(got, exp), () => `jobs[${j}]: ${show(got)}, want ${show(exp)}`);
      }
    }
  });
  const [index, count] = c.shard ? c.shard.split('/').map(Number) : [0, 1];
  check(m.shard.Index === index && m.shard.Count === count, () => `shard ${show(m.shard)} is not config.shard ${show(c.shard)}`);
  check(m.backend === c.backend, `backend ${show(m.backend)} is not config.backend ${show(c.backend)}`);
  check(isDeepStrictEqual(m.devices, c.devices), () => `devices ${show(m.devices)} are not config.devices ${show(c.devices)}`);
  check(m.first_token_argmax === c.first_token_argmax, 'first_token_argmax is not the config\'s');
  check(m.task.name === c.task, `task.name ${show(m.task.name)} is not config.task ${show(c.task)}`);
  for (const list of ['model_files', 'dataset_files']) {
    m.provenance[list].forEach((f, i) => {
      check(/^[0-9a-f]{64}$/.test(f.sha256), `provenance.${list}[${i}].sha256 ${show(f.sha256)} is not SHA-256 hex`);
      check(Number.isInteger(f.bytes) && f.bytes >= 0, `provenance.${list}[${i}].bytes ${show(f.bytes)}`);
    });
  }
}

try {
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
  let m;
  try {
    m = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (e) {
    throw new Violation(`not JSON: ${e.message}`);
  }
  walk('manifest', m, schema);
  if (!schemaOnly) values(m);
  console.log(`${manifestPath}: ${keys} values read back as the schema names them${schemaOnly ? '' : ', consistent with each other'}`);
} catch (e) {
  if (!(e instanceof Violation)) throw e;
  console.error(`${manifestPath}: ${e.message}`);
  process.exit(1);
}
