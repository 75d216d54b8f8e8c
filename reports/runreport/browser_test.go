package runreport

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/browsertest"
	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

// pageState is what the test reads back from the page's DOM.
type pageState struct {
	AccuracyRows int    `json:"accuracyRows"`
	PairedRows   int    `json:"pairedRows"`
	StrategyRows int    `json:"strategyRows"`
	Images       int    `json:"images"`
	BrokenImages int    `json:"brokenImages"`
	Cards        int    `json:"cards"`
	Count        string `json:"count"`
	TokenNote    bool   `json:"tokenNote"`
	Scripts      int    `json:"scripts"`
	Alerts       int    `json:"alerts"`
	FirstRow     string `json:"firstRow"`
	Headlines    int    `json:"headlines"`
	Forest       bool   `json:"forest"`
	FirstSection string `json:"firstSection"`
	LastSection  string `json:"lastSection"`
}

const readState = `(() => ({
  accuracyRows: document.querySelectorAll('#accuracy-table tbody tr').length,
  pairedRows: document.querySelectorAll('#paired-table tbody tr').length,
  strategyRows: document.querySelectorAll('table.strategy-share tbody tr').length,
  images: document.images.length,
  brokenImages: Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).length,
  cards: document.querySelectorAll('#list details.problem').length,
  count: document.getElementById('count').textContent,
  tokenNote: document.getElementById('token-note') !== null,
  scripts: document.scripts.length,
  alerts: window.__alerts.length,
  firstRow: document.querySelector('#accuracy-table tbody tr td').textContent,
  headlines: document.querySelectorAll('#headline-list li').length,
  forest: document.querySelector('#forest img') !== null && document.querySelector('#forest img').naturalWidth > 0,
  firstSection: document.querySelector('main section').id,
  lastSection: Array.from(document.querySelectorAll('main section')).pop().id,
}))()`

// The hostile response, once its problem is opened: shown as text, with no
// element made from it.
const readHostile = `(() => {
  const pres = Array.from(document.querySelectorAll('#list pre.text'));
  return {
    shownAsText: pres.some(p => p.textContent.includes('<script>alert(1)</script></textarea><img src=x onerror=alert(2)>')),
    tokens: document.querySelectorAll('#list span.tok').length,
    tokenTitle: (document.querySelector('#list span.tok') || {title: ''}).title,
    injected: document.querySelectorAll('#list script, #list img, #list textarea').length,
    timelinePaths: document.querySelectorAll('#list svg.timeline path').length,
    prompt: (document.querySelector('#list details.prompt pre') || {textContent: ''}).textContent,
    thresholdLines: document.querySelectorAll('#list svg.timeline line.threshold').length,
    scripts: document.scripts.length,
    alerts: window.__alerts.length,
    answers: Array.from(document.querySelectorAll('#list .resp .head .answer')).map(e => e.textContent),
    heads: Array.from(document.querySelectorAll('#list .resp .head')).map(e => e.textContent),
    scores: Array.from(document.querySelectorAll('#score option')).map(e => e.textContent),
  };
})()`

type hostileState struct {
	ShownAsText bool     `json:"shownAsText"`
	Tokens      int      `json:"tokens"`
	TokenTitle  string   `json:"tokenTitle"`
	Injected    int      `json:"injected"`
	Timeline    int      `json:"timelinePaths"`
	Prompt      string   `json:"prompt"`
	Thresholds  int      `json:"thresholdLines"`
	Scripts     int      `json:"scripts"`
	Alerts      int      `json:"alerts"`
	Answers     []string `json:"answers"`
	Heads       []string `json:"heads"`
	Scores      []string `json:"scores"`
}

func TestReportInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	dir := t.TempDir()
	// A task whose filters are not GSM8K's: the page must name them as the
	// task does, not as strict and flexible.
	spec := fixture.Small()
	spec.Filters = []string{"last-number", "boxed"}
	require.NoError(t, fixture.Write(dir, spec))
	// A budget below the run's tokens: some problems plain, with the note shown.
	rep, err := Build(dir, Options{TokenBudget: 600})
	require.NoError(t, err)
	// Problems where the last sampler's share of strict-correct samples is
	// above greedy's (the first): what "A right, B wrong" must show.
	a, b := rep.Samplers[len(rep.Samplers)-1].Label, rep.Samplers[0].Label
	wantPair := 0
	for _, p := range rep.Problems {
		var right, total [2]float64
		for _, r := range p.Responses {
			side := map[string]int{a: 0, b: 1}
			if i, ok := side[r.Sampler]; ok {
				total[i]++
				if r.Correct[0] {
					right[i]++
				}
			}
		}
		if total[0] > 0 && total[1] > 0 && right[0]/total[0] > right[1]/total[1] {
			wantPair++
		}
	}

	ctx, issues := browsertest.Open(t, bin)
	url := "file://" + filepath.Join(dir, HTMLFile)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("#accuracy-table")))

	st, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](readState))
	require.NoError(t, err)
	assert.Equal(t, 3, st.AccuracyRows, "one row per sampler")
	assert.Equal(t, 6, st.PairedRows, "two samplers × three filters against greedy")
	assert.Positive(t, st.StrategyRows, "Entropix strategy shares")
	assert.Equal(t, 1+1+3+3, st.Images, "forest, accuracy, 3 densities, 3 curves")
	assert.Equal(t, 2, st.Headlines, "one headline sentence per sampler against greedy")
	assert.True(t, st.Forest, "the forest plot is drawn")
	assert.Equal(t, "headline", st.FirstSection, "the page leads with the answer")
	assert.Equal(t, "manifest", st.LastSection, "the manifest comes last")
	assert.Zero(t, st.BrokenImages)
	assert.Equal(t, 12, st.Cards)
	assert.Equal(t, "12 of 12 problems", st.Count)
	assert.True(t, st.TokenNote, "the page says token detail was capped")
	assert.Equal(t, 3, st.Scripts)
	assert.Contains(t, st.FirstRow, "greedy")

	// Find the hostile response by searching for it, and open its problem.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const q = document.getElementById('q'); q.value = 'alert(1)'; q.dispatchEvent(new Event('input')); document.querySelector('#list details.problem').open = true; })()`),
		chromedp.WaitVisible("#list .pbody"),
	))
	hs, err := chromedp.Run(ctx, chromedp.Evaluate[hostileState](readHostile))
	require.NoError(t, err)
	assert.True(t, hs.ShownAsText, "the hostile response is shown verbatim as text")
	assert.NotEmpty(t, hs.Answers)
	for _, a := range hs.Answers {
		assert.Regexp(t, `^(last-number|boxed): `, a, "answers are labelled by the task's filter names")
	}
	assert.Equal(t, 2*len(hs.Heads), len(hs.Answers), "every response shows both filters' answers")
	for _, h := range hs.Heads {
		assert.NotContains(t, h, "strict")
		assert.NotContains(t, h, "flexible")
	}
	assert.Equal(t, []string{"exact_match,last-number", "numeric_match,last-number", "exact_match,boxed"}, hs.Scores,
		"the score menu lists the task's score keys")
	assert.Zero(t, hs.Injected, "no element was made from model output")
	assert.Equal(t, 3, hs.Scripts)
	assert.Zero(t, hs.Alerts)
	assert.Positive(t, hs.Tokens, "problem 0 has per-token detail")
	assert.Contains(t, hs.TokenTitle, "entropy")
	assert.Positive(t, hs.Timeline, "each response with token detail has its timeline")
	assert.True(t, strings.HasPrefix(hs.Prompt, "Q: ") && strings.HasSuffix(hs.Prompt, "\nA:"), "the prompt the model saw: %q", hs.Prompt)
	assert.Positive(t, hs.Thresholds, "the entropix response's timeline draws its thresholds")

	// Filters: disagreeing samplers, then back to all for the screenshot.
	count, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
	  document.getElementById('q').value = ''; const s = document.getElementById('show'); s.value = 'disagree';
	  s.dispatchEvent(new Event('change')); return document.getElementById('count').textContent; })()`))
	require.NoError(t, err)
	assert.Regexp(t, `^\d+ of 12 problems$`, count)
	assert.NotEqual(t, "12 of 12 problems", count, "some problems have agreeing samplers")
	pair, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
	  document.getElementById('pair-a').value = '%d'; document.getElementById('pair-b').value = '0';
	  const s = document.getElementById('show'); s.value = 'pair';
	  s.dispatchEvent(new Event('change')); return document.getElementById('count').textContent; })()`, len(rep.Samplers)-1)))
	require.NoError(t, err)
	assert.Positive(t, wantPair, "the fixture has problems where %s beats %s", a, b)
	assert.Equal(t, fmt.Sprintf("%d of 12 problems", wantPair), pair, "%s right, %s wrong", a, b)

	// An open problem stays open when the score filter changes the colouring.
	stillOpen, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
	  const s = document.getElementById('show'); s.value = 'all'; s.dispatchEvent(new Event('change'));
	  const d = document.querySelector('#list details.problem'); d.open = true; const id = d.getAttribute('data-problem');
	  const sc = document.getElementById('score'); sc.value = '1'; sc.dispatchEvent(new Event('change'));
	  return document.querySelector('#list details.problem[data-problem="' + id + '"]').open; })()`))
	require.NoError(t, err)
	assert.True(t, stillOpen)
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#list .marks .mark').textContent`))
	require.NoError(t, err)
	assert.Regexp(t, `^[✓✗] \S+ s\d+`, labels, "every mark names its sampler and seed")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('show'); s.value = 'all'; s.dispatchEvent(new Event('change'));
		  const c = document.getElementById('colour'); c.value = 'strategy'; c.dispatchEvent(new Event('change'));
		  document.querySelector('#list details.problem').open = true; })()`),
		chromedp.WaitVisible("#list .pbody"),
	))
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	require.NoError(t, err)
	cfg, format, err := image.DecodeConfig(bytes.NewReader(shot))
	require.NoError(t, err)
	assert.Equal(t, "jpeg", format)
	assert.Greater(t, cfg.Height, 1000, "the whole page")
	out := t.TempDir()
	if d := os.Getenv("ENTROPIX_SCREENSHOT_DIR"); d != "" {
		out = d
		require.NoError(t, os.MkdirAll(out, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(out, "report.jpg"), shot, 0o644))

	assert.Empty(t, issues.Get(), "console errors, exceptions, dialogs or network requests")

	// The listener itself works: a console error and a blocked request show up.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`console.error('probe'); new Image().src = 'http://127.0.0.1:9/x.png';`))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(issues.Get()) >= 1 }, 5*time.Second, 50*time.Millisecond)
	got := strings.Join(issues.Get(), "\n")
	assert.Contains(t, got, "probe")
	assert.Contains(t, got, "Content Security Policy", "the page's policy blocks the request")
}
