package history

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/browsertest"
)

type historyState struct {
	Panels     int      `json:"panels"`
	Drops      []string `json:"drops"`
	Gains      int      `json:"gains"`
	GateFailed bool     `json:"gateFailed"`
	Ringed     int      `json:"ringed"`
	Links      []string `json:"links"`
	Scripts    int      `json:"scripts"`
	Bands      int      `json:"bands"`
}

const readHistory = `(() => ({
  panels: document.querySelectorAll('figure.series').length,
  drops: Array.from(document.querySelectorAll('#latest [data-mark$="-drop"]')).map(e => e.closest('tr').dataset.series + ' ' + e.dataset.mark),
  gains: document.querySelectorAll('#latest [data-mark$="-gain"]').length,
  gateFailed: document.getElementById('gate').classList.contains('failed'),
  ringed: document.querySelectorAll('circle.latest.drop').length,
  links: Array.from(document.querySelectorAll('#nights a')).map(a => a.getAttribute('href')),
  scripts: document.scripts.length,
  bands: Array.from(document.querySelectorAll('polygon.band')).filter(p => p.getBBox().height > 0).length,
}))()`

// history.html over three nights with a planted regression, in headless
// Chromium: one panel per sampler with its band, exactly the planted drop
// marked (table and ring), the gate shown failed, each night's report linked,
// no script and nothing fetched.
func TestHistoryInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	nights := threeNights(t)
	out := t.TempDir()
	h, err := Update(out, nights, Options{})
	require.NoError(t, err)
	require.NoError(t, h.WriteHTML(out, 0.05, time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)))

	ctx, issues := browsertest.Open(t, bin)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(out, HTMLFile)), chromedp.WaitReady("body")))
	st, err := chromedp.Run(ctx, chromedp.Evaluate[historyState](readHistory))
	require.NoError(t, err)
	assert.Equal(t, 3, st.Panels)
	assert.Equal(t, 3, st.Bands)
	const minP = "fixture-llama|gsm8k_cot|min_p(min_p=0.1,temperature=1)"
	assert.Equal(t, []string{minP + " previous-drop", minP + " best-drop"}, st.Drops)
	assert.Zero(t, st.Gains)
	assert.True(t, st.GateFailed)
	assert.Equal(t, 1, st.Ringed)
	require.Len(t, st.Links, 3)
	for i, n := range nights {
		rel, err := filepath.Rel(out, filepath.Join(n, "report.html"))
		require.NoError(t, err)
		assert.Equal(t, filepath.ToSlash(rel), st.Links[i])
	}
	assert.Zero(t, st.Scripts)
	assert.Empty(t, issues.Get(), "console errors, exceptions, dialogs or network requests")
}
