package sampler

import (
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Baseline is greedy or a truncated draw: temperature, top-k, top-p and min-p in a
// fixed order. The named baselines (temperature, top_k, top_p, min_p) are Baselines
// with the other filters off; "combined" exposes all four.
type Baseline struct {
	name   string
	params Params
	order  Order
	tr     truncator
}

// NewBaseline returns a baseline sampler; name is only a label for traces and
// manifests. Parameters are validated as in a Config.
func NewBaseline(name string, p Params, order Order) (*Baseline, error) {
	if err := validateParams(p); err != nil {
		return nil, fmt.Errorf("sampler %s: %w", name, err)
	}
	return &Baseline{name: name, params: p, order: order}, nil
}

func (b *Baseline) Name() string { return b.name }

// Params returns the configured parameters.
func (b *Baseline) Params() Params { return b.params }

// Order returns the filter order.
func (b *Baseline) Order() Order { return b.order }

func (b *Baseline) Describe() map[string]any {
	return map[string]any{
		"name":        b.name,
		"temperature": b.params.Temperature,
		"top_k":       b.params.TopK,
		"top_p":       b.params.TopP,
		"min_p":       b.params.MinP,
		"order":       b.order.String(),
		"greedy":      b.greedy(),
	}
}

// Deterministic reports whether the sampler's choices depend on neither its RNG
// nor anything but the distribution (greedy): every seed decodes the same.
func (b *Baseline) Deterministic() bool { return b.greedy() }

func (b *Baseline) greedy() bool {
	t := b.params.Temperature
	return t <= 0 || (b.order == OrderVLLMV1 && t < vllmGreedyBelow)
}

func (b *Baseline) Clone() Sampler {
	return &Baseline{name: b.name, params: b.params, order: b.order}
}

func (b *Baseline) Sample(d *metrics.Dist, _ *metrics.AttnStats, _ []int32, r *RNG) (Decision, error) {
	if err := checkDist(d); err != nil {
		return Decision{}, err
	}
	c := b.tr.truncate(d, b.params, b.order)
	dec := Decision{Strategy: StrategySample}
	if c.greedy {
		dec.Strategy = StrategyGreedy
	} else {
		dec.Temperature, dec.TopK, dec.TopP, dec.MinP = b.params.Temperature, b.params.TopK, b.params.TopP, b.params.MinP
	}
	b.tr.drawFrom(d, c, r, &dec)
	return dec, nil
}

// validateParams checks the ranges every truncated draw needs.
func validateParams(p Params) error {
	switch {
	case !(p.Temperature >= 0) || math.IsInf(p.Temperature, 1):
		return fmt.Errorf("field temperature: %v is not a finite number ≥ 0", p.Temperature)
	case p.TopK < 0:
		return fmt.Errorf("field top_k: %d is negative (0 turns top-k off)", p.TopK)
	case !(p.TopP > 0 && p.TopP <= 1):
		return fmt.Errorf("field top_p: %v is outside (0, 1] (1 turns top-p off)", p.TopP)
	case !(p.MinP >= 0 && p.MinP <= 1):
		return fmt.Errorf("field min_p: %v is outside [0, 1] (0 turns min-p off)", p.MinP)
	}
	return nil
}
