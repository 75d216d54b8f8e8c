package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// ScoredSampler labels the one job of a scored task's run: no sampler is
// involved, the engine scores given continuations, once per doc.
const ScoredSampler = "loglikelihood"

// ScoringTokenizer is a Tokenizer that also encodes as lm-eval's
// tok_encode(s, add_special_tokens=False) and names its prefix_token_id (BOS,
// else EOS), which empty-context and rolling requests need.
type ScoringTokenizer interface {
	Tokenizer
	EncodePlain(text string) ([]int32, error)
	PrefixToken() (int32, bool)
}

// scoredConfig is the sweep of a scored task: one job (no samplers, seeds or
// repeats: the numbers do not depend on them), so its manifest, resume and
// output files hold one run whatever the config listed.
func scoredConfig(cfg Config) Config {
	cfg.Samplers = []sampler.Spec{{Name: ScoredSampler}}
	cfg.Seeds = []uint64{0}
	cfg.Repeats = 1
	return cfg
}

// scoredTask is the task of a scored run: named, and without the generation
// budget and stops, which no request uses.
func scoredTask(t TaskSpec, cfg Config) TaskSpec {
	if t.Name == "" {
		t.Name = cfg.Task
	}
	t.MaxNewTokens, t.Stops = 0, nil
	return t
}

