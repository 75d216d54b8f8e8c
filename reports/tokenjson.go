package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// A TokenRecord is stored in a run's journal as a positional JSON array:
// traces dominate the journal's size, and keys would triple it. The fields, in
// order: token, text, strategy, entropy, varentropy, attn_entropy,
// attn_varentropy, agreement, interaction_strength, temperature, top_k, top_p,
// min_p, logprob, tail_mass (the vocabulary's), then sample_logprob,
// survivors, n_samples, confidence, draw_tail_mass, tail_cut, faithful.
// Journals written before the last seven existed (schema version 3) hold 15 entries and read
// back with those zero. Non-finite numbers are the strings "NaN", "+Inf",
// "-Inf": JSON has no literal for them and they are legitimate metric values.
const (
	tokenFieldsV1 = 15
	tokenFields   = 22
)

// MarshalJSON writes the positional array.
func (t TokenRecord) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(t.Token), 10)
	var err error
	for _, s := range []string{t.Text, string(t.Strategy)} {
		if b, err = appendJSONString(append(b, ','), s); err != nil {
			return nil, err
		}
	}
	for _, f := range []float64{t.Entropy, t.Varentropy, t.AttnEntropy, t.AttnVarentropy, t.Agreement, t.InteractionStrength, t.Temperature} {
		b = appendJSONFloat(append(b, ','), f)
	}
	b = strconv.AppendInt(append(b, ','), int64(t.TopK), 10)
	for _, f := range []float64{t.TopP, t.MinP, t.LogProb, t.VocabTailMass, t.SampleLogProb} {
		b = appendJSONFloat(append(b, ','), f)
	}
	b = strconv.AppendInt(append(b, ','), int64(t.Survivors), 10)
	b = strconv.AppendInt(append(b, ','), int64(t.NSamples), 10)
	for _, f := range []float64{t.Confidence, t.Decision.TailMass} {
		b = appendJSONFloat(append(b, ','), f)
	}
	b = strconv.AppendBool(append(b, ','), t.TailCut)
	b = strconv.AppendBool(append(b, ','), t.Faithful)
	return append(b, ']'), nil
}

// UnmarshalJSON reads the array MarshalJSON writes, or a 15-entry one from an
// older journal.
func (t *TokenRecord) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("trace step: %w", err)
	}
	if len(raw) != tokenFields && len(raw) != tokenFieldsV1 {
		return fmt.Errorf("trace step: %d fields, want %d (or %d from an older journal)", len(raw), tokenFields, tokenFieldsV1)
	}
	*t = TokenRecord{}
	var token, topK int64
	var strategy string
	ints := []struct {
		i   int
		dst *int64
	}{{0, &token}, {10, &topK}}
	for _, x := range ints {
		if err := json.Unmarshal(raw[x.i], x.dst); err != nil {
			return fmt.Errorf("trace step field %d: %w", x.i, err)
		}
	}
	if err := json.Unmarshal(raw[1], &t.Text); err != nil {
		return fmt.Errorf("trace step text: %w", err)
	}
	if err := json.Unmarshal(raw[2], &strategy); err != nil {
		return fmt.Errorf("trace step strategy: %w", err)
	}
	t.Token, t.TopK, t.Strategy = int32(token), int(topK), sampler.Strategy(strategy)
	floats := map[int]*float64{3: &t.Entropy, 4: &t.Varentropy, 5: &t.AttnEntropy, 6: &t.AttnVarentropy, 7: &t.Agreement,
		8: &t.InteractionStrength, 9: &t.Temperature, 11: &t.TopP, 12: &t.MinP, 13: &t.LogProb, 14: &t.VocabTailMass}
	if len(raw) == tokenFields {
		floats[15], floats[18], floats[19] = &t.SampleLogProb, &t.Confidence, &t.Decision.TailMass
		var survivors, nSamples int64
		for i, dst := range map[int]*int64{16: &survivors, 17: &nSamples} {
			if err := json.Unmarshal(raw[i], dst); err != nil {
				return fmt.Errorf("trace step field %d: %w", i, err)
			}
		}
		t.Survivors, t.NSamples = int(survivors), int(nSamples)
		for i, dst := range map[int]*bool{20: &t.TailCut, 21: &t.Faithful} {
			if err := json.Unmarshal(raw[i], dst); err != nil {
				return fmt.Errorf("trace step field %d: %w", i, err)
			}
		}
	}
	for i, dst := range floats {
		if err := parseJSONFloat(raw[i], dst); err != nil {
			return fmt.Errorf("trace step field %d: %w", i, err)
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

// appendJSONFloat writes the shortest text that reads back to the same
// float64, so a resumed run's numbers are bit-identical to an uninterrupted one.
func appendJSONFloat(b []byte, f float64) []byte {
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

func parseJSONFloat(raw json.RawMessage, dst *float64) error {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("number %q: %w", s, err)
		}
		*dst = f
		return nil
	}
	return json.Unmarshal(raw, dst)
}
