package eval

import (
	"encoding/json"
	"fmt"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// NewSamplerResolver resolves sweep sampler specs with package sampler. lookup finds
// the Entropix clarifying token in the model's tokenizer and text names a token id
// (either nil when there is no tokenizer).
func NewSamplerResolver(lookup sampler.TokenLookup, text sampler.TokenText) SamplerResolver {
	return func(spec sampler.Spec) (SamplerFactory, error) {
		// A spec or a token the tokenizer lacks: the sweep is at fault.
		s, err := spec.Config()
		if err != nil {
			return nil, usage.Wrap(err)
		}
		proto, err := s.NewResolved(lookup, text)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		// The built sampler's description, not the spec's: it carries what was
		// resolved at build time, such as Entropix's clarifying token id and text.
		desc, err := json.Marshal(proto.Describe())
		if err != nil {
			return nil, fmt.Errorf("sampler %s: describe: %w", spec.Name, err)
		}
		f := &samplerFactory{proto: proto, desc: string(desc)}
		if v, ok := proto.(AttnViewer); ok {
			return &viewingFactory{f, v.AttnView()}, nil
		}
		return f, nil
	}
}

// viewingFactory is a sampler that reads attention statistics in its own view.
type viewingFactory struct {
	*samplerFactory
	view engine.AttnView
}

func (f *viewingFactory) AttnView() engine.AttnView { return f.view }

type samplerFactory struct {
	proto sampler.Sampler
	desc  string
}

func (f *samplerFactory) Describe() string { return f.desc }

// CandidateNeed is the sampler's sampler.CandidateNeeder bound, or nil.
func (f *samplerFactory) CandidateNeed() *engine.Need {
	if n, ok := f.proto.(sampler.CandidateNeeder); ok {
		return n.CandidateNeed()
	}
	return nil
}

// Deterministic reports whether the sampler decodes the same whatever the seed.
func (f *samplerFactory) Deterministic() bool {
	d, ok := f.proto.(DeterministicSampler)
	return ok && d.Deterministic()
}

func (f *samplerFactory) NewSequence(seed uint64, problemID string, repeat int) TokenChooser {
	return &samplerChooser{s: f.proto.Clone(), rng: sampler.NewRNG(seed, problemID, repeat)}
}

// samplerChooser is one sequence's sampler clone and RNG stream.
type samplerChooser struct {
	s   sampler.Sampler
	rng *sampler.RNG
}

func (c *samplerChooser) Choose(d *engine.Dist, a *engine.AttnStats, history []int32, promptLen int) (sampler.Decision, error) {
	return c.s.Sample(d, a, history[promptLen:], c.rng)
}

// promptSampler is a sampler whose first token may read the prompt-averaged
// metrics (sampler.Entropix).
type promptSampler interface {
	PromptMetrics() bool
	SampleFirst(d *engine.Dist, a *engine.AttnStats, p *engine.PromptStats, r *sampler.RNG) (sampler.Decision, error)
}

// PromptMetrics reports whether the sampler's first token reads the prompt-averaged metrics.
func (f *samplerFactory) PromptMetrics() bool {
	p, ok := f.proto.(promptSampler)
	return ok && p.PromptMetrics()
}

func (c *samplerChooser) ChooseFirst(d *engine.Dist, a *engine.AttnStats, p *engine.PromptStats, history []int32, promptLen int) (sampler.Decision, error) {
	ps, ok := c.s.(promptSampler)
	if !ok || len(history) != promptLen {
		return c.Choose(d, a, history, promptLen)
	}
	return ps.SampleFirst(d, a, p, c.rng)
}
