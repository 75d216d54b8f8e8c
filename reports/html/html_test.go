package html

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const hostile = `<script>alert(1)</script></textarea><img src=x onerror=alert(2)>&amp; "q" '{{.}}' ` + "\u2028"

func hostileReport() *model.Report {
	var filters []model.FilterAccuracy
	for _, f := range []reports.Filter{reports.FilterStrict, reports.FilterFlexible, reports.FilterNumeric} {
		filters = append(filters, model.FilterAccuracy{Filter: string(f), SeedSD: math.NaN(),
			ClusteredAccuracy: reports.ClusteredAccuracy{N: 2, Mean: 0.5, SE: 0.5, CILow: 0.1, CIHigh: 0.9, WithinSD: math.NaN(), ExactLow: 0.0126, ExactHigh: 0.9874}})
	}
	label := `evil<b>"sampler"</b>`
	return &model.Report{
		RunDir: "runs/</title><script>x()</script>", Task: "gsm8k", Generated: time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC),
		Baseline: "greedy", Filters: []string{"strict", "flexible", "numeric"}, PrimaryFilter: "strict",
		Manifest: model.Manifest{Highlights: []model.KeyValue{{Key: "model", Value: hostile}}, Pretty: `{"model": "` + hostile + `"}`},
		Samplers: []model.Sampler{{Label: "greedy", Seeds: []int64{0}, Filters: filters}, {Label: label, Seeds: []int64{0}, Filters: filters}},
		Comparisons: []reports.ComparisonRow{{Sampler: label, Baseline: "greedy", Filter: "strict", Primary: true, Alternative: reports.TwoSided,
			NProblems: 2, NDiffering: 1, SamplesPerProblem: 1, BaselineSamplesPerProblem: 1, Delta: -0.5, DeltaSE: 0.5, CILow: -1, CIHigh: 0,
			NormalCILow: -1.48, NormalCIHigh: 0.48, BootResamples: 100, BootBeyondZero: 25, P: 1, PTest: reports.SignFlipExact,
			PHolm: reports.Some(1.0), HolmFamily: "task:" + hostile, HolmM: 1, MDE80: 1.4, MDEAlpha: 0.05,
			McNemarB: reports.Some[int32](0), McNemarC: reports.Some[int32](1), McNemarP: reports.Some(1.0), McNemarTest: reports.McNemarExact}},
		Notes: []string{hostile},
		Problems: []model.Problem{{ID: 0, Question: hostile, Prompt: "Q: " + hostile + "\nA:", Target: "18", Responses: []model.Response{
			{Sampler: "greedy", Text: "The answer is 18.", Correct: []bool{true, true, true}, Finish: "stop", GenTokens: 5},
			{Sampler: label, Text: hostile, Answers: []string{hostile}, Finish: "length", GenTokens: 3,
				Tokens: &model.Tokens{Text: []string{"<script>", "alert(1)", "</script></textarea>"}, Entropy: []float64{0.12345, math.NaN(), 2},
					Varentropy: []float64{1, 2, math.Inf(1)}, Strategy: []string{"argmax", hostile, "argmax"}}},
		}}},
	}
}

func render(t *testing.T, r *model.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Render(&b, r, Figures{}))
	return b.String()
}

