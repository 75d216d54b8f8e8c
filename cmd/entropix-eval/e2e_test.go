package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/rundir"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkRunScript is the independent checker of a run directory: apache-arrow
// reads the Arrow files and JavaScript re-derives what they must hold.
var (
	checkRunScript      = filepath.Join("..", "..", "reports", "arrowcheck", "checkrun.mjs")
	checkManifestScript = filepath.Join("..", "..", "reports", "arrowcheck", "checkmanifest.mjs")
)

// e2eModel is one real checkpoint of ../shared the end-to-end test runs.
type e2eModel struct {
	name  string
	dir   string // under ../shared
	extra []string
	// clarifyingID is the token Entropix must insert: the one its spec names, or
	// the tokenizer's " ..." when the spec leaves the default.
	clarifyingID int32
	// mustClarify: the run is known (deterministically) to insert the token.
	mustClarify bool
}

var e2eModels = []e2eModel{{
	// SentencePiece-style tokenizer, 512-token vocabulary returned whole (tail mass
	// 0). It has no " ..." token, so Entropix gets an id, as configs/demo.yaml does.
	name: "stories260K", dir: "models/stories260K-hf", clarifyingID: 13,
	extra: []string{"--samplers", "greedy,min_p,entropix,clarifying_token_id=13"},
}, {
	// The real Llama 3 byte-level tokenizer; Entropix resolves its default " ..."
	// (id 2564). 256 candidates rather than the whole 128256-token vocabulary keep
	// the run short and give the traces a non-zero tail mass.
	name: "tiny-llama3", dir: "models/tiny-llama3", clarifyingID: 2564, mustClarify: true,
	extra: []string{"--samplers", "greedy,min_p,entropix", "--candidates", "256"},
}}

// TestE2ERunCheckedByApacheArrow is issue 5's end-to-end test: the real pipeline on
// two real checkpoints over the real GSM8K test Parquet, three samplers × two
// seeds, and the run directory checked by an independent reader
// (reports/arrowcheck/checkrun.mjs with the npm package apache-arrow). The Node
// part needs `npm ci --prefix reports/arrowcheck`; without it that part skips,
// unless ENTROPIX_ARROWCHECK=1 (CI), where a missing install is a failure.
func TestE2ERunCheckedByApacheArrow(t *testing.T) {
	data := sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet")
	node := arrowcheckNode(t)
	for _, m := range e2eModels {
		t.Run(m.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := append([]string{
				"--model", sharedtest.Path(t, m.dir),
				"--task", "gsm8k_cot_zeroshot", "--dataset", data,
				"--seeds", "0,1", "--limit", "4", "--max-new-tokens", "24",
				"--progress", "none", "--out", dir,
			}, m.extra...)
			require.NoError(t, runQuiet(t, context.Background(), args))

			res, err := reports.ReadResults(filepath.Join(dir, eval.ResultsArrow))
			require.NoError(t, err)
			require.Len(t, res, 4*3*2, "problems × samplers × seeds")
			tr, err := reports.ReadTraces(filepath.Join(dir, eval.TracesArrow))
			require.NoError(t, err)

			samplers := samplerLabels(res)
			require.Len(t, samplers, 3)
			greedy, minP, entropix := samplers[0], samplers[1], samplers[2]
			// The seed feeds the RNG only: greedy never draws, min_p does.
			assert.Equal(t, sequences(res, tr, greedy, 0), sequences(res, tr, greedy, 1), "greedy depends on the seed")
			assert.NotEqual(t, responses(res, minP, 0), responses(res, minP, 1), "min_p gives the same responses under seeds 0 and 1")

			inserted := 0
			for _, r := range tr {
				if r.Strategy == "insert_clarifying" {
					inserted++
					require.Equal(t, m.clarifyingID, r.Token, "%s inserted another token than the clarifying one (%s problem %d step %d)", entropix, r.RunID, r.ProblemID, r.Step)
				}
			}
			if m.mustClarify {
				assert.Positive(t, inserted, "Entropix never inserted its clarifying token")
			}

			// samples.jsonl's doc is the dataset row as lm-eval writes it: the worked
			// solution, not only the final number.
			first, err := os.ReadFile(filepath.Join(dir, eval.SamplesFile))
			require.NoError(t, err)
			var sample struct {
				Doc struct{ Answer string } `json:"doc"`
			}
			line, _, _ := strings.Cut(string(first), "\n")
			require.NoError(t, json.Unmarshal([]byte(line), &sample))
			assert.Contains(t, sample.Doc.Answer, "#### ", "doc.answer is not the worked solution")

			if node != "" {
				runCheckRun(t, node, dir, "")
				runCheckManifest(t, node, dir, "")
				// The same checker on a rescored copy whose responses hit every
				// scoring branch (the tiny models answer nothing right).
				graded := gradedCopy(t, dir)
				runCheckRun(t, node, graded, "")
				mustCatch(t, node, dir)
			}
		})
	}
}