// runScored evaluates a multiple_choice, loglikelihood or
// loglikelihood_rolling task: every doc's requests are scored by the engine
// and journaled as one item, then Finalize writes the result files as for a
// generative run.
func (r *Runner) runScored(ctx context.Context, cfg Config, task TaskSpec, shard Shard, log *slog.Logger) (*Manifest, error) {
	cfg = scoredConfig(cfg)
	tok, ok := r.Tokenizer.(ScoringTokenizer)
	if !ok {
		return nil, fmt.Errorf("task %s (%s): the tokenizer cannot encode without special tokens, which loglikelihood requests need", task.Name, task.OutputType)
	}
	prefix, ok := tok.PrefixToken()
	if !ok {
		return nil, fmt.Errorf("task %s (%s): the tokenizer has neither a BOS nor an EOS token, lm-eval's prefix for empty contexts", task.Name, task.OutputType)
	}
	enc := loglik.Encoder{Encode: tok.Encode, EncodePlain: tok.EncodePlain, Prefix: prefix}
	var probs []*scoredProblem
	var entries []ProblemEntry
	for i, p := range r.Problems {
		if !shard.Owns(i) {
			continue
		}
		if p.Scoring == nil {
			return nil, fmt.Errorf("task %s: problem %s has no loglikelihood requests", task.Name, p.ID)
		}
		e := ProblemEntry{Index: i, ID: p.ID, Question: p.Question, Answer: p.Answer, Prompt: scoredPrompt(p),
			Target: p.Target, Doc: p.Doc, DocColumns: p.DocColumns, Scoring: p.Scoring}
		e.PromptHash = promptHash(e.Prompt)
		sp, err := buildScored(e, enc, cfg.MaxSeqLen)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		e.PromptTokens = sp.tokens()
		sp.entry = e
		probs, entries = append(probs, sp), append(entries, e)
	}
	if err := PreflightDir(cfg.Out, journalBudget(cfg, task)); err != nil {
		return nil, err
	}
	lock, err := LockDir(cfg.Out)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	m := &Manifest{
		Format: 1, Status: StatusRunning, Config: cfg, Code: ReadCodeInfo(), Provenance: r.Provenance,
		Backend: cfg.Backend, Devices: cfg.Devices, BatchSize: cfg.BatchSize,
		Task: task, Problems: len(r.Problems), Shard: shard, Jobs: ExpandJobs(cfg), Started: time.Now().UTC(),
		Samplers: []SamplerInfo{{Label: ScoredSampler, Spec: cfg.Samplers[0], Description: json.RawMessage(`{"name":"loglikelihood"}`)}},
	}
	m.Provenance.SamplerOrder = ""
	if m.Fingerprint, err = fingerprint(m); err != nil {
		return nil, err
	}
	if err := r.claimDir(cfg.Out, m, entries); err != nil {
		return nil, err
	}
	journal, done, err := OpenJournal(filepath.Join(cfg.Out, JournalFile))
	if err != nil {
		return nil, err
	}
	defer journal.Close()
	job := m.Jobs[0]
	finished := map[int]bool{}
	for _, d := range done {
		finished[d.ProblemIndex] = true
	}
	q := &seqQueue{}
	todo := 0
	var empty []*scoredProblem // docs with nothing to run (empty continuations or text)
	for _, p := range probs {
		if !finished[p.entry.Index] {
			q.seqs = append(q.seqs, p.seqs...)
			todo++
			if len(p.seqs) == 0 {
				empty = append(empty, p)
			}
		}
	}
	log.Info("run", "dir", cfg.Out, "task", task.Name, "output_type", task.OutputType, "shard", shard.String(),
		"problems", len(probs), "sequences", len(q.seqs), "resumed_items", len(done), "todo", todo, "batch_size", cfg.BatchSize)
	record := func(p *scoredProblem) error {
		res := p.results()
		latency := 0.0
		if !p.started.IsZero() {
			latency = float64(time.Since(p.started).Microseconds()) / 1000
		}
		rec := Record{ItemKey: job.Item(p.entry.Index), ProblemID: p.entry.ID, PromptHash: p.entry.PromptHash,
			PromptTokens: p.entry.PromptTokens, Response: scoredResponse(p.entry.Scoring, res), FinishReason: FinishStop,
			LatencyMS: latency, Scores: res}
		return journal.Append(rec)
	}
	for _, p := range empty {
		if err := record(p); err != nil {
			return nil, err
		}
	}
	stats, runErr := r.runScoredWorkers(ctx, cfg.Devices, q, todo, record)
	m.Stats = &RunStats{ItemsResumed: len(done)}
	stats.addTo(m.Stats)
	m.DeviceNames = stats.deviceNames()
	log.Info("workers finished", "items", m.Stats.ItemsThisRun, "wall_s", fmt.Sprintf("%.2f", m.Stats.WallSeconds),
		"prompt_tokens", m.Stats.PromptTokens, "prefill_tokens_computed", m.Stats.PrefillComputed, "prefix_cache_hits", m.Stats.PrefixHits)
	if runErr != nil {
		if ctx.Err() != nil {
			return m, fmt.Errorf("%w (%d items finished this session are saved): %w", ErrInterrupted, m.Stats.ItemsThisRun, context.Cause(ctx))
		}
		return m, fmt.Errorf("%w; finished items are saved, fix the cause and run the same command again", runErr)
	}
	if err := writeManifest(cfg.Out, m); err != nil {
		return m, err
	}
	if err := journal.Close(); err != nil {
		return m, fmt.Errorf("close journal: %w", err)
	}
	if err := Finalize(cfg.Out, r.Outputs); err != nil {
		return m, err
	}
	return ReadManifest(cfg.Out)
}

// scoredPrompt is what lm-eval's prompt_hash hashes: the first request's
// first argument (the context; a rolling doc's text).
func scoredPrompt(p Problem) string {
	r := p.Scoring.Requests[0]
	if p.Scoring.OutputType == loglik.Rolling {
		return r.Continuation
	}
	return r.Context
}

// scoredResponse is the response results.arrow shows: the predicted choice.
func scoredResponse(d *loglik.Doc, res []loglik.Result) string {
	if d.OutputType != loglik.MultipleChoice || len(res) == 0 {
		return ""
	}
	return d.Choices[d.Pred(res)]
}

// runScoredWorkers runs one scoring scheduler per device over the shared
// queue (runEngines).
func (r *Runner) runScoredWorkers(ctx context.Context, devices []string, q *seqQueue, items int, finished func(*scoredProblem) error) (workerStats, error) {
	return r.runEngines(ctx, devices, items, func(w int, eng Engine) (workerScheduler, error) {
		done := func(p *scoredProblem) error {
			if err := finished(p); err != nil {
				return err
			}
			if r.Progress != nil {
				r.Progress.Done(w)
			}
			return nil
		}
		return newScoredScheduler(w, eng, q, done)
	})
}
