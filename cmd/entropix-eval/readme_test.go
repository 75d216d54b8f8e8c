package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// readmeFence is one fenced block of the README with its language.
var readmeFence = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```$")

// readmeSkipped are the README's commands this test does not run, and why;
// every other command in a sh block runs.
var readmeSkipped = map[string]string{
	"make test": "it runs this test",
}

// readmeSpeed is what each command gets appended so that it finishes in
// seconds on the tiny model (later flags win over the README's own).
var readmeSpeed = map[string][]string{
	"run":  {"--limit", "2", "--max-new-tokens", "4", "--progress", "none"},
	"demo": {"--limit", "2", "--max-new-tokens", "4", "--progress", "none"},
}

// TestREADMECommands runs the README's examples as a researcher would on a
// machine with a Hugging Face cache: every command of its sh blocks (parsed and
// expanded as a shell does, ~ included) in a fresh working directory, with
// HF_HOME holding HuggingFaceTB/SmolLM2-135M-Instruct (tiny-llama3's files,
// LlamaForCausalLM as SmolLM2) and openai/gsm8k (the shared GSM8K Parquet
// files), ~/models/SmolLM2-135M-Instruct the same checkpoint as a directory and
// gsm8k/ a downloaded dataset; then every sql block through DuckDB on the
// files those commands wrote. A README command that stops working fails here.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	var shell, sql []string
	for _, m := range readmeFence.FindAllStringSubmatch(string(readme), -1) {
		switch m[1] {
		case "sh":
			shell = append(shell, m[2])
		case "sql":
			sql = append(sql, m[2])
		default:
			t.Errorf("README: a fenced block in %q: this test runs sh and sql blocks only\n%s", m[1], m[2])
		}
	}
	require.NotEmpty(t, shell)
	query := duckDB(t) // before Chdir: it finds reports/parquetcheck from here

	tiny, err := filepath.Abs(sharedtest.Path(t, "models/tiny-llama3"))
	require.NoError(t, err)
	gsm8k, err := filepath.Abs(sharedtest.Path(t, "data/gsm8k/main"))
	require.NoError(t, err)
	home := t.TempDir()
	isolateDemoEnv(t)
	t.Setenv("HOME", home)
	t.Setenv("HF_HOME", filepath.Join(home, "hf"))
	hub := filepath.Join(home, "hf", "hub")
	linkSnapshot(t, filepath.Join(hub, "models--HuggingFaceTB--SmolLM2-135M-Instruct"), "", tiny)
	linkSnapshot(t, filepath.Join(hub, "datasets--openai--gsm8k"), "main", gsm8k)
	require.NoError(t, os.MkdirAll(filepath.Join(home, "models"), 0o755))
	require.NoError(t, os.Symlink(tiny, filepath.Join(home, "models", "SmolLM2-135M-Instruct")))
	work := t.TempDir()
	require.NoError(t, os.Symlink(gsm8k, filepath.Join(work, "gsm8k")))
	t.Chdir(work)

	env := expand.ListEnviron("HOME=" + home)
	ran := 0
	for _, block := range shell {
		f, err := syntax.NewParser().Parse(strings.NewReader(block), "README.md")
		require.NoError(t, err, block)
		for _, st := range f.Stmts {
			call, ok := st.Cmd.(*syntax.CallExpr)
			require.True(t, ok && len(call.Assigns) == 0 && len(st.Redirs) == 0 && !st.Background,
				"README: only plain commands can be run as written: %s", block)
			args, err := expand.Fields(&expand.Config{Env: env}, call.Args...)
			require.NoError(t, err)
			line := strings.Join(args, " ")
			if _, skip := readmeSkipped[line]; skip {
				continue
			}
			name, args := readmeCommand(t, args)
			c, ok := commands[name]
			require.True(t, ok, "README: %s: no command %q", line, name)
			args = append(args, readmeSpeed[name]...)
			require.NoError(t, c.run(context.Background(), args), "README: %s", line)
			ran++
		}
	}
	assert.GreaterOrEqual(t, ran, 5, "make demo, two runs as lm-eval and as us, the sampler comparison, compare, report")

	// The README's word on where lm-eval's files go.
	files, err := filepath.Glob(filepath.Join("runs", "smol", "lm-eval", "*__seed=*", "*", "results_*.json"))
	require.NoError(t, err)
	assert.NotEmpty(t, files, "runs/smol/lm-eval/<sampler>__seed=<n>/<model>/results_<date>.json")
	for _, q := range sql {
		assert.NotEmpty(t, query(q), "README: no rows from\n%s", q)
	}
}

// readmeCommand maps a README command line to a command of this CLI and its
// arguments: entropix-eval's own, or a make target that runs one.
func readmeCommand(t *testing.T, args []string) (string, []string) {
	t.Helper()
	switch {
	case len(args) >= 2 && args[0] == "entropix-eval":
		return args[1], args[2:]
	case len(args) == 2 && args[0] == "make" && args[1] == "demo": // the Makefile's demo target: build, then demo
		return "demo", nil
	}
	t.Fatalf("README: %q is not an entropix-eval command (or make demo / make test)", strings.Join(args, " "))
	return "", nil
}

// linkSnapshot lays out a Hugging Face hub cache repository whose one snapshot
// (refs/main) links every file of src, under sub when the repo keeps them in a
// folder (a dataset's config name).
func linkSnapshot(t *testing.T, repo, sub, src string) {
	t.Helper()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	dir := filepath.Join(repo, "snapshots", rev, sub)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
		require.NoError(t, os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())))
	}
	require.True(t, slices.ContainsFunc(names, func(n string) bool {
		return strings.HasSuffix(n, ".safetensors") || strings.HasSuffix(n, ".parquet")
	}), "%s: nothing to link", src)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "refs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(fmt.Sprintln(rev)), 0o644))
}
