// Independent end-to-end check of one finished run directory.
//
// Usage: node reports/arrowcheck/checkrun.mjs RUN_DIR SCHEMA.json
//
// SCHEMA.json is reports.Spec() (the schema version, traces' columns and results'
// fixed columns), written by the Go test that runs this checker: the column lists
// are defined once, in reports/schemas.go.
//
// Reads RUN_DIR/results.arrow and traces.arrow with the apache-arrow npm package
// (not the Go reader that wrote them) and holds them against the files written by
// a different code path — samples.jsonl, results.json, problems.jsonl and
// manifest.json — and against invariants re-derived here in JavaScript:
//
//   - schemas: column names, order, Arrow types and nullability as
//     reports/schemas.go and reports/columns.go define them, plus the
//     entropix.schema / entropix.schema_version metadata and the provenance
//     keys (run key, sweep fingerprint, model and dataset hashes, code
//     revision) re-derived from manifest.json;
//   - run_key: the manifest's run_key, which is fingerprint@started, in every
//     row of both files; traces' sampler and seed equal their result row's;
//   - row counts: results = problems × samplers × seeds × repeats (manifest.json);
//     traces = the sum of gen_tokens, one row per generated token;
//   - every result row against its samples.jsonl line (same order, same values);
//   - prompt_hash re-computed from the prompt (sha256, first 8 bytes, hex);
//   - answer extraction (lm-eval's strict-match / flexible-extract regexes) and
//     scoring (lm-eval's GSM8K exact_match normalisation, and the numeric
//     comparison) re-implemented here, compared with the answer,<filter> and
//     <metric>,<filter> columns;
//   - per-row invariants: finish_reason, token budgets, steps 0..n-1 per sequence,
//     strategies and their parameters, entropy ≥ 0, tail_mass in [0,1], and the
//     token texts of a sequence concatenating to its response (special tokens,
//     read from the model's tokenizer.json, skipped as the response is decoded);
//   - results.json: per run (sampler × seed) the accuracies are the means of the
//     score columns, n-samples the row count, finish_length_share the share
//     of length-truncated rows.
//
// Exits 1 with a message naming the file, row and column on the first violation;
// prints a one-line summary on success. Uses only apache-arrow and node built-ins.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { typeName } from './arrowtypes.mjs';

const dir = process.argv[2];
const specPath = process.argv[3];
if (!dir || !specPath || process.argv.length > 4) {
  console.error('usage: node checkrun.mjs RUN_DIR SCHEMA.json');
  process.exit(2);
}
const SPEC = JSON.parse(readFileSync(specPath, 'utf8'));

class Violation extends Error {}
function fail(msg) {
  throw new Violation(msg);
}
function check(ok, msg) {
  if (!ok) fail(typeof msg === 'function' ? msg() : msg);
}
const show = (v) => (typeof v === 'bigint' ? `${v}n` : JSON.stringify(v));

// ---- expected schemas (reports/schemas.go; types as Go's arrow names them) ----

const SCHEMA_VERSION = SPEC.schema_version;
const col = (name, type, nullable = false) => ({ name, type, nullable });
// results.arrow: fixed columns around one nullable "answer,<filter>" column per
// filter pipeline and one nullable "<metric>,<filter>" column per score, in the
// order of the manifest task's filter_list (and metric_list within a filter).
function resultFields(task) {
  const answers = task.filters.map((f) => col(`answer,${f.Name}`, 'utf8', true));
  const scores = task.filters.flatMap((f) => task.metrics.map((m) => col(`${m.Metric},${f.Name}`, 'float64', true)));
  return [...SPEC.results_head, ...answers, ...scores, ...SPEC.results_tail];
}
const TRACE_FIELDS = SPEC.traces;

