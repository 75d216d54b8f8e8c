// Package lmevalout writes a finished run directory's results in
// lm-evaluation-harness's own output files, as `lm_eval --output_path DIR
// --log_samples` writes them (lm_eval/loggers/evaluation_tracker.py,
// lm_eval/evaluator.py, v0.4.10+), so tooling that reads lm-eval's files reads
// ours, and diffing ours against lm-eval's shows content, not formatting: the
// files are the bytes lm-eval's json.dumps writes (internal/pyjson), in its key
// and line order. Each sampler × seed is one lm-eval evaluation, so each gets its own
// output path: RUN/lm-eval/<sampler>__seed=<seed>/<model_name_sanitized>/
// results_<date>.json and samples_<task>_<date>.jsonl. The files are built from
// the run directory's manifest.json, results.json and samples.jsonl, whatever
// (filter, metric) pairs the task scores.
package lmevalout

import (
	"github.com/entropix-eval/entropix-eval/rundir"

	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/internal/safepath"
)

// ErrNotWritten says a run has no lm-eval equivalent, so no files were written.
var ErrNotWritten = errors.New("lm-eval files not written")

// Dir is the run directory's folder of lm-eval output paths.
const Dir = rundir.LMEvalDir

// maxSampleLine bounds one samples.jsonl line (a long response and its doc).
const maxSampleLine = 64 << 20

// Write rewrites dir's lm-eval files from its result files and returns their
// paths. Earlier lm-eval files there are removed first (only files of the
// names Write gives, see removeOurs), so a rescored run never keeps stale ones
// beside the new.
func Write(dir string) ([]string, error) {
	m, err := eval.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	task, err := readTask(dir)
	if err != nil {
		return nil, err
	}
	results, err := readResults(dir)
	if err != nil {
		return nil, err
	}
	lines, err := readSamples(dir)
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, Dir)
	if err := removeOurs(root); err != nil {
		return nil, fmt.Errorf("lm-eval files: %w", err)
	}
	date := m.Started.UTC()
	if m.Finished != nil {
		date = m.Finished.UTC()
	}
	// lm-eval's date_id: datetime.now().isoformat() with ':' replaced by '-'.
	dateID := strings.ReplaceAll(date.Format("2006-01-02T15:04:05.000000"), ":", "-")
	modelName := ModelName(m.Config.Model)
	original := results.Config.Problems
	if m.Task.SplitSize > 0 {
		original = m.Task.SplitSize // the split before --limit
	}
	var written []string
	for _, info := range m.Samplers {
		for _, seed := range m.Config.Seeds {
			runID := eval.Job{Sampler: info.Label, Seed: seed}.RunID()
			res, ok := results.Results[m.Task.Name+"|"+runID]
			if !ok {
				continue // an empty shard: nothing was evaluated
			}
			r := run{m: m, task: task, info: info, seed: seed, modelName: modelName, dateID: dateID,
				results: res, samples: lines[runID], original: original}
			out, err := safepath.Join(root, SanitizeModelName(runID), SanitizeModelName(modelName))
			if err != nil {
				return nil, fmt.Errorf("lm-eval files for %s: %w", runID, err)
			}
			files, err := r.write(out)
			if err != nil {
				// No half-written lm-eval folder: the files are all there or none.
				if rmErr := os.RemoveAll(root); rmErr != nil {
					return nil, errors.Join(fmt.Errorf("lm-eval files for %s: %w", runID, err), rmErr)
				}
				return nil, fmt.Errorf("lm-eval files for %s: %w", runID, err)
			}
			written = append(written, files...)
		}
	}
	if len(written) == 0 {
		return nil, fmt.Errorf("%w: the run evaluated no problems", ErrNotWritten)
	}
	return written, nil
}

// SanitizeModelName is lm-eval's sanitize_model_name: each run of the
// characters "<>:/|\?*[] becomes "__".
func SanitizeModelName(s string) string { return unsafeChars.ReplaceAllString(s, "__") }

var unsafeChars = regexp.MustCompile(`["<>:/|\\?*\[\]]+`)

// ModelName is the name lm-eval would log for the checkpoint: the hub repo id
// of a Hugging Face cache snapshot (…/models--org--name/snapshots/<rev>), else
// the path as given, as pretrained= names it.
func ModelName(path string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	for i := len(parts) - 3; i >= 0; i-- {
		if repo, ok := strings.CutPrefix(parts[i], "models--"); ok && parts[i+1] == "snapshots" {
			if org, name, ok := strings.Cut(repo, "--"); ok {
				return org + "/" + name
			}
		}
	}
	return path
}

// HashString is lm-eval's hash_string: the hex SHA-256 of the UTF-8 text.
func HashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func readResults(dir string) (eval.ResultsJSON, error) {
	var rf eval.ResultsJSON
	b, err := os.ReadFile(filepath.Join(dir, eval.ResultsJSONFile))
	if err != nil {
		return rf, err
	}
	if err := json.Unmarshal(b, &rf); err != nil {
		return rf, fmt.Errorf("read %s: %w", eval.ResultsJSONFile, err)
	}
	return rf, nil
}

// readTask reads the manifest's task as JSON, so every field it records (its
// config, where the manifest has one) reaches configs, its keys in the
// manifest's order and its numbers as ints or floats as they were written.
func readTask(dir string) (*pyjson.Dict, error) {
	var raw struct {
		Task json.RawMessage `json:"task"`
	}
	b, err := os.ReadFile(filepath.Join(dir, eval.ManifestFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("read %s: %w", eval.ManifestFile, err)
	}
	if len(raw.Task) == 0 {
		return nil, nil
	}
	v, err := pyjson.Decode(raw.Task)
	if err != nil {
		return nil, fmt.Errorf("read %s: task: %w", eval.ManifestFile, err)
	}
	task, _ := v.(*pyjson.Dict)
	return task, nil
}

// readSamples groups samples.jsonl's lines by run id, in file order.
func readSamples(dir string) (map[string][]map[string]any, error) {
	path := filepath.Join(dir, eval.SamplesFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxSampleLine)
	for n := 1; sc.Scan(); n++ {
		// The doc may hold NaN or ±Infinity (json.dumps's spelling), which
		// encoding/json does not read: Decode reads it, keeping its column
		// order and number text for doc_hash.
		var line map[string]any
		if err := json.Unmarshal(pyjson.Standard(sc.Bytes()), &line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if _, ok := line["doc"]; ok {
			whole, err := pyjson.Decode(sc.Bytes())
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, n, err)
			}
			line["doc"], _ = whole.(*pyjson.Dict).Get("doc")
		}
		id, _ := line["run_id"].(string)
		out[id] = append(out[id], line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// scoreKeys lists a result entry's (metric, filter) keys without their
// stderr companions, in lm-eval's "metric,filter" spelling, sorted.
func scoreKeys(entry map[string]any) []string {
	var keys []string
	for k := range entry {
		m, _, ok := strings.Cut(k, ",")
		if ok && !strings.HasSuffix(m, "_stderr") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