// TestE2EClarifyingTokenText: Entropix names its clarifying token by text (" ...");
// a byte-level vocabulary stores it as "Ġ...", so a raw vocabulary lookup alone
// found nothing and `run` refused the default Entropix on every Llama 3 model.
func TestE2EClarifyingTokenText(t *testing.T) {
	tok, err := tokenizer.Load(sharedtest.Path(t, "models/tiny-llama3/tokenizer.json"))
	require.NoError(t, err)
	lookup := eval.TokenTextLookup(tok)
	for text, want := range map[string]int32{" ...": 2564, "Ġ...": 2564, "...": 1131, "<|eot_id|>": 128009} {
		id, ok := lookup(text)
		assert.True(t, ok, "%q", text)
		assert.Equal(t, want, id, "%q", text)
	}
	_, ok := lookup(" ... and more")
	assert.False(t, ok, "a text of several tokens is no token")
}

// arrowcheckNode returns the node binary when reports/arrowcheck is installed, ""
// when it is not and the check is optional; it fails t when ENTROPIX_ARROWCHECK=1.
func arrowcheckNode(t *testing.T) string {
	t.Helper()
	required := os.Getenv("ENTROPIX_ARROWCHECK") == "1"
	unavailable := func(why string) string {
		if required {
			t.Fatalf("ENTROPIX_ARROWCHECK=1 but %s (run: npm ci --prefix reports/arrowcheck)", why)
		}
		t.Logf("%s: skipping the apache-arrow check (set up with: npm ci --prefix reports/arrowcheck)", why)
		return ""
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return unavailable("node is not on PATH")
	}
	pkg := filepath.Join(filepath.Dir(checkRunScript), "node_modules", "apache-arrow", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		return unavailable("reports/arrowcheck/node_modules is not installed")
	}
	return node
}

// runCheckRun runs checkrun.mjs on dir: it must pass when wantErr is "", else fail
// with a message containing wantErr.
func runCheckRun(t *testing.T, node, dir, wantErr string) {
	t.Helper()
	runNodeCheck(t, node, wantErr, checkRunScript, dir, writeSchema(t, reports.Spec()))
}

// runCheckManifest runs checkmanifest.mjs on dir's manifest.json against
// rundir.ManifestSchema(), as runCheckRun does checkrun.mjs.
func runCheckManifest(t *testing.T, node, dir, wantErr string) {
	t.Helper()
	runNodeCheck(t, node, wantErr, checkManifestScript, filepath.Join(dir, rundir.ManifestFile), writeSchema(t, rundir.ManifestSchema()))
}

