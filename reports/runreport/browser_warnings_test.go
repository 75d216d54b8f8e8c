package runreport

import (
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/browsertest"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

// headerState is where the header and warnings sit in the first screen.
type headerState struct {
	HeaderBottom, WarningsBottom, ViewHeight float64
	Keys                                     []string
	Warnings                                 []string
	ScrollWidth, ViewWidth                   float64
}

const readHeader = `(() => {
  const h = document.getElementById('run-header'), w = document.getElementById('warnings');
  return {
    HeaderBottom: h ? h.getBoundingClientRect().bottom : -1,
    WarningsBottom: w ? w.getBoundingClientRect().bottom : -1,
    ViewHeight: window.innerHeight, ViewWidth: window.innerWidth,
    ScrollWidth: document.documentElement.scrollWidth,
    Keys: h ? [...h.querySelectorAll('dt')].map(e => e.textContent) : [],
    Warnings: w ? [...w.querySelectorAll('li')].map(e => e.textContent) : [],
  };
})()`

// A run whose prompts were cut and whose every response hit the token budget:
// the report's header (what ran) and its warnings are on the first screen at
// 1400×900, and the page has no horizontal scrollbar.
func TestReportHeaderAndWarningsOnFirstScreen(t *testing.T) {
	bin := browsertest.Chromium(t)
	dir := t.TempDir()
	spec := fixture.Small()
	spec.MinTokens, spec.MaxTokens = 12, 12 // every response stops at the budget
	spec.PromptsCut = 5
	require.NoError(t, fixture.Write(dir, spec))
	rep, err := Build(dir, Options{})
	require.NoError(t, err)
	require.Len(t, rep.Warnings, 1+len(spec.Samplers), "prompts cut, and each sampler at the budget")

	ctx, _ := browsertest.Open(t, bin)
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate("file://"+filepath.Join(dir, HTMLFile)), chromedp.WaitVisible("#run-header")))
	st, err := chromedp.Run(ctx, chromedp.Evaluate[headerState](readHeader))
	require.NoError(t, err)
	assert.Equal(t, []string{"model", "task", "shots", "problems", "seeds", "samplers", "backend", "precision", "token budget", "date"}, st.Keys)
	assert.Positive(t, st.HeaderBottom)
	assert.LessOrEqual(t, st.WarningsBottom, st.ViewHeight, "the warnings are visible without scrolling")
	assert.Positive(t, st.WarningsBottom)
	require.Len(t, st.Warnings, 4)
	assert.Contains(t, st.Warnings[0], "5 of 12 prompts were cut on the left to fit max_seq_len 512")
	assert.Contains(t, st.Warnings[1], "greedy: 100% of responses stopped at the token budget (12 tokens)")
	assert.LessOrEqual(t, st.ScrollWidth, st.ViewWidth, "no horizontal scrollbar at 1400 px")
}
