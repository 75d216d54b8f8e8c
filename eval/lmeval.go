package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/reports"
)

// keyTruncatedGen is results.json's share of responses cut at the token limit.
const keyTruncatedGen = "finish_length_share"

// RunSummary is one sampler × seed run's entry in results.json.
type RunSummary map[string]any

// ResultsJSON is results.json: lm-eval's top-level layout, one "results" entry per
// run (sampler × seed, repeats pooled), keyed "task|run_id".
type ResultsJSON struct {
	Results  map[string]RunSummary `json:"results"`
	NSamples map[string]int        `json:"n-samples"`
	Config   ResultsConfig         `json:"config"`
	Order    []string              `json:"run_order"`
}

// ResultsConfig is the part of the run's setup that defines its numbers. Paths,
// devices, batch size and shard are left out on purpose: results.json of a resumed,
// re-batched or merged run is byte-identical to that of a single uninterrupted run.
type ResultsConfig struct {
	Model        string            `json:"model"`
	Task         string            `json:"task"`
	Fingerprint  string            `json:"fingerprint"`
	Problems     int               `json:"problems"`
	Seeds        []uint64          `json:"seeds"`
	Repeats      int               `json:"repeats"`
	MaxNewTokens int               `json:"max_new_tokens"`
	Samplers     []json.RawMessage `json:"samplers"`
	SamplerOrder string            `json:"sampler_order"`
	FirstArgmax  bool              `json:"first_token_argmax"`
}

// MeanSE returns the mean of n scores from their sum and sum of squares, and
// lm-eval's standard error of the mean (mean_stderr: the sample standard
// deviation over sqrt(n); sqrt(p(1-p)/(n-1)) for 0/1 scores). The SE is NaN
// for one score (lm-eval's "N/A"), both are NaN for none. Every mean and SE
// we write, ours and lm-eval's files alike, comes from here.
func MeanSE(sum, sumSq float64, n int) (float64, float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mean := sum / float64(n)
	if n == 1 {
		return mean, math.NaN()
	}
	v := (sumSq - float64(n)*mean*mean) / float64(n-1)
	return mean, math.Sqrt(max(v, 0) / float64(n))
}

func summarize(m *Manifest, grs []gradedRecord) ResultsJSON {
	type tally struct {
		n, length  int
		sum, sumSq map[reports.ScoreKey]float64
		keys       []reports.ScoreKey
	}
	var order []string
	tallies := map[string]*tally{}
	for _, g := range grs {
		key := m.Task.Name + "|" + g.Job.RunID()
		t, ok := tallies[key]
		if !ok {
			t = &tally{sum: map[reports.ScoreKey]float64{}, sumSq: map[reports.ScoreKey]float64{}}
			tallies[key] = t
			order = append(order, key)
		}
		t.n++
		for _, s := range g.Grade.Scores {
			k := s.Key()
			if _, seen := t.sum[k]; !seen {
				t.keys = append(t.keys, k)
			}
			t.sum[k] += s.Value
			t.sumSq[k] += s.Value * s.Value
		}
		t.length += b2i(g.FinishReason == FinishLength)
	}
	rc := ResultsConfig{
		Model: filepath.Base(m.Config.Model), Task: m.Task.Name, Fingerprint: m.Fingerprint, Problems: m.Problems,
		Seeds: m.Config.Seeds, Repeats: m.Config.Repeats, MaxNewTokens: m.Task.MaxNewTokens,
		SamplerOrder: m.Provenance.SamplerOrder, FirstArgmax: m.FirstTokenArgmax,
	}
	for _, s := range m.Samplers {
		rc.Samplers = append(rc.Samplers, s.Description)
	}
	out := ResultsJSON{Results: map[string]RunSummary{}, NSamples: map[string]int{}, Config: rc, Order: order}
	for _, key := range order {
		t := tallies[key]
		rs := RunSummary{"alias": m.Task.Name, keyTruncatedGen: float64(t.length) / float64(t.n)}
		var keys []string
		for _, k := range t.keys {
			mean, se := MeanSE(t.sum[k], t.sumSq[k], t.n)
			rs[string(k)], rs[k.Stderr()] = jsonNum(mean), jsonNum(se)
			keys = append(keys, string(k))
		}
		rs["score_keys"] = keys
		out.Results[key] = rs
		out.NSamples[key] = t.n
	}
	for _, g := range grs {
		key := m.Task.Name + "|" + g.Job.RunID()
		out.Results[key]["sampler"] = g.Job.Sampler
		out.Results[key]["seed"] = g.Job.Seed
		out.Results[key]["repeats"] = m.Config.Repeats
	}
	return out
}

