package runreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports"
)

var cellPadding = regexp.MustCompile(` *\| *`)

// The n-shot column shows the shot count the manifest records (the task's
// num_fewshot in effect), "-" only when the manifest does not say.
func TestMarkdownNShot(t *testing.T) {
	rows := concat(scored("greedy", 0, 1, 0), scored("x", 0, 1, 1))
	table := func(m map[string]any) string {
		dir := writeRun(t, m, rows, nil)
		rep, err := Compute(dir, Options{Paired: reports.PairedOptions{Bootstrap: reportsBootstrap(100)}})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, WriteMarkdown(&b, rep))
		// Cells are padded to their column's width; compare them unpadded.
		return cellPadding.ReplaceAllString(b.String(), "|")
	}
	m := taskManifest("gsm8k_cot", "greedy", "x")
	m["task"] = map[string]any{"name": "gsm8k_cot", "config": map[string]any{"num_fewshot": 8}}
	got := table(m)
	// greedy: strict 1 of 2 → 0.5000, SE sqrt(0.25/1) = 0.5.
	assert.Contains(t, got, "|gsm8k_cot|greedy|strict-match|8|exact_match|↑|0.5000|±|0.5000|\n")
	assert.Equal(t, 2*3, strings.Count(got, "|8|"), "every row, 2 samplers × 3 scores")

	// A sweep override without the task's count (older manifests) still shows.
	m = taskManifest("gsm8k_cot", "greedy", "x")
	m["config"] = map[string]any{"num_fewshot": 0}
	assert.Contains(t, table(m), "|greedy|strict-match|0|exact_match|")

	assert.Contains(t, table(taskManifest("gsm8k_cot", "greedy", "x")), "|greedy|strict-match|-|exact_match|")
}