// readArrow opens an IPC *file* (not stream), checks its schema and returns its
// columns as plain arrays, one entry per row (nulls as null, int64 as BigInt).
function readArrow(name, kind, fields, provenance) {
  const buf = readFileSync(join(dir, name));
  const magic = 'ARROW1';
  check(buf.length >= 12 && buf.subarray(0, 6).toString() === magic && buf.subarray(buf.length - 6).toString() === magic,
    `${name}: not an Arrow IPC file (magic ARROW1 missing at start or end)`);
  const table = tableFromIPC(buf);
  const md = table.schema.metadata;
  check(md.get('entropix.schema') === kind, `${name}: schema metadata entropix.schema = ${show(md.get('entropix.schema'))}, want "${kind}"`);
  check(md.get('entropix.schema_version') === SCHEMA_VERSION,
    `${name}: schema metadata entropix.schema_version = ${show(md.get('entropix.schema_version'))}, want "${SCHEMA_VERSION}"`);
  for (const [key, want] of Object.entries(provenance)) {
    check(md.get(key) === want, `${name}: schema metadata ${key} = ${show(md.get(key))}, want ${show(want)} (from manifest.json)`);
  }
  const got = table.schema.fields;
  check(got.length === fields.length, () => `${name}: ${got.length} columns (${got.map((f) => f.name).join(', ')}), want ${fields.length}`);
  fields.forEach((want, i) => {
    const f = got[i];
    check(f.name === want.name, `${name}: column ${i} is ${f.name}, want ${want.name}`);
    check(typeName(f.type) === want.type, `${name}: column ${want.name} has type ${typeName(f.type)}, want ${want.type}`);
    check(f.nullable === want.nullable, `${name}: column ${want.name} nullable=${f.nullable}, want ${want.nullable}`);
  });
  const cols = {};
  for (const f of fields) {
    const vec = table.getChild(f.name);
    const values = new Array(table.numRows);
    for (let r = 0; r < table.numRows; r++) values[r] = vec.get(r);
    if (!f.nullable) {
      const r = values.findIndex((v) => v === null || v === undefined);
      check(r < 0, `${name}: row ${r} column ${f.name} is null in a non-nullable column`);
    }
    cols[f.name] = values;
  }
  return { numRows: table.numRows, cols };
}

function readJSONFile(name) {
  try {
    return JSON.parse(readFileSync(join(dir, name), 'utf8'));
  } catch (e) {
    fail(`${name}: ${e.message}`);
  }
}

function readJSONLines(name) {
  const text = readFileSync(join(dir, name), 'utf8');
  check(text === '' || text.endsWith('\n'), `${name}: last line is not terminated`);
  return text.split('\n').slice(0, -1).map((line, i) => {
    try {
      return { raw: line, v: parsePyJSON(line) };
    } catch (e) {
      fail(`${name}: line ${i + 1}: ${e.message}`);
    }
  });
}

// parsePyJSON is JSON.parse of a line Python's json.loads reads: a doc's
// non-finite floats are written as json.dumps writes them (NaN, Infinity,
// -Infinity), which JSON.parse refuses. They read as null here, where no check
// looks inside a doc; the literals inside strings are left alone.
function parsePyJSON(line) {
  try {
    return JSON.parse(line);
  } catch (e) {
    const finite = line.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/g, (m) => (m[0] === '"' ? m : 'null'));
    if (finite === line) throw e;
    return JSON.parse(finite);
  }
}

// rawUint reads an unsigned integer field of a JSON line from its text, so seeds
// above 2^53 are compared exactly (JSON.parse would round them). The look-behind
// skips the escaped quotes of a "seed" inside a string value.
function rawUint(line, key) {
  const m = line.match(new RegExp(`(?<!\\\\)"${key}":(\\d+)`));
  return m ? BigInt(m[1]) : null;
}

// ---- lm-eval extraction and scoring, re-implemented ----

const INVALID = '[invalid]';
// The GSM8K tasks' filters (lm_eval/tasks/gsm8k/*.yaml): strict pattern and its
// group_select; flexible-extract is the same in every task (group_select -1).
// The CoT pattern's final unescaped "." (lm-eval's) is spelled [^\n]: in Python and
// Go it matches any character but "\n", in JavaScript it would also refuse "\r",
// U+2028 and U+2029.
const COT_STRICT = { pattern: 'The answer is (\\-?[0-9\\.\\,]+)[^\\n]', group: 0 };
const TASKS = {
  gsm8k: { pattern: '#### (\\-?[0-9\\.\\,]+)', group: 0 },
  gsm8k_cot: COT_STRICT,
  gsm8k_cot_zeroshot: COT_STRICT,
  gsm8k_cot_llama: { pattern: 'The final answer is ((-?[$0-9.,]{2,})|(-?[0-9]+))', group: -1 },
};
const FLEXIBLE = { pattern: '(-?[$0-9.,]{2,})|(-?[0-9]+)', group: -1 };