// writeSchema writes a checker's schema as JSON to a temporary file.
func writeSchema(t *testing.T, schema any) string {
	t.Helper()
	b, err := json.Marshal(schema)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

// runNodeCheck runs a checker script: it must pass when wantErr is "", else
// fail with a message containing wantErr.
func runNodeCheck(t *testing.T, node, wantErr, script string, args ...string) {
	t.Helper()
	out, err := exec.Command(node, append([]string{script}, args...)...).CombinedOutput()
	name := filepath.Base(script)
	if wantErr == "" {
		require.NoError(t, err, "%s rejects a good run directory:\n%s", name, out)
		t.Logf("%s", strings.TrimSpace(string(out)))
		return
	}
	require.Error(t, err, "%s accepted a broken run directory (want %q):\n%s", name, wantErr, out)
	require.Contains(t, string(out), wantErr)
}

// mustCatch breaks copies of a good run directory in several places, one per
// data path, and requires the checkers to say what is wrong.
func mustCatch(t *testing.T, node, good string) {
	t.Helper()
	// manifest.json spells a key as only Go's case-insensitive reading accepts.
	dir := copyRunDir(t, good)
	editFile(t, filepath.Join(dir, rundir.ManifestFile), func(s string) string {
		return strings.Replace(s, `"max_new_tokens": 24,`, `"MaxNewTokens": 24,`, 1)
	})
	runCheckManifest(t, node, dir, `manifest.config.MaxNewTokens: no such key in a manifest (the key is spelled "max_new_tokens")`)

	// manifest.json's run key is not its fingerprint and start.
	dir = copyRunDir(t, good)
	editFile(t, filepath.Join(dir, rundir.ManifestFile), func(s string) string {
		return strings.Replace(s, `"run_key": "`, `"run_key": "0`, 1)
	})
	runCheckManifest(t, node, dir, "is not fingerprint@started")

	// results.json disagrees with results.arrow.
	dir = copyRunDir(t, good)
	editFile(t, filepath.Join(dir, eval.ResultsJSONFile), func(s string) string {
		return strings.Replace(s, `"exact_match,strict-match": 0,`, `"exact_match,strict-match": 0.25,`, 1)
	})
	runCheckRun(t, node, dir, "exact_match,strict-match = 0.25, but the mean over results.arrow is 0/4")

	// samples.jsonl disagrees with results.arrow.
	dir = copyRunDir(t, good)
	editFile(t, filepath.Join(dir, eval.SamplesFile), func(s string) string {
		return strings.Replace(s, `"resps":[["`, `"resps":[["tampered `, 1)
	})
	runCheckRun(t, node, dir, "results.arrow row 0 column response")

	// traces.arrow lost its last token.
	dir = copyRunDir(t, good)
	tr, err := reports.ReadTraces(filepath.Join(dir, eval.TracesArrow))
	require.NoError(t, err)
	prov, err := reports.ReadProvenance(filepath.Join(dir, eval.TracesArrow))
	require.NoError(t, err)
	require.NoError(t, reports.WriteTraces(filepath.Join(dir, eval.TracesArrow), tr[:len(tr)-1], reports.WithProvenance(prov)))
	runCheckRun(t, node, dir, fmt.Sprintf("traces.arrow: %d rows, want the sum of gen_tokens = %d", len(tr)-1, len(tr)))

	// traces.arrow lost its provenance (run key, hashes) in its metadata.
	dir = copyRunDir(t, good)
	require.NoError(t, reports.WriteTraces(filepath.Join(dir, eval.TracesArrow), tr))
	runCheckRun(t, node, dir, "traces.arrow: schema metadata entropix.run_key = undefined")
}

// gradedCopy rescores a copy of a run directory after rewriting the responses of
// the first two jobs (greedy, seeds 0 and 1) into texts that exercise lm-eval's
// extraction and scoring: right answers, a numerically right but string-wrong
// answer, flexible-only hits, a "\r" and a "\n" after the number. Each rewritten
// response is put in the first token's text so the trace still spells it.
func gradedCopy(t *testing.T, good string) string {
	t.Helper()
	dir := copyRunDir(t, good)
	problems, err := eval.ReadProblems(dir)
	require.NoError(t, err)
	targets := map[int]string{}
	for _, p := range problems {
		// gsm8k_cot_zeroshot's target is the whole worked answer, as lm-eval's
		// doc_to_target gives it; the crafted responses state its final number.
		x, ok := datasets.FinalAnswer(p.Target)
		if !ok {
			x = p.Target
		}
		targets[p.Index] = x
	}
	craft := map[uint64][]func(target string) string{
		0: {
			func(x string) string { return "Each egg sells for $2.\nThe answer is " + x + "." },
			func(x string) string { return "The answer is " + x + ".00!" }, // numeric only
			func(x string) string { return "I get $" + x + ",\n" },         // flexible only
			func(x string) string { return "The answer is -0.\n" },         // "." does not match "\n"
		},
		1: {
			func(x string) string { return "The answer is " + x + "\r\n" }, // "." matches "\r"
			func(x string) string { return "#### " + x },
			func(x string) string { return "The answer is 1,000,000. Or $" + x + "." },
			func(x string) string { return "" },
		},
	}
	path := filepath.Join(dir, eval.JournalFile)
	recs, err := eval.ReadJournal(path)
	require.NoError(t, err)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	rewritten := 0
	for _, r := range recs {
		if fs, ok := craft[r.Seed]; ok && r.Sampler == "greedy" {
			r.Response = fs[r.ProblemIndex%len(fs)](targets[r.ProblemIndex])
			for i := range r.Trace {
				r.Trace[i].Text = ""
			}
			r.Trace[0].Text = r.Response
			rewritten++
		}
		require.NoError(t, enc.Encode(r))
	}
	require.Equal(t, 8, rewritten)
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	require.NoError(t, runRescore(context.Background(), []string{dir}, io.Discard, io.Discard))

	// The Go grader's view of the crafted cases, so the Node check above compares
	// against files that contain true as well as false scores.
	res, err := reports.ReadResults(filepath.Join(dir, eval.ResultsArrow))
	require.NoError(t, err)
	type score struct{ strict, flexible, numeric bool }
	got := map[string]score{}
	for _, r := range res {
		got[fmt.Sprintf("%s/%d", r.RunID, r.ProblemID)] = score{r.Correct("exact_match,strict-match"),
			r.Correct("exact_match,flexible-extract"), r.Correct("numeric_match,strict-match")}
	}
	assert.Equal(t, score{true, true, true}, got["greedy/seed=0/0"])
	assert.Equal(t, score{false, false, true}, got["greedy/seed=0/1"])
	assert.Equal(t, score{false, true, false}, got["greedy/seed=0/2"])
	assert.Equal(t, score{true, true, true}, got["greedy/seed=1/0"])
	assert.Equal(t, score{false, true, false}, got["greedy/seed=1/1"])
	return dir
}

func copyRunDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	// CopyFS creates files writable (0o666 before umask) whatever the source mode.
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

func editFile(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := edit(string(b))
	require.NotEqual(t, string(b), s, "the edit of %s changed nothing", path)
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

// samplerLabels lists the samplers of results in file order.
func samplerLabels(res []reports.ResultRow) []string {
	var out []string
	for _, r := range res {
		if len(out) == 0 || out[len(out)-1] != r.Sampler {
			out = append(out, r.Sampler)
		}
	}
	return out
}

// responses maps each problem to its response under one sampler and seed.
func responses(res []reports.ResultRow, sampler string, seed int64) map[int32]string {
	out := map[int32]string{}
	for _, r := range res {
		if r.Sampler == sampler && r.Seed == seed {
			out[r.ProblemID] = r.Response
		}
	}
	return out
}

// sequences maps each problem to its response and generated token ids under one
// sampler and seed.
func sequences(res []reports.ResultRow, tr []reports.TraceRow, sampler string, seed int64) map[int32]string {
	out := responses(res, sampler, seed)
	runID := fmt.Sprintf("%s/seed=%d", sampler, seed)
	for _, r := range tr {
		if r.RunID == runID {
			out[r.ProblemID] += fmt.Sprintf("|%d", r.Token)
		}
	}
	return out
}

// The SmolLM presets' clarifying token is "..." — id 2026 in SmolLM2's vocabulary,
// the id the port's notebook passes — and every preset's resolved token reaches the
// sampler description (the manifest) as id and text, also when an id overrides it.
func TestClarifyingTokenResolvedPerVariant(t *testing.T) {
	smol, err := tokenizer.Load(sharedtest.Path(t, "tokenizers/smollm"))
	require.NoError(t, err)
	llama, err := tokenizer.Load(sharedtest.Path(t, "models/tiny-llama3/tokenizer.json"))
	require.NoError(t, err)
	for _, tc := range []struct {
		tok      *tokenizer.Tokenizer
		sampler  string
		wantID   int
		wantText string
	}{
		{smol, "entropix:smollm-135m", 2026, "..."},
		{smol, "entropix:smollm-360m", 2026, "..."},
		{smol, "entropix:smollm-1.7b,faithful=true", 2026, "..."},
		{llama, "entropix:frog", 2564, " ..."},
		{llama, "entropix,clarifying_token_id=1131", 1131, "..."},
		{smol, "entropix:smollm-360m,clarifying_token_id=4563", 4563, " ..."},
	} {
		specs, err := sampler.ParseSpecs(tc.sampler)
		require.NoError(t, err)
		f, err := eval.NewSamplerResolver(eval.TokenTextLookup(tc.tok), eval.TokenIDText(tc.tok))(specs[0])
		require.NoError(t, err, tc.sampler)
		var desc map[string]any
		require.NoError(t, json.Unmarshal([]byte(f.Describe()), &desc))
		assert.Equal(t, float64(tc.wantID), desc["clarifying_token_id"], tc.sampler)
		assert.Equal(t, tc.wantText, desc["clarifying_token"], tc.sampler)
	}
}
