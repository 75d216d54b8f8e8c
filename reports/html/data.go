package html

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// The per-problem browser's data travels as two JSON blocks: problems (always)
// and per-token detail (parsed by the page only when a problem is opened).
// json.Marshal escapes <, > and & as \u003c..., so no model output can close the
// <script> element that holds it; the page reads the blocks with JSON.parse and
// writes every string with textContent, never as markup.

type thresholdsJSON struct {
	Entropy    []float64 `json:"e"`
	Varentropy []float64 `json:"v"`
}

type problemJSON struct {
	ID        int32          `json:"id"`
	Question  string         `json:"q"`
	Prompt    string         `json:"p"` // the prompt after the prefix all prompts share
	Target    string         `json:"t"`
	Responses []responseJSON `json:"r"`
}

type responseJSON struct {
	Sampler   int      `json:"s"`
	Seed      int64    `json:"seed"`
	Repeat    int32    `json:"rep"`
	Text      string   `json:"x"`
	Answers   []string `json:"a"` // per answer filter, browserData.AnswerFilters' order
	Correct   []bool   `json:"c"` // per score key, the accuracy table's order
	Finish    string   `json:"f"`
	GenTokens int32    `json:"n"`
	Tokens    int      `json:"k"` // index into the token block, -1 when left out
}

type browserData struct {
	Samplers []string `json:"samplers"`
	// AnswerFilters name the task's filter pipelines, whose answers each
	// response shows under their names.
	AnswerFilters []string `json:"answerFilters"`
	// Thresholds are each sampler's Entropix logits thresholds (entropy "e",
	// varentropy "v"), drawn on the token timeline; empty for other samplers.
	Thresholds []thresholdsJSON `json:"thresholds"`
	Strategies []string         `json:"strategies"`
	// PromptPrefix is the longest prefix every prompt shares (the few-shot
	// examples), stored once instead of once per problem.
	PromptPrefix string        `json:"promptPrefix"`
	Problems     []problemJSON `json:"problems"`
}

// encodeBrowser returns the problems block and the token block.
func encodeBrowser(r *model.Report) (problems, tokens []byte, err error) {
	d := browserData{Samplers: []string{}, AnswerFilters: append([]string{}, r.AnswerFilters...), Thresholds: []thresholdsJSON{}, Strategies: []string{}, Problems: []problemJSON{}}
	samplerIdx := map[string]int{}
	for i, s := range r.Samplers {
		samplerIdx[s.Label] = i
		d.Samplers = append(d.Samplers, s.Label)
		th := thresholdsJSON{Entropy: []float64{}, Varentropy: []float64{}}
		if t := s.Thresholds; t != nil {
			for _, l := range t.Entropy {
				th.Entropy = append(th.Entropy, l.Value)
			}
			for _, l := range t.Varentropy {
				th.Varentropy = append(th.Varentropy, l.Value)
			}
		}
		d.Thresholds = append(d.Thresholds, th)
	}
	strategyIdx := map[string]int{}
	var tok bytes.Buffer
	tok.WriteByte('[')
	nTok := 0
	d.PromptPrefix = commonPrefix(r.Problems)
	for _, p := range r.Problems {
		pj := problemJSON{ID: p.ID, Question: p.Question, Target: p.Target, Responses: []responseJSON{}}
		if p.Prompt != "" {
			pj.Prompt = p.Prompt[len(d.PromptPrefix):]
		}
		for _, resp := range p.Responses {
			si, ok := samplerIdx[resp.Sampler]
			if !ok {
				si = len(d.Samplers)
				samplerIdx[resp.Sampler] = si
				d.Samplers = append(d.Samplers, resp.Sampler)
				d.Thresholds = append(d.Thresholds, thresholdsJSON{Entropy: []float64{}, Varentropy: []float64{}})
			}
			rj := responseJSON{
				Sampler: si, Seed: resp.Seed, Repeat: resp.Repeat, Text: resp.Text,
				Answers: nonNil(resp.Answers), Correct: nonNil(resp.Correct),
				Finish: resp.Finish, GenTokens: resp.GenTokens, Tokens: -1,
			}
			if resp.Tokens != nil {
				if nTok > 0 {
					tok.WriteByte(',')
				}
				if err := encodeTokens(&tok, resp.Tokens, strategyIdx, &d.Strategies); err != nil {
					return nil, nil, err
				}
				rj.Tokens = nTok
				nTok++
			}
			pj.Responses = append(pj.Responses, rj)
		}
		d.Problems = append(d.Problems, pj)
	}
	tok.WriteByte(']')
	problems, err = json.Marshal(d)
	if err != nil {
		return nil, nil, err
	}
	return problems, tok.Bytes(), nil
}

// encodeTokens writes {"t":[texts],"e":[entropy],"v":[varentropy],"g":[strategy]}
// with metrics rounded to 3 decimals (the page shows 3) and NaN as null.
func encodeTokens(b *bytes.Buffer, t *model.Tokens, idx map[string]int, names *[]string) error {
	b.WriteString(`{"t":`)
	texts, err := json.Marshal(t.Text)
	if err != nil {
		return err
	}
	if t.Text == nil {
		texts = []byte("[]")
	}
	b.Write(texts)
	b.WriteString(`,"e":`)
	writeFloats(b, t.Entropy)
	b.WriteString(`,"v":`)
	writeFloats(b, t.Varentropy)
	b.WriteString(`,"a":`)
	writeFloats(b, t.AttnEntropy)
	b.WriteString(`,"g":[`)
	for i, s := range t.Strategy {
		id, ok := idx[s]
		if !ok {
			id = len(*names)
			idx[s] = id
			*names = append(*names, s)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteString("]}")
	return nil
}

func writeFloats(b *bytes.Buffer, xs []float64) {
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
			continue
		}
		b.WriteString(strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64))
	}
	b.WriteByte(']')
}

// commonPrefix is the longest prefix of every known prompt, cut back to a
// UTF-8 character boundary; "" with fewer than two prompts.
func commonPrefix(problems []model.Problem) string {
	var prefix string
	n := 0
	for _, p := range problems {
		if p.Prompt == "" {
			continue
		}
		if n == 0 {
			prefix = p.Prompt
		} else {
			i := 0
			for i < len(prefix) && i < len(p.Prompt) && prefix[i] == p.Prompt[i] {
				i++
			}
			prefix = prefix[:i]
		}
		n++
	}
	if n < 2 {
		return ""
	}
	for len(prefix) > 0 && !utf8.ValidString(prefix) {
		prefix = prefix[:len(prefix)-1]
	}
	return prefix
}

// nonNil keeps an empty list a JSON array, so the page can index it.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
