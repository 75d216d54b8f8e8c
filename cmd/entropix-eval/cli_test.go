package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandNames is the command table in order; every test below runs over all of
// it, so a new command cannot skip the CLI's rules.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// captureHelp runs fn with help going to a buffer.
func captureHelp(t *testing.T, fn func()) string {
	t.Helper()
	var buf bytes.Buffer
	old := helpOut
	helpOut = &buf
	defer func() { helpOut = old }()
	fn()
	return buf.String()
}

// helpArgs are the arguments that ask a command for its help.
func helpArgs(name string) []string { return []string{"-h"} }

func TestCLIHelpOnStdoutWithSynopsisAndExamples(t *testing.T) {
	for _, name := range commandNames() {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			var code int
			out := captureHelp(t, func() { code = runMain(append([]string{name}, helpArgs(name)...), &stderr) })
			assert.Equal(t, exitDone, code, "help exits 0")
			assert.Empty(t, stderr.String(), "help goes to stdout")
			assert.True(t, strings.HasPrefix(out, "usage: entropix-eval "+name), "synopsis first:\n%s", out)
			c := commands[name]
			require.NotEmpty(t, c.examples, "every command has examples")
			assert.Contains(t, out, "\nexamples:\n")
			for _, ex := range c.examples {
				assert.Contains(t, out, ex)
				assert.True(t, ex == "entropix-eval "+name || strings.HasPrefix(ex, "entropix-eval "+name+" "), "example %q runs its own command", ex)
				if name == "datasets" {
					continue // flags of its subcommands
				}
				for _, word := range strings.Fields(ex) {
					if flagName, ok := strings.CutPrefix(word, "--"); ok {
						flagName, _, _ = strings.Cut(flagName, "=")
						assert.Regexp(t, `\n  --`+regexp.QuoteMeta(flagName)+`[ \n]`, out, "example %q uses a flag the help lists", ex)
					}
					if strings.HasPrefix(word, "configs/") {
						assert.FileExists(t, filepath.Join("..", "..", word), "example %q names a file of the repository", ex)
					}
				}
			}
		})
	}
}

func TestCLITopLevelHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		var stderr bytes.Buffer
		var code int
		out := captureHelp(t, func() { code = runMain(args, &stderr) })
		assert.Equal(t, exitDone, code)
		for _, name := range commandNames() {
			assert.Contains(t, out, "  "+name+" ")
		}
	}
	var stderr bytes.Buffer
	var code int
	out := captureHelp(t, func() { code = runMain([]string{"--version"}, &stderr) })
	assert.Equal(t, exitDone, code)
	assert.Regexp(t, `^entropix-eval \S+.* go1\.\d+`, out)

	code = runMain(nil, &stderr)
	assert.Equal(t, exitUsage, code, "no command is a usage error")
	stderr.Reset()
	code = runMain([]string{"nope"}, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "an unknown command is one line: %q", stderr.String())
}

// A wrong flag is one line naming it, after a positional argument too (which
// shows flags are read wherever they stand), and exit 2.
func TestCLIWrongFlagIsOneLine(t *testing.T) {
	for _, name := range commandNames() {
		t.Run(name, func(t *testing.T) {
			args := []string{name, "--no-such-flag", "1"}
			if name == "datasets" {
				args = []string{name, "inspect", "x.parquet", "--no-such-flag", "1"}
			} else {
				args = []string{name, "positional-arg", "--no-such-flag", "1"}
			}
			var stderr bytes.Buffer
			code := runMain(args, &stderr)
			assert.Equal(t, exitUsage, code)
			msg := stderr.String()
			assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
			assert.Contains(t, msg, "no-such-flag")
			assert.Contains(t, msg, "-h' lists the flags")
		})
	}
}

// Flags after positional arguments are read like flags before them.
func TestCLIFlagsAfterPositionalArgs(t *testing.T) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	baseline := fs.String("baseline", "", "")
	json := fs.Bool("json", false, "")
	n := fs.Int("n", 0, "")
	require.NoError(t, parseFlags(fs, []string{"RUN", "--baseline", "greedy", "--json", "-n", "-3", "--", "--not-a-flag"}))
	assert.Equal(t, "greedy", *baseline)
	assert.True(t, *json)
	assert.Equal(t, -3, *n)
	assert.Equal(t, []string{"RUN", "--not-a-flag"}, fs.Args())
	err := parseFlags(fs, []string{"RUN", "--json=maybe"})
	require.True(t, errors.Is(err, errUsage))
}

// One name per concept: a flag name means the same in every command that has it.
func TestCLIOneNamePerConcept(t *testing.T) {
	banned := map[string]string{"max-tokens": "max-new-tokens", "top": "candidates", "max_new_tokens": "max-new-tokens"}
	for _, name := range commandNames() {
		if name == "datasets" {
			continue
		}
		out := captureHelp(t, func() { runMain([]string{name, "-h"}, &bytes.Buffer{}) })
		for old, now := range banned {
			assert.NotRegexp(t, `\n  --`+old+`[ \n]`, out, "%s: --%s is spelled --%s", name, old, now)
		}
	}
	_ = context.Background
}

func TestRunHelpListsTasksSamplersAndVariants(t *testing.T) {
	out := captureHelp(t, func() { runMain([]string{"run", "-h"}, &bytes.Buffer{}) })
	for _, want := range []string{"gsm8k_cot", "min_p", "combined", "entropix:VARIANT", "frog", "smollm-360m",
		"  --model_args ", "  --batch-size ", "  --batch_size ", "  --sampler "} {
		assert.Contains(t, out, want)
	}
}

// Help lists flags as synopses spell them (--name KIND), with each usage verbatim:
// no back-quoted words taken for the value's name, one default at most.
func TestCLIHelpFlagLines(t *testing.T) {
	for _, name := range commandNames() {
		out := captureHelp(t, func() { runMain([]string{name, "-h"}, &bytes.Buffer{}) })
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			assert.Regexp(t, `^  --[a-z0-9_-]+( (int|string|float|value|duration|uint))?$`, line, "%s: flag line", name)
		}
		for _, usage := range regexp.MustCompile(`\n    \t([^\n]*)`).FindAllStringSubmatch(out, -1) {
			assert.LessOrEqual(t, strings.Count(usage[1], "(default"), 1, "%s: %q", name, usage[1])
		}
	}
	out := captureHelp(t, func() { runMain([]string{"run", "-h"}, &bytes.Buffer{}) })
	assert.Contains(t, out, "  --task string\n")
	assert.Contains(t, out, "  --cpuprofile string\n")
}