func TestRenderEscapesModelOutput(t *testing.T) {
	page := render(t, hostileReport())
	assert.Equal(t, 3, strings.Count(page, "<script"), "only the page's own script elements")
	assert.Equal(t, 3, strings.Count(page, "</script>"))
	for _, raw := range []string{"<script>alert(1)", "</textarea>", "<img src=x", "<b>\"sampler\"", "</title><script>"} {
		assert.False(t, strings.Contains(page, raw), "page contains %q", raw)
	}
	assert.True(t, strings.Contains(page, "evil&lt;b&gt;&#34;sampler&#34;&lt;/b&gt;"), "labels are escaped in tables")
	assert.True(t, strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/textarea&gt;"), "manifest and notes are escaped text")
}

var block = regexp.MustCompile(`(?s)<script type="application/json" id="([a-z-]+)">(.*?)</script>`)

func TestRenderDataBlocksRoundTrip(t *testing.T) {
	page := render(t, hostileReport())
	blocks := map[string]string{}
	for _, m := range block.FindAllStringSubmatch(page, -1) {
		blocks[m[1]] = m[2]
	}
	require.Contains(t, blocks, "problems-data")
	require.Contains(t, blocks, "tokens-data")

	var d browserData
	require.NoError(t, json.Unmarshal([]byte(blocks["problems-data"]), &d))
	require.Len(t, d.Problems, 1)
	assert.Equal(t, hostile, d.Problems[0].Question)
	assert.Equal(t, "", d.PromptPrefix, "one prompt: nothing shared")
	assert.Equal(t, "Q: "+hostile+"\nA:", d.PromptPrefix+d.Problems[0].Prompt)
	assert.Equal(t, hostile, d.Problems[0].Responses[1].Text)
	assert.Equal(t, -1, d.Problems[0].Responses[0].Tokens, "no token detail")
	assert.Equal(t, 0, d.Problems[0].Responses[1].Tokens)
	assert.Equal(t, []string{"greedy", `evil<b>"sampler"</b>`}, d.Samplers)
	assert.Equal(t, []string{"argmax", hostile}, d.Strategies)

	var toks []struct {
		T []string   `json:"t"`
		E []*float64 `json:"e"`
		V []*float64 `json:"v"`
		G []int      `json:"g"`
	}
	require.NoError(t, json.Unmarshal([]byte(blocks["tokens-data"]), &toks))
	require.Len(t, toks, 1)
	assert.Equal(t, []string{"<script>", "alert(1)", "</script></textarea>"}, toks[0].T)
	assert.InDelta(t, 0.123, *toks[0].E[0], 1e-12, "rounded to 3 decimals")
	assert.Nil(t, toks[0].E[1], "NaN is null")
	assert.Nil(t, toks[0].V[2], "Inf is null")
	assert.Equal(t, []int{0, 1, 0}, toks[0].G)
}

func TestAssetsAreOffline(t *testing.T) {
	for name, s := range map[string]string{"template": pageTemplate, "css": pageCSS, "js": pageJS} {
		// The SVG namespace is an identifier the DOM compares, never fetched.
		s = strings.ReplaceAll(s, `"http://www.w3.org/2000/svg"`, "")
		for _, bad := range []string{"http://", "https://", "//cdn", "@import", "fetch(", "XMLHttpRequest", "innerHTML", "eval("} {
			assert.NotContains(t, s, bad, "%s must not use %s", name, bad)
		}
	}
	assert.Contains(t, pageTemplate, "default-src 'none'", "a content security policy forbids any network access")
}

func TestRenderSections(t *testing.T) {
	r := hostileReport()
	r.HasTraces = true
	r.Strategies = []model.StrategyStats{{Sampler: "entropix", Tokens: 10, Shares: []model.StrategyShare{{Strategy: "argmax", Tokens: 10, Share: 1}}}}
	r.TokenNote = "Token-level detail is embedded for the first 1 of 2 problems"
	var b bytes.Buffer
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><text>&lt;script&gt;</text></svg>`)
	require.NoError(t, Render(&b, r, Figures{Accuracy: &Figure{Title: "acc", SVG: svg}, Density: []Figure{{Title: "d", SVG: svg}}}))
	page := b.String()
	for _, id := range []string{`id="headline-list"`, `id="manifest"`, `id="accuracy-table"`, `id="paired-table"`, `id="strategies"`, `id="density"`, `id="curves"`, `id="problems"`, `id="token-note"`} {
		assert.True(t, strings.Contains(page, id), "page lacks %s", id)
	}
	assert.True(t, strings.Contains(page, `src="data:image/svg&#43;xml;base64,`), "figures are inlined as images")
}

// What a reader sees first is the answer: the headline sentence, then the
// forest plot; the manifest comes last, folded.
func TestRenderLeadsWithTheAnswer(t *testing.T) {
	r := hostileReport()
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`)
	var b bytes.Buffer
	require.NoError(t, Render(&b, r, Figures{Forest: &Figure{Title: "forest", SVG: svg}, Accuracy: &Figure{Title: "acc", SVG: svg}}))
	page := b.String()
	headline := "evil&lt;b&gt;&#34;sampler&#34;&lt;/b&gt; −50.0 pp [95% CI −100.0, 0.0], p = 1.0, Holm p = 1.0 (1 test), n = 2 problems; sensitivity ±140.0 pp"
	require.Contains(t, page, headline)
	order := []string{headline, `id="forest"`, `id="accuracy-table"`, `id="paired-table"`, `id="problems"`, `id="manifest"`}
	for i := 1; i < len(order); i++ {
		assert.Less(t, strings.Index(page, order[i-1]), strings.Index(page, order[i]), "%s before %s", order[i-1], order[i])
	}
	manifest := page[strings.Index(page, `id="manifest"`):]
	assert.Less(t, strings.Index(manifest, "<details>"), strings.Index(manifest, `<table class="kv">`), "the manifest is folded")
	assert.Contains(t, page, "secondary")
	// The paired table shows the same interval, the normal and bootstrap ones
	// beside it (a bootstrap end at 0 with its share of resamples), the family
	// and the level of the sensitivity.
	paired := page[strings.Index(page, `id="paired-table"`):]
	for _, want := range []string{"[−100.0, 0.0]", "[−148.0, &#43;48.0]", "[0.0 (25.0% ≥ 0), 0.0 (25.0% ≥ 0)]", "m = 1", "α 0.050", "exact [1.3, 98.7]"} {
		if want == "exact [1.3, 98.7]" {
			assert.Contains(t, page, want)
			continue
		}
		assert.Contains(t, paired, want)
	}
}

// FuzzRenderEscapes puts arbitrary text everywhere model output and run
// strings go: the page never gains a script, style or other element from it.
func FuzzRenderEscapes(f *testing.F) {
	f.Add(hostile, "<SCRIPT>", "</style><style>")
	f.Add("\x00\xff</ScRiPt >", "<!--", "]]><![CDATA[")
	f.Fuzz(func(t *testing.T, text, label, token string) {
		r := hostileReport()
		r.Samplers[1].Label = label
		r.Comparisons[0].Sampler = label
		p := &r.Problems[0]
		p.Question, p.Target = text, token
		p.Responses[1].Sampler, p.Responses[1].Text = label, text
		p.Responses[1].Tokens.Text = []string{token, text, label}
		var b bytes.Buffer
		require.NoError(t, Render(&b, r, Figures{}))
		page := strings.ToLower(b.String())
		for _, tag := range []string{"<script", "</script", "<style", "</style", "<!--", "<textarea", "<img", "<iframe"} {
			want := map[string]int{"<script": 3, "</script": 3, "<style": 1, "</style": 1}[tag]
			assert.Equal(t, want, strings.Count(page, tag), tag)
		}
	})
}

func TestCommonPrefix(t *testing.T) {
	shots := "Q: 1+1?\nA: 2\n\nQ: "
	ps := []model.Problem{{Prompt: shots + "3+4?\nA:"}, {}, {Prompt: shots + "5+6?\nA:"}}
	assert.Equal(t, shots, commonPrefix(ps))
	assert.Equal(t, "", commonPrefix(ps[:2]), "one prompt")
	// The shared bytes end inside "é" (C3 A9 vs C3 A8): cut before it.
	assert.Equal(t, "caf", commonPrefix([]model.Problem{{Prompt: "café"}, {Prompt: "cafè"}}))
}

func TestNum3SmallValues(t *testing.T) {
	for in, want := range map[float64]string{1.2345e-4: "0.000123", 0.5: "0.500", 0: "0.000", -0.0042: "-0.0042", 12.3456: "12.346"} {
		assert.Equal(t, want, num3(in), "%v", in)
	}
	assert.Equal(t, "–", num3(math.NaN()))
}
