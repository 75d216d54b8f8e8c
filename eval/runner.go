package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/internal/safepath"
)

// DefaultMaxNewTokens is lm-eval's generation budget when neither task nor config set one.
const DefaultMaxNewTokens = 256

// Runner evaluates one sweep into one run directory. The caller wires in the
// concrete engine, tokenizer, samplers and writers; Run does the rest.
type Runner struct {
	Config Config
	Task   TaskSpec
	// Problems are every problem of the dataset after the limit, in dataset order;
	// the runner takes the ones its shard owns.
	Problems   []Problem
	Tokenizer  Tokenizer
	Samplers   []SamplerFactory // one per Config.Samplers, same order
	OpenEngine EngineOpener
	// EOS are the ids that end a sequence (the model's and the tokenizer's).
	EOS        []int32
	Provenance Provenance
	Outputs    Outputs
	// Progress shows live counts; nil shows nothing.
	Progress Progress
	Log      *slog.Logger
}

// ErrInterrupted wraps a cancelled run: the journal holds every finished item and
// running the same command again resumes it.
var ErrInterrupted = errors.New("run interrupted; run the same command again to resume")

// Run evaluates every unfinished item and, once all are done, writes the result files.
func (r *Runner) Run(ctx context.Context) (*Manifest, error) {
	log := r.Log
	if log == nil {
		log = slog.Default()
	}
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid sweep:\n%w", err)
	}
	if err := r.Outputs.check(); err != nil {
		return nil, err
	}
	if len(r.Samplers) != len(cfg.Samplers) {
		return nil, fmt.Errorf("%d samplers built for %d in the config", len(r.Samplers), len(cfg.Samplers))
	}
	for i, f := range r.Samplers {
		if v := attnViewOf(f); v != nil {
			if err := v.Fits(cfg.MaxSeqLen); err != nil {
				return nil, fmt.Errorf("samplers[%d] (%s): %w", i, cfg.Samplers[i].DisplayLabel(), err)
			}
		}
		if wantsPromptStats(f) && cfg.Backend != "cpu" {
			return nil, fmt.Errorf("samplers[%d] (%s): its first token reads the metrics averaged over every prompt position "+
				"(first_token_metrics: prompt_mean, the SmolLM port's faithful first token), which the %s backend does not compute; "+
				"use backend cpu, or set first_token_metrics: last", i, cfg.Samplers[i].DisplayLabel(), cfg.Backend)
		}
	}
	shard, _ := ParseShard(cfg.Shard) // validated above
	// A scored task has no generation budget, samplers or stops.
	if r.Task.OutputType != "" {
		return r.runScored(ctx, cfg, scoredTask(r.Task, cfg), shard, log)
	}
	task, err := resolveTask(r.Task, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkWorkBounds(cfg, len(r.Problems)); err != nil {
		return nil, err
	}
	prepared, cut, err := prepareProblems(r.Problems, shard, r.Tokenizer, cfg.MaxSeqLen, task.MaxNewTokens)
	if err != nil {
		return nil, err
	}
	if cut > 0 {
		log.Warn("prompts cut on the left to fit max_seq_len", "prompts", cut, "max_seq_len", cfg.MaxSeqLen, "max_new_tokens", task.MaxNewTokens)
	}
	// Everything checkable is checked before the run directory exists.
	if err := PreflightDir(cfg.Out, journalBudget(cfg, task)); err != nil {
		return nil, err
	}
	lock, err := LockDir(cfg.Out)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if len(lock.Removed) > 0 {
		log.Info("removed temporary files an interrupted attempt left", "dir", cfg.Out, "files", lock.Removed)
	}
	m, err := r.startManifest(cfg, task, shard)
	if err != nil {
		return nil, err
	}
	if err := r.claimDir(cfg.Out, m, entriesOf(prepared)); err != nil {
		return nil, err
	}
	journal, done, err := OpenJournal(filepath.Join(cfg.Out, JournalFile))
	if err != nil {
		return nil, err
	}
	defer journal.Close()
	for _, d := range journal.Repaired {
		log.Warn("journal repaired: dropped a torn write; its item runs again", "journal", filepath.Join(cfg.Out, JournalFile), "dropped", d)
	}

	queue, plan, ready := planWork(m.Jobs, prepared, r.Samplers, done)
	log.Info("run", "dir", cfg.Out, "shard", shard.String(), "problems", len(prepared), "jobs", len(m.Jobs),
		"resumed_items", len(done), "todo", len(queue.items), "workers", len(cfg.Devices), "batch_size", cfg.BatchSize)
	// Each append first checks that the directory is still ours to write.
	appendRecord := func(r Record) error {
		if err := lock.Check(); err != nil {
			return err
		}
		return journal.Append(r)
	}
	rec := &recorder{append: appendRecord, plan: plan}
	for _, c := range ready {
		if err := appendRecord(c); err != nil {
			return nil, err
		}
	}
	rec.copied.Add(int64(len(ready)))

	lim := &limits{maxNew: task.MaxNewTokens, maxSeqLen: cfg.MaxSeqLen, stops: newStopMatcher(task.Stops),
		eos: map[int32]bool{}, firstArgmax: cfg.FirstTokenArgmax}
	for _, id := range r.EOS {
		lim.eos[id] = true
	}
	stats, runErr := r.runWorkers(ctx, cfg.Devices, queue, lim, rec.record)
	m.Stats = &RunStats{ItemsResumed: len(done), PromptsCut: cut}
	stats.addTo(m.Stats)
	m.Stats.SequencesDecoded = m.Stats.ItemsThisRun
	m.Stats.SequencesRecorded = m.Stats.ItemsThisRun + int(rec.copied.Load())
	m.DeviceNames = stats.deviceNames()
	log.Info("workers finished", "items", m.Stats.ItemsThisRun, "tokens", m.Stats.GeneratedTokens,
		"wall_s", fmt.Sprintf("%.2f", m.Stats.WallSeconds), "outside_engine", fmt.Sprintf("%.1f%%", 100*m.Stats.OutsideShare),
		"prompt_tokens", m.Stats.PromptTokens, "prefill_tokens_computed", m.Stats.PrefillComputed, "prefix_cache_hits", m.Stats.PrefixHits)
	if runErr != nil {
		if ctx.Err() != nil {
			return m, fmt.Errorf("%w (%d items finished this session are saved): %w", ErrInterrupted, m.Stats.ItemsThisRun, context.Cause(ctx))
		}
		return m, fmt.Errorf("%w; finished items are saved, fix the cause and run the same command again", runErr)
	}
	if err := lock.Check(); err != nil {
		return m, err
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

// resolveTask applies the config's generation budget to the task and checks it.
func resolveTask(t TaskSpec, cfg Config) (TaskSpec, error) {
	if t.Name == "" {
		t.Name = cfg.Task
	}
	// The name becomes lm-eval's samples_<task>_<date>.jsonl and a group
	// member's folder.
	if err := safepath.Name("task", t.Name); err != nil {
		return t, err
	}
	if cfg.MaxNewTokens > 0 {
		t.MaxNewTokens = cfg.MaxNewTokens
	}
	if t.MaxNewTokens <= 0 {
		t.MaxNewTokens = DefaultMaxNewTokens
	}
	if t.MaxNewTokens >= cfg.MaxSeqLen {
		return t, fmt.Errorf("task %s: max new tokens %d leaves no room for a prompt in max_seq_len %d", t.Name, t.MaxNewTokens, cfg.MaxSeqLen)
	}
	for i, s := range t.Stops {
		if s == "" {
			return t, fmt.Errorf("task %s: stop string %d is empty", t.Name, i)
		}
	}
	return t, nil
}

func (r *Runner) startManifest(cfg Config, task TaskSpec, shard Shard) (*Manifest, error) {
	m := &Manifest{
		Format: 1, Status: StatusRunning, Config: cfg, Code: ReadCodeInfo(), Provenance: r.Provenance,
		Backend: cfg.Backend, Devices: cfg.Devices, BatchSize: cfg.BatchSize, FirstTokenArgmax: cfg.FirstTokenArgmax,
		Task: task, Problems: len(r.Problems), Shard: shard, Jobs: ExpandJobs(cfg), Started: time.Now().UTC(),
	}
	for i, s := range cfg.Samplers {
		m.Samplers = append(m.Samplers, SamplerInfo{Label: s.DisplayLabel(), Spec: s, Description: describeJSON(r.Samplers[i].Describe())})
	}
	fp, err := fingerprint(m)
	if err != nil {
		return nil, err
	}
	m.Fingerprint = fp
	return m, nil
}

// claimDir starts a new run directory or checks that an existing one holds this
// very run, so resuming can never mix results of two configurations.
func (r *Runner) claimDir(dir string, m *Manifest, problems []ProblemEntry) error {
	old, err := ReadManifest(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := writeProblems(dir, problems); err != nil {
			return err
		}
		return writeManifest(dir, m)
	case err != nil:
		return err
	}
	if old.Backend != m.Backend || old.Provenance.DType != m.Provenance.DType {
		// Numbers differ by backend (BF16 on the GPU, F32 on the CPU): never mixed.
		return fmt.Errorf("run directory %s was run on backend %s (%s compute), this run uses backend %s (%s): results are not comparable; use another --out",
			dir, old.Backend, old.Provenance.DType, m.Backend, m.Provenance.DType)
	}
	// The fields decide, not the hash: a run started by older code hashes
	// differently, and a moved model or few-shot directory is the same run.
	diffs := fingerprintDiff(old, m)
	grows := false
	if grown, ok := grownInto(old, m); ok && len(diffs) > 0 {
		// More seeds, samplers or problems: finished items are kept, new ones run.
		diffs, grows = fingerprintDiff(old, grown), true
	}
	if len(diffs) > 0 {
		return fmt.Errorf("run directory %s holds a different run; use another --out, or the inputs it was started with (a finished run grows by more --seeds, another --sampler or a higher --limit). Changed:\n  %s",
			dir, strings.Join(diffs, "\n  "))
	}
	if old.Shard != m.Shard {
		return fmt.Errorf("run directory %s holds shard %s, not %s", dir, old.Shard, m.Shard)
	}
	have, err := ReadProblems(dir)
	if err != nil {
		return err
	}
	if grows {
		if err := problemsPrefix(have, problems); err != nil {
			return fmt.Errorf("run directory %s: %w", dir, err)
		}
		if err := writeProblems(dir, problems); err != nil {
			return err
		}
		r.logger().Info("growing a run directory: finished items are kept", "dir", dir, "problems", len(problems), "samplers", len(m.Samplers), "seeds", len(m.Config.Seeds))
	} else if err := sameProblems(have, problems); err != nil {
		return fmt.Errorf("run directory %s: %w", dir, err)
	}
	if old.Code.Revision != m.Code.Revision || old.Code.Modified != m.Code.Modified {
		(r.logger()).Warn("resuming with a different code revision", "was", old.Code.Revision, "now", m.Code.Revision)
	}
	m.Started = old.Started
	return writeManifest(dir, m)
}

func (r *Runner) logger() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

type workerStats []SchedulerStats

// deviceNames lists each worker's device name, or nil when no engine names one.
func (ws workerStats) deviceNames() []string {
	var names []string
	for _, s := range ws {
		if s.Device != "" {
			names = make([]string, len(ws))
			break
		}
	}
	for i := range names {
		names[i] = ws[i].Device
	}
	return names
}

func (ws workerStats) addTo(rs *RunStats) {
	var wall, inEngine time.Duration
	for _, s := range ws {
		wall += s.Wall
		inEngine += s.InEngine
		rs.GeneratedTokens += s.Generated
		rs.ItemsThisRun += s.Finished
		rs.PromptTokens += s.PromptTokens
		rs.PrefillComputed += s.PrefillComputed
		rs.PrefixHits += s.PrefixHits
	}
	rs.WallSeconds, rs.EngineSeconds = wall.Seconds(), inEngine.Seconds()
	if wall > 0 {
		rs.OutsideShare = 1 - inEngine.Seconds()/wall.Seconds()
	}
}

// runWorkers runs one generation scheduler per device over the shared queue
// (runEngines).
func (r *Runner) runWorkers(ctx context.Context, devices []string, q *workQueue, lim *limits, finished func(Record) error) (workerStats, error) {
	var sink progressSink
	if r.Progress != nil {
		sink = r.Progress
	}
	return r.runEngines(ctx, devices, len(q.items), func(w int, eng Engine) (workerScheduler, error) {
		return newScheduler(w, eng, q, r.Tokenizer, lim, finished, sink)
	})
}