// pyStrip is Python's str.strip(): Unicode whitespace plus \x1c-\x1f.
const pyStrip = (s) => s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/gu, '');

// regexFilter is lm-eval's RegexFilter + take_first:
//   m = re.findall(pattern, resp)[group_select]; a tuple keeps its first non-empty
//   group, else the fallback; then strip.
// These patterns mean the same in Python's re and JavaScript (leftmost-first
// alternation, no look-arounds, no empty matches, ASCII classes), and findall is
// matchAll. No "u" flag: it would reject the patterns' identity escapes ("\-").
function regexFilter(spec, response) {
  const re = new RegExp(spec.pattern, 'g');
  const matches = [...response.matchAll(re)];
  let i = spec.group;
  if (i < 0) i += matches.length;
  if (i < 0 || i >= matches.length) return INVALID;
  const m = matches[i];
  if (m.length === 1) return pyStrip(m[0]);
  if (m.length === 2) return pyStrip(m[1] ?? '');
  const g = m.slice(1).find((x) => x !== undefined && x !== '');
  return g === undefined ? INVALID : pyStrip(g);
}

// normalizeGSM8K applies GSM8K's regexes_to_ignore [",", "\$", "(?s).*#### ", "\.$"]
// with re.sub in order, then lowercases (ignore_case). Python's non-MULTILINE "$"
// also matches before a final "\n", hence the look-ahead.
function normalizeGSM8K(s) {
  return s.replace(/,/g, '').replace(/\$/g, '').replace(/[\s\S]*#### /g, '').replace(/\.(?=\n?$)/g, '').toLowerCase();
}

// decimalKey reads a GSM8K-style number ("$1,000", "29.00", "-.5", "18.") into a
// canonical exact form, so equal numbers give equal keys; null when not a number.
function decimalKey(s) {
  s = s.replace(/[,$]/g, '');
  const i = s.lastIndexOf('#### ');
  if (i >= 0) s = s.slice(i + 5);
  s = s.trim();
  if (s.endsWith('.')) s = s.slice(0, -1);
  const m = s.match(/^(-?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))$/);
  if (!m) return null;
  const int = (m[2] ?? '').replace(/^0+/, '');
  const frac = (m[3] ?? m[4] ?? '').replace(/0+$/, '');
  if (int === '' && frac === '') return '0'; // -0 == 0
  return `${m[1]}${int || '0'}.${frac}`;
}

function grade(task, response, target) {
  const strictSpec = TASKS[task];
  const strict = regexFilter(strictSpec, response);
  const flexible = regexFilter(FLEXIBLE, response);
  const out = { strict, flexible, correct_strict: false, correct_flexible: false, correct_numeric: false, correct_numeric_flexible: false };
  if (target.trim() === '') return out; // no reference answer: never correct
  out.correct_strict = normalizeGSM8K(strict) === normalizeGSM8K(target);
  out.correct_flexible = normalizeGSM8K(flexible) === normalizeGSM8K(target);
  const t = decimalKey(target);
  const p = decimalKey(strict);
  out.correct_numeric = p !== null && p === t;
  const f = decimalKey(flexible);
  out.correct_numeric_flexible = f !== null && f === t;
  return out;
}

// ---- the run ----

const FINISH = new Set(['stop', 'eos', 'length']);
// Strategies whose token is chosen without a draw: their parameters are "off".
const DETERMINISTIC = new Set(['greedy', 'argmax', 'insert_clarifying', 'first_token_argmax']);
const BASELINE_STRATEGIES = new Set(['greedy', 'sample']);
const ENTROPIX_STRATEGIES = new Set(['first_token_argmax', 'argmax', 'insert_clarifying', 'helv_sample', 'lehv', 'hehv', 'adaptive']);

