package eval

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// viewSampler is a fake sampler that reads attention statistics in its own view.
type viewSampler struct {
	fakeSampler
	view engine.AttnView
}

func (s viewSampler) AttnView() engine.AttnView { return s.view }

// Each sequence's engine inputs carry its sampler's view (nil for samplers without
// one), so one step serves a sweep whose samplers need different statistics.
func TestEngineInputsCarryTheSamplersView(t *testing.T) {
	padded := engine.AttnView{Mode: metrics.Padded, PadLen: 4096}
	var mu sync.Mutex
	seen := map[string]int{}
	run := fakeRun{engine: func(_ int, e *fakeEngine) {
		e.onInputs = func(in []engine.Input) {
			mu.Lock()
			defer mu.Unlock()
			for _, x := range in {
				v := "default"
				if x.Attn != nil {
					v = x.Attn.String()
				}
				seen[v]++
			}
		}
	}}
	r := run.runner(t.TempDir())
	r.Samplers[1] = viewSampler{fakeSampler{"sample"}, padded}
	_, err := r.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, seen, 2)
	require.Positive(t, seen["default"])
	require.Positive(t, seen["padded:4096"])

	r = run.runner(t.TempDir())
	r.Samplers[1] = viewSampler{fakeSampler{"sample"}, engine.AttnView{Mode: metrics.Padded, PadLen: 128}}
	_, err = r.Run(context.Background())
	require.ErrorContains(t, err, "samplers[1] (sample(temperature=1)): attention view padded:128: 256 keys exceed the padded cache")
}
