package cuda

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// decisionRun is one Entropix variant decoding one prompt on two engines.
type decisionRun struct {
	variant string
	steps   int
	// strategy: steps where the two samplers took different branches; token: steps where
	// a deterministic branch (argmax, clarifying token) chose different tokens; drawn:
	// steps where a sampling branch drew different tokens (a draw over a flat
	// distribution moves with the last bits of the logits); first names the first of
	// the strategy or token ones.
	strategy, token, drawn int
	first                  string
}

func (r decisionRun) String() string {
	s := fmt.Sprintf("%s: %d steps, branches differ at %d, deterministic tokens at %d, drawn tokens at %d",
		r.variant, r.steps, r.strategy, r.token, r.drawn)
	if r.first != "" {
		s += "; first: " + r.first
	}
	return s
}

// deterministic reports the branches that pick their token without a draw.
func deterministic(s sampler.Strategy) bool {
	return s == sampler.StrategyArgmax || s == sampler.StrategyInsertClarifying || s == sampler.StrategyFirstTokenArgmax
}

// entropixDecisions decodes prompt for steps tokens with every Entropix variant on two
// engines made by gpu and cpu for the variant's attention view, and compares the
// samplers' decisions step by step. Both engines are fed the CPU side's tokens, so a
// drawn token that differs does not send the two down different texts, and both
// samplers draw from the same seed. Variants run as configured by default (not
// faithful): the faithful SmolLM first token reads prompt means, which the cuda
// backend refuses.
func entropixDecisions(t *testing.T, m *engine.Model, prompt []int32, steps int,
	gpu, cpu func(engine.Options) engine.Engine) []decisionRun {
	t.Helper()
	var runs []decisionRun
	for _, variant := range sampler.EntropixVariants {
		spec, err := sampler.ParseConfig(map[string]any{"name": "entropix", "variant": variant,
			"clarifying_token_id": m.Config.VocabSize - 1})
		require.NoError(t, err, variant)
		view, err := spec.Entropix.AttnView()
		require.NoError(t, err, variant)
		o := engine.Options{Slots: 1, MaxSeqLen: len(prompt) + steps + 1, MetricLayer: -1,
			AttnMode: view.Mode, PadLen: view.PadLen}
		run := decisionRun{variant: variant, steps: steps}
		engines := [2]engine.Engine{gpu(o), cpu(o)}
		var samplers [2]sampler.Sampler
		var rngs [2]*sampler.RNG
		var outs [2][]engine.Output
		var history []int32
		for i, e := range engines {
			samplers[i], err = spec.New(nil)
			require.NoError(t, err, variant)
			rngs[i] = sampler.NewRNG(1, "decisions", 0)
			outs[i] = step(t, e, engine.Input{Slot: 0, Tokens: prompt})
		}
		for s := 0; s < steps; s++ {
			var d [2]sampler.Decision
			for i := range engines {
				d[i], err = samplers[i].Sample(&outs[i][0].Dist, &outs[i][0].Attn, history, rngs[i])
				require.NoError(t, err, "%s step %d", variant, s)
			}
			g, c := d[0], d[1]
			differ := ""
			switch {
			case g.Strategy != c.Strategy:
				run.strategy++
				differ = "branch"
			case g.Token != c.Token && deterministic(c.Strategy):
				run.token++
				differ = "token"
			case g.Token != c.Token:
				run.drawn++
			}
			if differ != "" && run.first == "" {
				run.first = fmt.Sprintf("step %d: %s %d against the CPU's %s %d", s, g.Strategy, g.Token, c.Strategy, c.Token)
			}
			history = append(history, c.Token)
			if s+1 < steps {
				for i, e := range engines {
					outs[i] = step(t, e, engine.Input{Slot: 0, Tokens: []int32{c.Token}})
				}
			}
		}
		runs = append(runs, run)
	}
	return runs
}

// The GPU pipeline on the emulated device makes the CPU backend's Entropix decisions.
func TestEmulatedEntropixDecisionsMatchCPU(t *testing.T) {
	for _, sm := range sharedModels {
		m, cases := loadShared(t, sm)
		bf := bf16Model(t, m)
		runs := entropixDecisions(t, m, cases[0].PromptIDs, emulatedSteps(&m.Config, 16),
			func(o engine.Options) engine.Engine { return newEmulated(t, m, o) },
			func(o engine.Options) engine.Engine { return newCPU(t, bf, o) })
		for _, r := range runs {
			t.Logf("%s %s", sm.Name, r)
			require.Zero(t, r.strategy+r.token, "%s %s", sm.Name, r)
		}
	}
}
