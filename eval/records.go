package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Finish reasons, as results.arrow and samples.jsonl spell them.
const (
	FinishStop   = "stop"
	FinishEOS    = "eos"
	FinishLength = "length"
)

// Record is one finished work item as the journal keeps it: what the model generated,
// not how it was graded, so rescoring and merging rebuild every file from records.
type Record struct {
	ItemKey
	ProblemID    string      `json:"problem_id"`
	PromptHash   string      `json:"prompt_hash"`
	PromptTokens int         `json:"prompt_tokens"`
	Response     string      `json:"response"`
	GenTokens    int         `json:"gen_tokens"`
	FinishReason string      `json:"finish_reason"`
	LatencyMS    float64     `json:"latency_ms"`
	Trace        []TraceStep `json:"trace"`
}

// TraceStep is one generated token and the numbers behind its choice.
type TraceStep struct {
	Token          int32
	Text           string
	Strategy       string
	Entropy        float64
	Varentropy     float64
	AttnEntropy    float64
	AttnVarentropy float64
	Agreement      float64
	Interaction    float64
	Temperature    float64
	TopK           int
	TopP           float64
	MinP           float64
	LogProb        float64
	TailMass       float64
}

// traceFields is the number of entries of a TraceStep's JSON array.
const traceFields = 15

// MarshalJSON writes a positional array: traces dominate the journal's size, and
// keys would triple it. Non-finite numbers become the strings "NaN", "+Inf", "-Inf"
// because JSON has no literal for them and they are legitimate metric values.
func (t TraceStep) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 192)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(t.Token), 10)
	b = append(b, ',')
	var err error
	if b, err = appendJSONString(b, t.Text); err != nil {
		return nil, err
	}
	b = append(b, ',')
	if b, err = appendJSONString(b, t.Strategy); err != nil {
		return nil, err
	}
	for _, f := range []float64{t.Entropy, t.Varentropy, t.AttnEntropy, t.AttnVarentropy, t.Agreement, t.Interaction, t.Temperature} {
		b = appendFloat(append(b, ','), f)
	}
	b = strconv.AppendInt(append(b, ','), int64(t.TopK), 10)
	for _, f := range []float64{t.TopP, t.MinP, t.LogProb, t.TailMass} {
		b = appendFloat(append(b, ','), f)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads the array MarshalJSON writes.
func (t *TraceStep) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("trace step: %w", err)
	}
	if len(raw) != traceFields {
		return fmt.Errorf("trace step: %d fields, want %d", len(raw), traceFields)
	}
	var token, topK int64
	if err := json.Unmarshal(raw[0], &token); err != nil {
		return fmt.Errorf("trace step token: %w", err)
	}
	if err := json.Unmarshal(raw[1], &t.Text); err != nil {
		return fmt.Errorf("trace step text: %w", err)
	}
	if err := json.Unmarshal(raw[2], &t.Strategy); err != nil {
		return fmt.Errorf("trace step strategy: %w", err)
	}
	if err := json.Unmarshal(raw[10], &topK); err != nil {
		return fmt.Errorf("trace step top_k: %w", err)
	}
	t.Token, t.TopK = int32(token), int(topK)
	floats := []*float64{&t.Entropy, &t.Varentropy, &t.AttnEntropy, &t.AttnVarentropy, &t.Agreement, &t.Interaction, &t.Temperature}
	for i, p := range floats {
		if err := parseFloat(raw[3+i], p); err != nil {
			return err
		}
	}
	for i, p := range []*float64{&t.TopP, &t.MinP, &t.LogProb, &t.TailMass} {
		if err := parseFloat(raw[11+i], p); err != nil {
			return err
		}
	}
	return nil
}

func appendJSONString(b []byte, s string) ([]byte, error) {
	q, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}

// appendFloat writes the shortest text that reads back to the same float64, so a
// resumed run's numbers are bit-identical to an uninterrupted one.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func parseFloat(raw json.RawMessage, dst *float64) error {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("trace step: number %q: %w", s, err)
		}
		*dst = f
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("trace step: %w", err)
	}
	return nil
}