// jsonNum turns NaN (one sample, no SE) into null, which JSON can carry; lm-eval
// writes "N/A" there, which breaks numeric readers.
func jsonNum(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// KeyPythonInts lists, in a samples.jsonl line, the score keys whose value a
// Python process_results returned as an int.
const KeyPythonInts = "python_ints"

// sampleLine is one line of samples.jsonl: everything needed to audit one answer.
// The fields are a map because lm-eval's metric keys contain commas, which struct
// tags cannot spell; encoding/json writes map keys sorted, so lines are still
// deterministic. The doc follows them last (withDoc): it may hold NaN or
// ±Infinity, written as json.dumps writes them, which encoding/json refuses.
func sampleLine(task TaskSpec, runKey string, g gradedRecord) ([]byte, error) {
	filtered := map[string]string{}
	for _, a := range g.Grade.Answers {
		filtered[a.Filter] = a.Answer
	}
	line := map[string]any{
		"doc_id": g.ProblemIndex, "problem_id": g.ProblemID, "run_key": runKey, "run_id": g.Job.RunID(),
		"sampler": g.Job.Sampler, "seed": g.Job.Seed, "repeat": g.Repeat,
		"prompt": g.Problem.Prompt, "prompt_hash": g.PromptHash, "target": g.Problem.Target,
		"resps":          [][]string{{g.Response}},
		"filtered_resps": filtered,
		"finish_reason":  g.FinishReason, "prompt_tokens": g.PromptTokens, "gen_tokens": g.GenTokens,
	}
	for _, s := range g.Grade.Scores {
		line[string(s.Key())] = s.Value
	}
	var ints []string
	for _, v := range slices.Concat(g.Grade.Values, g.Grade.Raw) {
		line[string(v.Key())] = v.JSON
		if isPyInt(v.JSON) {
			ints = append(ints, string(v.Key()))
		}
	}
	if ints != nil {
		// JSON has one number type: the score keys whose value Python
		// returned as an int, which lm-eval's samples log as 1, not 1.0.
		line[KeyPythonInts] = ints
	}
	if err := scoredSampleFields(task, g, line); err != nil {
		return nil, err
	}
	b, err := json.Marshal(line)
	if err != nil {
		return nil, err
	}
	doc, err := sampleDoc(g.Problem)
	if err != nil {
		return nil, fmt.Errorf("problem %s: doc: %w", g.ProblemID, err)
	}
	return withDoc(b, doc), nil
}

// sampleDoc is the doc as lm-eval's samples show it: the dataset row, or for
// runs made before problems.jsonl kept it, the question and worked answer.
func sampleDoc(p ProblemEntry) ([]byte, error) {
	if p.Doc != nil {
		return datasets.EncodeDoc(p.Doc, p.DocColumns)
	}
	return json.Marshal(map[string]string{"question": p.Question, "answer": docAnswer(p)})
}

func writeSamples(dir string, task TaskSpec, runKey string, grs []gradedRecord) error {
	return WriteFileAtomic(filepath.Join(dir, SamplesFile), func(w io.Writer) error {
		for _, g := range grs {
			b, err := sampleLine(task, runKey, g)
			if err != nil {
				return err
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
}

// docAnswer is the worked solution lm-eval shows as the doc's answer; runs made
// before problems.jsonl recorded it fall back to the target.
func docAnswer(p ProblemEntry) string {
	if p.Answer != "" {
		return p.Answer
	}
	return p.Target
}
