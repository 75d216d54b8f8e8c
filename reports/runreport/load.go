package runreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/entropix-eval/entropix-eval/rundir"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// File names inside a run directory: rundir's, which eval writes by and the
// fixtures use too.
const (
	ManifestFile    = rundir.ManifestFile
	ProblemsFile    = rundir.ProblemsFile
	ResultsFile     = rundir.ResultsFile
	TracesFile      = rundir.TracesFile
	SummaryFile     = rundir.SummaryFile
	ComparisonsFile = rundir.ComparisonsFile
	HTMLFile        = rundir.HTMLFile
	FiguresDir      = rundir.FiguresDir
	TablesDir       = rundir.TablesDir
)

// run is what a report reads from a run directory.
type run struct {
	dir      string
	manifest rundir.Manifest
	raw      []byte
	// questions and prompts by problem id; nil when problems.jsonl is missing.
	questions map[int32]problemText
	results   []reports.ResultRow
	// provenance is results.arrow's: eval derives it from the manifest once.
	provenance reports.Provenance
	// corpus are the scores results.json alone holds (bleu, chrf, ter,
	// Python aggregations).
	corpus corpusScores
	notes  []string
}

func loadRun(dir string) (*run, error) {
	r := &run{dir: dir}
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.notes = append(r.notes, "manifest.json is missing: the run's configuration is unknown.")
	case err != nil:
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	default:
		if err := json.Unmarshal(raw, &r.manifest); err != nil {
			return nil, fmt.Errorf("run directory %s: %s: %w", dir, ManifestFile, err)
		}
		r.raw = raw
	}
	if r.results, err = reports.ReadResults(filepath.Join(dir, ResultsFile)); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	if r.provenance, err = reports.ReadProvenance(filepath.Join(dir, ResultsFile)); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	if len(r.results) == 0 {
		// An empty shard is a finished run: its report says so instead of failing.
		r.notes = append(r.notes, ResultsFile+" has no rows (an empty shard, or no problems): there is nothing to summarise.")
	}
	if r.corpus, err = readCorpusScores(dir); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	if r.questions, err = readQuestions(filepath.Join(dir, ProblemsFile)); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	if r.questions == nil {
		r.notes = append(r.notes, "problems.jsonl is missing: questions are not shown.")
	}
	return r, nil
}

// problemText is what problems.jsonl says about a problem.
type problemText struct {
	Question string `json:"question"`
	Prompt   string `json:"prompt"` // the exact text the model saw
}

