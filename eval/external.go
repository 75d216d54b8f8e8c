package eval

// Scoring responses generated elsewhere (vLLM, an API, another harness)
// with a task's prompts, filters and metrics, without a model: the responses
// become a run directory's journal, and Finalize writes every file a model
// run writes from there (results, samples, lm-eval's files, the report).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// ExternalResponse is one line of a responses file: the response to doc
// DocIndex (in the task's evaluated order, after process_docs), for repeat
// Repeat (0 unless the task repeats).
type ExternalResponse struct {
	DocIndex int    `json:"doc_index"`
	Response string `json:"response"`
	Repeat   int    `json:"repeat"`
}

// ExternalSampler is the sampler label scored responses are filed under.
const ExternalSampler = "external"

// maxResponseLine bounds one line of a responses file.
const maxResponseLine = 64 << 20

// ReadExternalResponses reads a JSON Lines responses file; errors name the
// file and line.
func ReadExternalResponses(path string) ([]ExternalResponse, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--responses: %w", err)
	}
	defer f.Close()
	return parseExternalResponses(path, f)
}

func parseExternalResponses(path string, r io.Reader) ([]ExternalResponse, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxResponseLine)
	var out []ExternalResponse
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		for k := range raw {
			if k != "doc_index" && k != "response" && k != "repeat" {
				return nil, fmt.Errorf("%s:%d: unknown field %q (want doc_index, response, repeat)", path, n, k)
			}
		}
		if raw["doc_index"] == nil || raw["response"] == nil {
			return nil, fmt.Errorf("%s:%d: want doc_index and response", path, n)
		}
		var e ExternalResponse
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if e.DocIndex < 0 || e.Repeat < 0 {
			return nil, fmt.Errorf("%s:%d: doc_index and repeat must not be negative", path, n)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no responses", path)
	}
	return out, nil
}

// ScoreExternal writes run directory dir for responses to task's docs: the
// task's prompts (plain text, no chat template) and targets, one journal
// record per response, then every result file (Finalize). The responses must
// cover docs 0..n-1, each with the task's repeats; n is the limit.
func ScoreExternal(dir string, cfg Config, task *datasets.Task, src datasets.DataSource, resps []ExternalResponse, out Outputs) error {
	if datasets.IsScoredOutput(task.OutputType) {
		return usage.Errorf("task %s: output_type %s is scored from the model's log-likelihoods, not from responses; score grades generate_until tasks", task.Name, task.OutputType)
	}
	shots := task.NumFewshot
	if cfg.NumFewshot != nil {
		shots = *cfg.NumFewshot
	}
	data, err := datasets.LoadTaskData(task, src, shots)
	if err != nil {
		return err
	}
	repeats := max(1, task.Repeats)
	byItem := map[[2]int]string{}
	n := 0
	for _, r := range resps {
		if r.DocIndex >= len(data.Docs.Problems) {
			return fmt.Errorf("--responses: doc_index %d: task %s has %d docs", r.DocIndex, task.Name, len(data.Docs.Problems))
		}
		if r.Repeat >= repeats {
			return fmt.Errorf("--responses: doc %d: repeat %d, but task %s has %d repeats", r.DocIndex, r.Repeat, task.Name, repeats)
		}
		k := [2]int{r.DocIndex, r.Repeat}
		if _, dup := byItem[k]; dup {
			return fmt.Errorf("--responses: doc %d repeat %d given twice", r.DocIndex, r.Repeat)
		}
		byItem[k] = r.Response
		n = max(n, r.DocIndex+1)
	}
	for i := 0; i < n; i++ {
		for rep := 0; rep < repeats; rep++ {
			if _, ok := byItem[[2]int{i, rep}]; !ok {
				return fmt.Errorf("--responses: no response for doc %d repeat %d (responses must cover docs 0..%d)", i, rep, n-1)
			}
		}
	}
	docs := data.Docs.Problems[:n]
	prompter, err := datasets.NewPrompter(task, data.Shots, datasets.PromptOptions{NumFewshot: &shots, FewshotFromTestSplit: data.ShotsFromEvalSplit})
	if err != nil {
		return err
	}
	refs, err := References(task, docs)
	if err != nil {
		return err
	}
	entries := make([]ProblemEntry, n)
	for i, doc := range docs {
		p, err := prompter.Build(doc)
		if err != nil {
			return fmt.Errorf("problem %s: %w", doc.ID, err)
		}
		q, _ := doc.Doc["question"].(string)
		a, _ := doc.Doc["answer"].(string)
		entries[i] = ProblemEntry{Index: i, ID: doc.ID, Question: q, Answer: a, Prompt: p.Text, PromptHash: promptHash(p.Text),
			Target: refs[i].Target, Targets: refs[i].Targets, Doc: doc.Doc, DocColumns: doc.Columns}
	}
	cfg.Model, cfg.Backend, cfg.Task, cfg.Limit = ExternalSampler, ExternalSampler, task.Name, n
	cfg.Samplers, cfg.Seeds, cfg.Repeats = []sampler.Spec{{Name: ExternalSampler, Label: ExternalSampler}}, []uint64{0}, repeats
	desc := task.Describe()
	desc["num_fewshot"] = shots
	spec := TaskSpec{Name: task.Name, Stops: task.Until, MaxNewTokens: task.MaxNewTokens, Filters: task.Filters, Metrics: task.Metrics,
		Repeats: task.Repeats, SplitSize: len(data.Docs.Problems), Config: desc, ProcessResults: task.ProcessResults,
		PythonResults: task.PythonResults()}
	sums, err := ChecksumFiles(data.Files)
	if err != nil {
		return err
	}
	m := &Manifest{Format: 1, Status: StatusRunning, Config: cfg, Code: ReadCodeInfo(), Backend: ExternalSampler,
		Provenance: Provenance{Datasets: sums}, Task: spec, Problems: n, Jobs: ExpandJobs(cfg), Started: time.Now().UTC(),
		Samplers: []SamplerInfo{{Label: ExternalSampler, Spec: cfg.Samplers[0], Description: describeJSON(`"responses generated elsewhere, scored by entropix-eval score"`)}}}
	if m.Fingerprint, err = fingerprint(m); err != nil {
		return err
	}
	// The rules of a run's directory: one writer at a time, and never a
	// directory of someone else's files.
	lock, err := LockDir(dir)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return fmt.Errorf("--out %s already holds a run directory; use another", dir)
	}
	if err := writeProblems(dir, entries); err != nil {
		return err
	}
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	j, _, err := OpenJournal(filepath.Join(dir, JournalFile))
	if err != nil {
		return err
	}
	for rep := 0; rep < repeats; rep++ {
		for i, e := range entries {
			rec := Record{ItemKey: ItemKey{Sampler: ExternalSampler, Seed: 0, Repeat: rep, ProblemIndex: i}, ProblemID: e.ID,
				PromptHash: e.PromptHash, Response: byItem[[2]int{i, rep}], FinishReason: FinishStop}
			if err := j.Append(rec); err != nil {
				j.Close()
				return err
			}
		}
	}
	if err := j.Close(); err != nil {
		return err
	}
	return Finalize(dir, out)
}
