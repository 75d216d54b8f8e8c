package engine

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ropeScaling reads rope_scaling: null/absent means none, "llama3" is resolved, and
// every other type is an error naming it, because silently running unscaled RoPE on
// a model trained with scaling gives plausible but wrong logits.
func (p *configFields) ropeScaling() *RopeScaling {
	const field = "rope_scaling"
	v := p.get(field)
	if v == nil {
		return nil
	}
	var rs struct {
		RopeType *string  `json:"rope_type"`
		Type     *string  `json:"type"` // the key before transformers 4.43
		Factor   *float64 `json:"factor"`
		Low      *float64 `json:"low_freq_factor"`
		High     *float64 `json:"high_freq_factor"`
		Orig     *float64 `json:"original_max_position_embeddings"`
	}
	if err := json.Unmarshal(v, &rs); err != nil {
		p.fail(field, fmt.Errorf("want an object: %w", err))
		return nil
	}
	typ := ""
	switch {
	case rs.RopeType != nil:
		typ = *rs.RopeType
	case rs.Type != nil:
		typ = *rs.Type
	default:
		p.fail(field, errors.New("has neither rope_type nor type"))
		return nil
	}
	switch typ {
	case "default":
		return nil // transformers' name for plain RoPE
	case "llama3":
	default:
		p.fail(field, fmt.Errorf("rope type %q is not supported (only llama3)", typ))
		return nil
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"factor", rs.Factor}, {"low_freq_factor", rs.Low}, {"high_freq_factor", rs.High}, {"original_max_position_embeddings", rs.Orig}} {
		if f.v == nil || !(*f.v > 0) || *f.v > maxDim {
			p.fail(field, fmt.Errorf("llama3 needs a positive %s", f.name))
			return nil
		}
	}
	if *rs.Low >= *rs.High {
		// The smoothing band divides by high-low; transformers' validation flags it too.
		p.fail(field, fmt.Errorf("low_freq_factor %g must be below high_freq_factor %g", *rs.Low, *rs.High))
		return nil
	}
	if *rs.Orig != float64(int(*rs.Orig)) {
		p.fail(field, fmt.Errorf("original_max_position_embeddings %g is not an integer", *rs.Orig))
		return nil
	}
	return &RopeScaling{
		Type:                    "llama3",
		Factor:                  *rs.Factor,
		LowFreqFactor:           *rs.Low,
		HighFreqFactor:          *rs.High,
		OriginalMaxPositionEmbs: int(*rs.Orig),
	}
}