// readQuestions maps problem index to its question and prompt; nil if the file
// is absent.
func readQuestions(path string) (map[int32]problemText, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[int32]problemText{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var e struct {
			Index int32 `json:"index"`
			problemText
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		// A doc's NaN or ±Infinity (json.dumps's spelling) is not read here.
		if err := json.Unmarshal(pyjson.Standard(sc.Bytes()), &e); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out[e.Index] = e.problemText
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// fewShot is the run's shot count: the manifest task's num_fewshot (the count
// in effect), else the sweep's override; −1 when the manifest says neither.
func (r *run) fewShot() int {
	if n, ok := r.manifest.Task.Config["num_fewshot"].(float64); ok {
		return int(n)
	}
	if n := r.manifest.Config.NumFewshot; n != nil {
		return *n
	}
	return -1
}

// task names the run's task: the manifest's, else the config's.
func (r *run) task() string {
	if r.manifest.Task.Name != "" {
		return r.manifest.Task.Name
	}
	return r.manifest.Config.Task
}

// samplerOrder lists the samplers in the manifest's order, then any others the
// results hold, sorted.
func (r *run) samplerOrder() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range r.manifest.Samplers {
		if !seen[s.Label] {
			seen[s.Label] = true
			out = append(out, s.Label)
		}
	}
	var extra []string
	for i := range r.results {
		if s := r.results[i].Sampler; !seen[s] {
			seen[s] = true
			extra = append(extra, s)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// isEntropix says whether a sampler's manifest entry names the Entropix sampler.
func (r *run) isEntropix(label string) bool {
	for _, s := range r.manifest.Samplers {
		if s.Label != label {
			continue
		}
		if strings.HasPrefix(s.Spec.Name, "entropix") {
			return true
		}
		var desc struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(s.Description, &desc) == nil && strings.HasPrefix(desc.Name, "entropix") {
			return true
		}
	}
	return false
}

// thresholds reads an Entropix sampler's logits thresholds from its manifest
// description (the sampler's Describe: low_/medium_/high_logits_entropy, ...).
func (r *run) thresholds(label string) *model.Thresholds {
	for _, s := range r.manifest.Samplers {
		if s.Label != label {
			continue
		}
		var desc map[string]any
		if json.Unmarshal(s.Description, &desc) != nil {
			return nil
		}
		t := &model.Thresholds{}
		for _, lvl := range []string{"low", "medium", "high"} {
			if v, ok := desc[lvl+"_logits_entropy"].(float64); ok {
				t.Entropy = append(t.Entropy, model.Level{Name: lvl, Value: v})
			}
			if v, ok := desc[lvl+"_logits_varentropy"].(float64); ok {
				t.Varentropy = append(t.Varentropy, model.Level{Name: lvl, Value: v})
			}
		}
		if len(t.Entropy)+len(t.Varentropy) == 0 {
			return nil
		}
		return t
	}
	return nil
}

// attnViews says which attention statistics each sampler read: an Entropix
// sampler's own view (attn_mode, pad_len in its description), the sweep's
// attn_mode for the rest.
func (r *run) attnViews() string {
	var parts []string
	for _, s := range r.manifest.Samplers {
		var d struct {
			AttnMode string `json:"attn_mode"`
			PadLen   int    `json:"pad_len"`
		}
		if json.Unmarshal(s.Description, &d) != nil || d.AttnMode == "" {
			continue
		}
		v := d.AttnMode
		if v == "padded" {
			v = fmt.Sprintf("padded over %d slots", d.PadLen)
		}
		parts = append(parts, s.Label+": "+v)
	}
	if m := r.manifest.Config.AttnMode; m != "" {
		if len(parts) == 0 {
			return m
		}
		parts = append(parts, "others: "+m)
	}
	return strings.Join(parts, "; ")
}

// manifestView is the manifest table and the indented file.
func (r *run) manifestView() model.Manifest {
	m := r.manifest
	var kv []model.KeyValue
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, model.KeyValue{Key: k, Value: v})
		}
	}
	add("run directory", r.dir)
	add("sweep", m.Config.Name)
	add("task", r.task())
	add("model", m.Config.Model)
	add("dataset", m.Config.Dataset)
	if m.Problems > 0 {
		add("problems", strconv.Itoa(m.Problems))
	}
	if r.raw != nil {
		add("chat template", strconv.FormatBool(m.Config.ChatTemplate))
	}
	if n := r.fewShot(); n >= 0 {
		add("few-shot", strconv.Itoa(n))
	}
	add("run key", r.provenance.RunKey)
	if m.Config.MaxNewTokens > 0 {
		add("max new tokens", strconv.Itoa(m.Config.MaxNewTokens))
	}
	if len(m.Config.Seeds) > 0 {
		seeds := make([]string, len(m.Config.Seeds))
		for i, s := range m.Config.Seeds {
			seeds[i] = strconv.FormatUint(s, 10)
		}
		add("seeds", strings.Join(seeds, ", "))
	}
	if m.Config.Repeats > 0 {
		add("repeats", strconv.Itoa(m.Config.Repeats))
	}
	add("attention statistics", r.attnViews())
	backend := strings.TrimSpace(m.Backend + " " + strings.Join(m.Devices, ","))
	if len(m.DeviceNames) > 0 {
		backend += " (" + strings.Join(m.DeviceNames, ", ") + ")"
	}
	add("backend", backend)
	if m.BatchSize > 0 {
		add("batch size", strconv.Itoa(m.BatchSize))
	}
	add("dtype", m.Provenance.DType)
	add("sampler order", m.Provenance.SamplerOrder)
	if r.raw != nil {
		add("first token argmax", strconv.FormatBool(m.FirstTokenArgmax))
	}
	rev := m.Code.Revision
	if m.Code.Modified {
		rev += " (modified)"
	}
	add("code", strings.TrimSpace(m.Code.Version+" "+rev))
	if st := m.Stats; st != nil && st.WallSeconds > 0 {
		add("throughput", fmt.Sprintf("%.1f generated tokens/s, wall clock (%d tokens in %.0f s of this session, all workers)",
			r.throughput(), st.GeneratedTokens, st.WallSeconds))
	}
	add("status", m.Status)
	add("started", timeText(&m.Started))
	add("finished", timeText(m.Finished))
	var pretty bytes.Buffer
	if r.raw != nil && json.Indent(&pretty, r.raw, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(r.raw)
	}
	return model.Manifest{Highlights: kv, Pretty: pretty.String()}
}

// timeText is a manifest's time as manifest.json spells it; "" when unset.
func timeText(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// throughput is generated tokens per wall-clock second of the run's last
// session, all workers together; 0 when the manifest does not say.
func (r *run) throughput() float64 {
	if st := r.manifest.Stats; st != nil && st.WallSeconds > 0 {
		return float64(st.GeneratedTokens) / st.WallSeconds
	}
	return 0
}

// canonicalSpecs maps each sampler label to a key that is equal for equal
// samplers however they were written: the manifest's description (every
// parameter in effect) re-encoded with sorted keys, else its spec, else the
// label itself when the manifest does not describe the sampler.
func (r *run) canonicalSpecs() map[string]string {
	out := map[string]string{}
	for _, label := range r.samplerOrder() {
		out[label] = reports.CanonicalSpec(label, nil, nil)
	}
	for _, s := range r.manifest.Samplers {
		out[s.Label] = reports.CanonicalSpec(s.Label, s.Description, specJSON(s.Spec))
	}
	return out
}

// specJSON is a sampler's spec as manifest.json writes it; nil for a sampler
// the manifest does not specify.
func specJSON(s sampler.Spec) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil || s.Name == "" {
		return nil
	}
	return b
}
