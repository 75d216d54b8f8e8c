package cuda

import (
	"context"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

// launchCounter is a backend that only counts kernel launches and GEMMs: enough to
// run the pipeline's launch sequence for a model too big for the emulator.
type launchCounter struct {
	next           dptr
	kernels, gemms int
	byName         map[string]int
}

func (c *launchCounter) alloc(bytes int64, _ string) (dptr, error) {
	p := c.next + deviceAlign
	c.next = p + dptr(alignUp(bytes, deviceAlign))
	return p, nil
}
func (c *launchCounter) upload(dptr, []byte) error           { return nil }
func (c *launchCounter) download([]byte, dptr) error         { return nil }
func (c *launchCounter) copyDevice(_, _ dptr, _ int64) error { return nil }
func (c *launchCounter) sync() error                         { return nil }
func (c *launchCounter) launch(name string, _, _, _, _ int, _ *kernelArgs) error {
	c.kernels++
	c.byName[name]++
	return nil
}
func (c *launchCounter) gemm(_, _, _ dptr, _, _, _ int, _ float32) error { c.gemms++; return nil }

// launches is the kernel launches so far if every GEMM launches perGemm kernels.
func (c *launchCounter) launches(perGemm int) int { return c.kernels + perGemm*c.gemms }

// window.sh profile has ncu skip a fixed number of kernel launches of
// BenchmarkDecode (b.N = 1, then 40: each a prefill of every slot and its decode steps)
// and time the next ones. On the Llama-3.2-1B preset, with the pipeline's own launch
// sequence and one or two kernels per cuBLAS GEMM, the timed launches must be decode
// steps of the second run only: no prefill, and within its 40 steps.
func TestProfileWindowsFallOnDecodeSteps(t *testing.T) {
	script, err := os.ReadFile("bench/window.sh")
	require.NoError(t, err)
	b1 := regexp.MustCompile(`skip=(\d+) count=(\d+)\n\s*\(\(\$1 > 1\)\) && skip=(\d+) count=(\d+)`).FindSubmatch(script)
	require.NotNil(t, b1, "window.sh's profile_decode launch windows")
	num := func(b []byte) int { n, err := strconv.Atoi(string(b)); require.NoError(t, err); return n }
	windows := map[int][2]int{1: {num(b1[1]), num(b1[2])}, 64: {num(b1[3]), num(b1[4])}}
	spec, err := engine.TestModelPreset("llama-3.2-1b")
	require.NoError(t, err)
	m := &engine.Model{Dir: "llama-3.2-1b preset", Config: spec.Config}
	for batch, w := range windows {
		c := &launchCounter{byName: map[string]int{}}
		// Kernels and GEMMs of the two prefills, and of one decode step.
		var preK, preG, stepK, stepG int
		for _, steps := range []int{1, 40} {
			// benchEngine's options, without the prefix cache (its copies are not kernels).
			p, err := newPipeline(m, engine.Options{Slots: batch, MaxSeqLen: 640, TopK: 27, MetricLayer: -1, PrefixCacheBytes: -1})
			require.NoError(t, err)
			p.be = c
			require.NoError(t, p.allocBuffers())
			rng := rand.New(rand.NewPCG(1, 2))
			var in []engine.Input
			for s := 0; s < batch; s++ {
				in = append(in, engine.Input{Slot: s, Tokens: randomPrompt(rng, 512, m.Config.VocabSize)})
			}
			var out []engine.Output
			k0, g0 := c.kernels, c.gemms
			require.NoError(t, p.step(context.Background(), in, &out))
			preK, preG = preK+c.kernels-k0, preG+c.gemms-g0
			k0, g0 = c.kernels, c.gemms
			for range steps {
				for s := range in {
					in[s] = engine.Input{Slot: s, Tokens: []int32{int32(rng.IntN(m.Config.VocabSize))}}
				}
				require.NoError(t, p.step(context.Background(), in, &out))
			}
			stepK, stepG = (c.kernels-k0)/steps, (c.gemms-g0)/steps
		}
		t.Logf("batch %d: prefills %d kernels + %d GEMMs; a decode step %d kernels + %d GEMMs; window %v; launches by kernel %v",
			batch, preK, preG, stepK, stepG, w, c.byName)
		// cuBLAS may launch one kernel per GEMM or two (split-K and its reduction), and
		// not necessarily as many for the prefill's GEMMs as for a decode step's.
		for perPre := 1; perPre <= 2; perPre++ {
			for perStep := 1; perStep <= 2; perStep++ {
				step := stepK + perStep*stepG
				first := preK + perPre*preG + step // both prefills and run 1's decode step
				last := first + 40*step
				require.GreaterOrEqual(t, w[0], first, "batch %d, GEMMs of %d and %d kernels: the window starts before run 2's decode steps", batch, perPre, perStep)
				require.LessOrEqual(t, w[0]+w[1], last, "batch %d, GEMMs of %d and %d kernels: the window runs past run 2's decode steps", batch, perPre, perStep)
			}
		}
	}
}