function main() {
  const manifest = readJSONFile('manifest.json');
  const cfg = manifest.config;
  const taskName = manifest.task.name;
  check(manifest.status === 'complete', `manifest.json: status ${show(manifest.status)}, want "complete"`);
  check(TASKS[taskName], `manifest.json: task ${show(taskName)} is not a GSM8K task this checker knows`);
  const maxNew = manifest.task.max_new_tokens;
  check(Number.isInteger(maxNew) && maxNew > 0, `manifest.json: task.max_new_tokens ${show(maxNew)}`);
  const stops = manifest.task.stops ?? [];
  const nProblems = manifest.problems;
  const samplerByLabel = new Map(manifest.samplers.map((s) => [s.label, s]));
  check(samplerByLabel.size === manifest.samplers.length, 'manifest.json: two samplers share a label');

  // The jobs in canonical order (sampler, seed, repeat), re-derived from the config.
  const seeds = rawSeeds();
  const wantJobs = [];
  for (const s of manifest.samplers) {
    for (const seed of seeds) {
      for (let r = 0; r < cfg.repeats; r++) wantJobs.push({ sampler: s.label, seed, repeat: r });
    }
  }
  check(manifest.jobs.length === wantJobs.length,
    `manifest.json: ${manifest.jobs.length} jobs, want samplers × seeds × repeats = ${manifest.samplers.length} × ${cfg.seeds.length} × ${cfg.repeats}`);
  manifest.jobs.forEach((j, i) => {
    const w = wantJobs[i];
    check(j.sampler === w.sampler && j.repeat === w.repeat && (BigInt(j.seed) === w.seed || !Number.isSafeInteger(j.seed)),
      `manifest.json: job ${i} is ${j.sampler}/seed=${j.seed}/repeat=${j.repeat}, want ${w.sampler}/seed=${w.seed}/repeat=${w.repeat} (order: sampler, seed, repeat)`);
  });

  // rawSeeds reads config.seeds from the manifest text, exactly (uint64).
  function rawSeeds() {
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const m = text.match(/"config":\s*\{[\s\S]*?"seeds":\s*\[([^\]]*)\]/);
    check(m, 'manifest.json: config.seeds not found');
    return m[1].split(',').map((x) => x.trim()).filter((x) => x !== '').map((x) => BigInt(x));
  }

  // The run key and the provenance every Arrow file carries, re-derived here.
  const runKey = `${manifest.fingerprint}@${manifest.started}`;
  check(manifest.run_key === runKey, `manifest.json: run_key ${show(manifest.run_key)}, want fingerprint@started = ${show(runKey)}`);
  const combined = (files) => {
    if (!files || files.length === 0) return '';
    const h = createHash('sha256');
    for (const f of files) h.update(`${f.sha256} ${f.path.split('/').pop()}\n`);
    return h.digest('hex');
  };
  const rev = manifest.code.revision ?? '';
  const provenance = {
    'entropix.run_key': runKey,
    'entropix.sweep_fingerprint': manifest.fingerprint,
    'entropix.model_sha256': combined(manifest.provenance.model_files),
    'entropix.dataset_sha256': combined(manifest.provenance.dataset_files),
    'entropix.code_revision': rev !== '' && manifest.code.modified ? `${rev}+modified` : rev,
  };

  const problems = readJSONLines('problems.jsonl').map((l) => l.v);
  check(problems.length === nProblems, `problems.jsonl: ${problems.length} problems, manifest.json says ${nProblems}`);
  const problemByIndex = new Map(problems.map((p) => [p.index, p]));

  const results = readArrow('results.arrow', 'results', resultFields(manifest.task), provenance);
  // The GSM8K tasks' columns, under the names this checker grades.
  const RC = results.cols;
  Object.assign(RC, {
    extracted_strict: RC['answer,strict-match'], extracted_flexible: RC['answer,flexible-extract'],
    correct_strict: RC['exact_match,strict-match'].map((v) => v === 1),
    correct_flexible: RC['exact_match,flexible-extract'].map((v) => v === 1),
    correct_numeric: RC['numeric_match,strict-match'].map((v) => v === 1),
    correct_numeric_flexible: RC['numeric_match,flexible-extract'].map((v) => v === 1),
  });
  const wantRows = nProblems * wantJobs.length;
  check(results.numRows === wantRows,
    `results.arrow: ${results.numRows} rows, want problems × samplers × seeds × repeats = ${nProblems} × ${manifest.samplers.length} × ${cfg.seeds.length} × ${cfg.repeats} = ${wantRows}`);

  const samples = readJSONLines('samples.jsonl');
  check(samples.length === results.numRows, `samples.jsonl: ${samples.length} lines, results.arrow has ${results.numRows} rows`);

  // Result rows: canonical order, identity, samples.jsonl agreement, grading, invariants.
  const R = results.cols;
  const seqs = []; // one per result row, in file order: the sequence the traces must hold
  const problemOrder = [...problemByIndex.keys()].sort((a, b) => a - b);
  for (let r = 0; r < results.numRows; r++) {
    const where = `results.arrow row ${r}`;
    const job = wantJobs[Math.floor(r / nProblems)];
    const pIndex = problemOrder[r % nProblems];
    const runID = `${job.sampler}/seed=${job.seed}`;
    const eq = (name, want) => check(R[name][r] === want, `${where} column ${name}: got ${show(R[name][r])}, want ${show(want)}`);
    // Order and identity: jobs in manifest order, problems by index within a job.
    eq('sampler', job.sampler);
    check(R.seed[r] === job.seed, `${where} column seed: got ${show(R.seed[r])}, want ${job.seed}n`);
    eq('repeat', job.repeat);
    eq('problem_id', pIndex);
    eq('run_id', runID);
    eq('run_key', runKey);

    // The same row as samples.jsonl writes it.
    const { raw, v: s } = samples[r];
    const sw = `samples.jsonl line ${r + 1}`;
    const same = (name, got, want) => check(got === want, `${where} column ${name} = ${show(got)} but ${sw} has ${show(want)}`);
    same('run_id', R.run_id[r], s.run_id);
    same('run_key', R.run_key[r], s.run_key);
    same('sampler', R.sampler[r], s.sampler);
    check(rawUint(raw, 'seed') === R.seed[r], `${where} column seed = ${R.seed[r]}n but ${sw} has ${rawUint(raw, 'seed')}`);
    same('problem_id', R.problem_id[r], s.doc_id);
    same('repeat', R.repeat[r], s.repeat);
    same('prompt_hash', R.prompt_hash[r], s.prompt_hash);
    same('target', R.target[r], s.target);
    check(Array.isArray(s.resps) && s.resps.length === 1 && s.resps[0].length === 1, `${sw}: resps is not [[response]]`);
    same('response', R.response[r], s.resps[0][0]);
    same('extracted_strict', R.extracted_strict[r], s.filtered_resps['strict-match']);
    same('extracted_flexible', R.extracted_flexible[r], s.filtered_resps['flexible-extract']);
    same('correct_strict', R.correct_strict[r] ? 1 : 0, s['exact_match,strict-match']);
    same('correct_flexible', R.correct_flexible[r] ? 1 : 0, s['exact_match,flexible-extract']);
    same('correct_numeric', R.correct_numeric[r] ? 1 : 0, s['numeric_match,strict-match']);
    same('correct_numeric_flexible', R.correct_numeric_flexible[r] ? 1 : 0, s['numeric_match,flexible-extract']);
    eq('task', taskName);
    same('finish_reason', R.finish_reason[r], s.finish_reason);
    same('prompt_tokens', R.prompt_tokens[r], s.prompt_tokens);
    same('gen_tokens', R.gen_tokens[r], s.gen_tokens);

    // The prompt: the hash re-computed, and problems.jsonl agreeing.
    const p = problemByIndex.get(pIndex);
    check(p, `${where}: problem ${pIndex} is not in problems.jsonl`);
    const hash = createHash('sha256').update(s.prompt, 'utf8').digest('hex').slice(0, 16);
    check(R.prompt_hash[r] === hash, `${where} column prompt_hash = ${R.prompt_hash[r]}, but sha256 of the prompt in ${sw} starts ${hash}`);
    check(p.prompt_hash === hash && p.prompt === s.prompt, `${where}: problems.jsonl index ${pIndex} has another prompt than ${sw}`);
    check(p.target === R.target[r], `${where} column target = ${show(R.target[r])} but problems.jsonl has ${show(p.target)}`);
    check(p.prompt_tokens === R.prompt_tokens[r], `${where} column prompt_tokens = ${R.prompt_tokens[r]} but problems.jsonl has ${p.prompt_tokens}`);

    // Extraction and scores, re-derived from the response and target.
    const g = grade(taskName, R.response[r], R.target[r]);
    check(R.extracted_strict[r] === g.strict, `${where} column extracted_strict = ${show(R.extracted_strict[r])}, lm-eval's strict-match gives ${show(g.strict)}`);
    check(R.extracted_flexible[r] === g.flexible, `${where} column extracted_flexible = ${show(R.extracted_flexible[r])}, lm-eval's flexible-extract gives ${show(g.flexible)}`);
    for (const c of ['correct_strict', 'correct_flexible', 'correct_numeric', 'correct_numeric_flexible']) {
      check(R[c][r] === g[c], `${where} column ${c} = ${R[c][r]}, but ${show(R.extracted_strict[r])}/${show(R.extracted_flexible[r])} against target ${show(R.target[r])} gives ${g[c]}`);
    }

    // Budgets and finish reasons.
    const fin = R.finish_reason[r];
    const gen = R.gen_tokens[r];
    check(FINISH.has(fin), `${where} column finish_reason = ${show(fin)}, want stop, eos or length`);
    check(gen >= 1 && gen <= maxNew, `${where} column gen_tokens = ${gen}, want 1..max_new_tokens (${maxNew})`);
    check(R.prompt_tokens[r] >= 1, `${where} column prompt_tokens = ${R.prompt_tokens[r]}`);
    if (fin === 'length') {
      check(gen === maxNew || R.prompt_tokens[r] + gen >= cfg.max_seq_len,
        `${where}: finish_reason length after ${gen} of ${maxNew} tokens with ${R.prompt_tokens[r]} prompt tokens (max_seq_len ${cfg.max_seq_len})`);
    }
    if (fin === 'stop') check(!stops.some((st) => R.response[r].includes(st)), `${where}: response still holds a stop string`);
    check(Number.isFinite(R.latency_ms[r]) && R.latency_ms[r] >= 0, `${where} column latency_ms = ${R.latency_ms[r]}`);

    seqs.push({ r, runID, pIndex, repeat: job.repeat, gen, fin, response: R.response[r], sampler: samplerByLabel.get(job.sampler) });
  }

  // Traces: one row per generated token, sequences in result-row order, steps 0..n-1.
  const traces = readArrow('traces.arrow', 'traces', TRACE_FIELDS, provenance);
  const T = traces.cols;
  const wantTraceRows = seqs.reduce((n, s) => n + s.gen, 0);
  check(traces.numRows === wantTraceRows, `traces.arrow: ${traces.numRows} rows, want the sum of gen_tokens = ${wantTraceRows}`);
  const wholeVocab = cfg.candidates === 0;
  const specials = specialTokenIDs(cfg.model);
  let t = 0;
  for (const s of seqs) {
    const name = s.sampler.spec.name;
    const baseline = BASELINE_STRATEGIES;
    const allowed = name.startsWith('entropix') ? ENTROPIX_STRATEGIES : baseline;
    const isGreedy = name === 'greedy';
    let text = '';
    let visible = ''; // without special tokens, as the scored response is decoded
    for (let step = 0; step < s.gen; step++, t++) {
      const where = `traces.arrow row ${t} (${s.runID}, problem ${s.pIndex}, repeat ${s.repeat}, step ${step})`;
      check(T.run_id[t] === s.runID && T.problem_id[t] === s.pIndex && T.repeat[t] === s.repeat,
        `traces.arrow row ${t}: sequence (${T.run_id[t]}, problem ${T.problem_id[t]}, repeat ${T.repeat[t]}), want (${s.runID}, problem ${s.pIndex}, repeat ${s.repeat}) step ${step}: gen_tokens and trace rows disagree or are out of order`);
      check(T.run_key[t] === runKey && T.sampler[t] === R.sampler[s.r] && T.seed[t] === R.seed[s.r],
        `${where}: run_key/sampler/seed (${show(T.run_key[t])}, ${show(T.sampler[t])}, ${show(T.seed[t])}) differ from its result row's (${show(runKey)}, ${show(R.sampler[s.r])}, ${show(R.seed[s.r])})`);
      check(T.step[t] === step, `${where}: column step = ${T.step[t]}, want ${step} (steps 0..n-1 contiguous)`);
      check(T.task[t] === taskName, `${where}: column task = ${show(T.task[t])}, want ${show(taskName)}`);
      check(T.token_id[t] >= 0, `${where}: column token_id = ${T.token_id[t]}`);
      const strat = T.strategy[t];
      check(allowed.has(strat), `${where}: strategy ${show(strat)} is not one sampler ${name} makes`);
      const temp = T.temperature[t];
      check(Number.isFinite(temp) && temp >= 0, `${where}: temperature ${temp}`);
      if (isGreedy) check(strat === 'greedy' && temp === 0, `${where}: greedy row with strategy ${show(strat)} and temperature ${temp}, want greedy and 0`);
      if (DETERMINISTIC.has(strat)) {
        check(temp === 0 && T.top_k[t] === null && T.top_p[t] === null && T.min_p[t] === null,
          `${where}: deterministic strategy ${strat} with parameters temperature=${temp} top_k=${T.top_k[t]} top_p=${T.top_p[t]} min_p=${T.min_p[t]}`);
      } else {
        check(temp > 0, `${where}: strategy ${strat} draws at temperature ${temp}`);
      }
      if (name === 'min_p' && strat === 'sample') check(T.min_p[t] !== null, `${where}: a min_p draw without min_p`);
      check(T.top_k[t] === null || T.top_k[t] >= 1, `${where}: top_k ${T.top_k[t]}`);
      check(T.top_p[t] === null || (T.top_p[t] > 0 && T.top_p[t] < 1), `${where}: top_p ${T.top_p[t]} outside (0,1) (1 is written as null)`);
      check(T.min_p[t] === null || (T.min_p[t] > 0 && T.min_p[t] <= 1), `${where}: min_p ${T.min_p[t]} outside (0,1]`);
      check(Number.isFinite(T.entropy[t]) && T.entropy[t] >= 0, `${where}: entropy ${T.entropy[t]}, want finite and >= 0`);
      check(Number.isFinite(T.varentropy[t]) && T.varentropy[t] >= 0, `${where}: varentropy ${T.varentropy[t]}, want finite and >= 0`);
      check(T.tail_mass[t] >= 0 && T.tail_mass[t] <= 1, `${where}: tail_mass ${T.tail_mass[t]} outside [0,1]`);
      check(T.draw_tail_mass[t] >= 0 && T.draw_tail_mass[t] <= 1, `${where}: draw_tail_mass ${T.draw_tail_mass[t]} outside [0,1]`);
      check(T.sample_logprob[t] <= 1e-9, `${where}: sample_logprob ${T.sample_logprob[t]} > 0`);
      if (DETERMINISTIC.has(strat)) check(T.sample_logprob[t] === 0, `${where}: deterministic strategy ${strat} with sample_logprob ${T.sample_logprob[t]}`);
      check(T.survivors[t] >= 0, `${where}: survivors ${T.survivors[t]}`);
      if (wholeVocab) check(T.tail_mass[t] === 0, `${where}: tail_mass ${T.tail_mass[t]} with the whole vocabulary as candidates, want 0`);
      // ln p ≤ 0 (a rounding hair above is tolerated); NaN only for a token the engine
      // did not return as a candidate, i.e. an inserted clarifying token.
      check(T.logprob[t] <= 1e-9 || (Number.isNaN(T.logprob[t]) && strat === 'insert_clarifying'), `${where}: logprob ${T.logprob[t]}`);
      const attn = ['attn_entropy', 'attn_varentropy', 'agreement', 'interaction_strength'].map((c) => T[c][t]);
      check(attn.every((v) => v === null) || attn.every((v) => v !== null && Number.isFinite(v)),
        `${where}: attention statistics partly null or non-finite: ${attn.join(', ')}`);
      check(attn[0] === null || (attn[0] >= 0 && attn[1] >= 0), `${where}: negative attention entropy/varentropy ${attn[0]}, ${attn[1]}`);
      text += T.token_text[t];
      if (!specials.has(T.token_id[t])) visible += T.token_text[t];
    }
    // The token texts are the streamed pieces of the response. As lm-eval's HF
    // backend, the response is the texts without special tokens, cut at the
    // earliest stop string; generation stopped on the texts with them (a stop
    // that spans a special token stops generation but no longer cuts the
    // response). An EOS token adds no text.
    const where = `traces.arrow: ${s.runID}, problem ${s.pIndex}, repeat ${s.repeat}`;
    const cut = stops.reduce((end, st) => { const i = visible.indexOf(st); return i >= 0 ? Math.min(end, i) : end; }, visible.length);
    check(visible.slice(0, cut) === s.response,
      () => `${where}: token texts without special tokens, cut at the first stop, are ${show(visible.slice(0, cut))}; response is ${show(s.response)}`);
    if (s.fin === 'stop') {
      check(stops.some((st) => text.includes(st)), () => `${where}: finish_reason stop, but no stop string in the token texts ${show(text)}`);
    }
    if (s.fin === 'eos') check(T.token_text[t - 1] === '', `${where}: the EOS token has text ${show(T.token_text[t - 1])}`);
  }

  // results.json: per run, the accuracies are the means of the result rows.
  const rj = readJSONFile('results.json');
  const byRun = new Map();
  for (const s of seqs) {
    const key = `${taskName}|${s.runID}`;
    if (!byRun.has(key)) byRun.set(key, { n: 0, strict: 0, flexible: 0, numeric: 0, numericFlexible: 0, length: 0, sampler: R.sampler[s.r], seed: R.seed[s.r] });
    const a = byRun.get(key);
    a.n++;
    a.strict += R.correct_strict[s.r] ? 1 : 0;
    a.flexible += R.correct_flexible[s.r] ? 1 : 0;
    a.numeric += R.correct_numeric[s.r] ? 1 : 0;
    a.numericFlexible += R.correct_numeric_flexible[s.r] ? 1 : 0;
    a.length += s.fin === 'length' ? 1 : 0;
  }
  check(JSON.stringify(rj.run_order) === JSON.stringify([...byRun.keys()]),
    `results.json: run_order ${show(rj.run_order)}, want ${show([...byRun.keys()])}`);
  check(Object.keys(rj.results).length === byRun.size, `results.json: ${Object.keys(rj.results).length} results, want ${byRun.size}`);
  const close = (a, b) => Math.abs(a - b) <= 1e-12;
  for (const [key, a] of byRun) {
    const e = rj.results[key];
    check(e, `results.json: no results entry ${show(key)}`);
    for (const [metric, hits] of [['exact_match,strict-match', a.strict], ['exact_match,flexible-extract', a.flexible], ['numeric_match,strict-match', a.numeric], ['numeric_match,flexible-extract', a.numericFlexible]]) {
      check(typeof e[metric] === 'number' && close(e[metric], hits / a.n),
        `results.json: ${key} ${metric} = ${show(e[metric])}, but the mean over results.arrow is ${hits}/${a.n} = ${hits / a.n}`);
    }
    check(close(e.finish_length_share, a.length / a.n), `results.json: ${key} finish_length_share = ${e.finish_length_share}, want ${a.length}/${a.n}`);
    check(rj['n-samples'][key] === a.n, `results.json: n-samples[${key}] = ${rj['n-samples'][key]}, want ${a.n}`);
    check(e.sampler === a.sampler && (BigInt(e.seed) === a.seed || !Number.isSafeInteger(e.seed)), `results.json: ${key} names sampler ${show(e.sampler)} seed ${e.seed}`);
  }

  console.log(`checkrun: ${dir}: ok: ${results.numRows} results (${nProblems} problems × ${manifest.samplers.length} samplers × ${cfg.seeds.length} seeds × ${cfg.repeats} repeats), ${traces.numRows} trace rows, ${byRun.size} runs in results.json (apache-arrow)`);
}

try {
  main();
} catch (e) {
  if (!(e instanceof Violation)) throw e;
  console.error(`checkrun: ${dir}: ${e.message}`);
  process.exit(1);
}

// specialTokenIDs reads the special tokens of the run's model from its
// tokenizer.json (added_tokens with special: true); empty when the file cannot
// be read, and then every token counts as text.
function specialTokenIDs(modelDir) {
  try {
    const tok = JSON.parse(readFileSync(join(modelDir, 'tokenizer.json'), 'utf8'));
    return new Set((tok.added_tokens ?? []).filter((a) => a.special).map((a) => a.id));
  } catch {
    return new Set();
  }
}
