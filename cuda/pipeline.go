package cuda

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// pipeline is the whole engine except the device itself: buffers, weight upload, the
// launch sequence of a step and the assembly of its outputs. The cuda build runs it
// on a GPU; the tests run it on a Go emulator of the kernels, so the host logic is
// checked against the CPU backend on machines without a GPU.
type pipeline struct {
	cfg    engine.Config
	opts   engine.Options
	layout weightLayout
	plan   memoryPlan
	gpuK   int // top-K reduced on the device; 0: the host ranks copied logits
	table  []float32

	be                    backend
	weights, kc, vc, rope dptr
	act                   activations
	out                   outputBuffers

	lens    []int
	seen    []bool
	batches []subBatch
	host    hostScratch
	args    kernelArgs
	prefix  *prefixStore // nil when prefix sharing is off
	// skipStats leaves out the logits/attention statistics and top-K (outputs are
	// not filled); only the benchmarks set it, to measure what the statistics cost.
	skipStats bool
}

// activations are the per-token-row buffers, sized for plan.TokenCap rows.
type activations struct {
	ids, pos, slot dptr // int32
	x              dptr // f32 [rows][hidden]: the residual stream
	norm           dptr // bf16 [rows][hidden]
	qkv            dptr // f32 [rows][(heads + 2 kvHeads) headDim]
	q              dptr // f32 [rows][heads][headDim], rotated
	att            dptr // bf16 [rows][heads headDim]
	gateUp         dptr // f32 [rows][2 intermediate]
	mlp            dptr // bf16 [rows][intermediate]
	// attnPart holds a split attention_cached's partial results, f32
	// [rows][heads][splits][2 + headDim] (max, sum, unnormalised output).
	attnPart dptr
}

// outputBuffers are the per-output buffers, sized for Slots outputs.
type outputBuffers struct {
	rows       dptr // int32 token row of each output
	last       dptr // bf16 [outs][hidden]
	logits     dptr // f32 [outs][vocab]
	logitStats dptr // f64 [outs][3]
	logitParts dptr // f64 [outs][logitStatsParts][4]: logit_stats_part's per-chunk moments
	attnStats  dptr // f64 [outs][heads + 2], grouped by attention view
	attnHeads  dptr // f64 [outs][heads][3]: attn_head_stats' max, Z and |score| sum
	attnParts  dptr // f64 [outs][attnAgreementChunks]: attn_agreement's partial sums
	viewRows   dptr // int32 token row of each output, grouped by attention view
	topVals    [2]dptr
	topIDs     [2]dptr
}

// hostScratch holds what comes back each step, reused across steps.
type hostScratch struct {
	logitStats []float64
	attnStats  []float64
	topVals    []float32
	topIDs     []int32
	logits     []float32 // when the host ranks candidates, and scored rows
	scoreExps  []float64 // metrics.LogitStatsScratch's scratch for scored rows
	// views[r] is output r's attention view; statsAt[r] its row in attnStats,
	// where the outputs sharing a view sit together (one launch of the statistics kernels each):
	// row j holds token row viewRows[j], computed in rowViews[j].
	views    []metrics.AttnView
	statsAt  []int
	viewRows []int32
	rowViews []metrics.AttnView
}

// newPipeline checks the model and options and plans everything, touching no device.
func newPipeline(m *engine.Model, opts engine.Options) (*pipeline, error) {
	if m == nil {
		return nil, fmt.Errorf("nil model")
	}
	c := m.Config
	if err := checkConfig(&c); err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Dir, err)
	}
	opts, err := resolveOptions(&c, opts)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Dir, err)
	}
	if opts.Slots > 65535 {
		return nil, fmt.Errorf("%d slots; at most 65535 (a grid dimension)", opts.Slots)
	}
	table, err := ropeTable(&c, opts.MaxSeqLen)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Dir, err)
	}
	return &pipeline{
		cfg: c, opts: opts, layout: planWeights(&c), plan: planMemory(&c, opts), table: table,
		gpuK: gpuTopK(opts.TopK, c.VocabSize), lens: make([]int, opts.Slots), seen: make([]bool, opts.Slots),
	}, nil
}

// setup allocates everything on be and uploads the weights and the RoPE table.
func (p *pipeline) setup(m *engine.Model, be backend) error {
	p.be = be
	var err error
	if p.weights, err = be.alloc(p.layout.Total, "weights"); err != nil {
		return err
	}
	for _, pl := range p.layout.all() {
		base := p.weights + dptr(pl.Offset)
		err := packPlacement(m, pl, func(off int64, b []byte) error { return be.upload(base+dptr(off), b) })
		if err != nil {
			return fmt.Errorf("uploading weights: %w", err)
		}
		// BF16 sources are uploaded straight from the mapped file; wait before the
		// next placement so no copy outlives a caller's Model.Close.
		if err := be.sync(); err != nil {
			return fmt.Errorf("uploading weights: %w", err)
		}
	}
	half := p.plan.KVCache / 2
	if p.kc, err = be.alloc(half, "K cache"); err != nil {
		return err
	}
	if p.vc, err = be.alloc(half, "V cache"); err != nil {
		return err
	}
	if p.rope, err = be.alloc(int64(len(p.table))*4, "RoPE table"); err != nil {
		return err
	}
	if err := be.upload(p.rope, f32Bytes(p.table)); err != nil {
		return fmt.Errorf("uploading RoPE table: %w", err)
	}
	if err := p.allocBuffers(); err != nil {
		return err
	}
	if err := p.setupPrefix(); err != nil {
		return err
	}
	return be.sync()
}

// allocBuffers carves the activation and output buffers out of two allocations.
func (p *pipeline) allocBuffers() error {
	c, rows, outs := &p.cfg, int64(p.plan.TokenCap), int64(p.opts.Slots)
	h, q, kv, in := int64(c.HiddenSize), int64(c.Heads*c.HeadDim), int64(c.KVHeads*c.HeadDim), int64(c.Intermediate)
	actSizes := []int64{4 * rows, 4 * rows, 4 * rows, 4 * rows * h, 2 * rows * h, 4 * rows * (q + 2*kv), 4 * rows * q,
		2 * rows * q, 4 * rows * 2 * in, 2 * rows * in, attnPartBytes(c.HeadDim)}
	act, err := p.carve(actSizes, "activations")
	if err != nil {
		return err
	}
	p.act = activations{ids: act[0], pos: act[1], slot: act[2], x: act[3], norm: act[4], qkv: act[5], q: act[6],
		att: act[7], gateUp: act[8], mlp: act[9], attnPart: act[10]}
	scratch := int64(0)
	if p.gpuK > 0 {
		scratch = outs * int64(topkScratchEntries(c.VocabSize, p.gpuK)) * 4
	}
	outSizes := []int64{4 * outs, 2 * outs * h, 4 * outs * int64(c.VocabSize), 8 * 3 * outs, 8 * outs * int64(c.Heads+2),
		scratch, scratch, scratch, scratch, 4 * outs, 8 * 3 * outs * int64(c.Heads), 8 * outs * attnAgreementChunks,
		8 * 4 * outs * int64(logitStatsParts(c.VocabSize))}
	out, err := p.carve(outSizes, "output buffers")
	if err != nil {
		return err
	}
	p.out = outputBuffers{rows: out[0], last: out[1], logits: out[2], logitStats: out[3], attnStats: out[4],
		topVals: [2]dptr{out[5], out[6]}, topIDs: [2]dptr{out[7], out[8]}, viewRows: out[9], attnHeads: out[10],
		attnParts: out[11], logitParts: out[12]}
	return nil
}

// carve allocates once and splits it into aligned pieces of the given sizes.
func (p *pipeline) carve(sizes []int64, what string) ([]dptr, error) {
	var total int64
	for _, s := range sizes {
		total += alignUp(s, deviceAlign)
	}
	base, err := p.be.alloc(total, what)
	if err != nil {
		return nil, err
	}
	ptrs := make([]dptr, len(sizes))
	off := int64(0)
	for i, s := range sizes {
		ptrs[i] = base + dptr(off)
		off += alignUp(s, deviceAlign)
	}
	return ptrs, nil
}

// attnScale is 1/sqrt(head_dim) as a float32 kernel argument.
func (p *pipeline) attnScale() float32 { return float32(1 / math.Sqrt(float64(p.cfg.HeadDim))) }

func (p *pipeline) wptr(pl placement) dptr { return p.weights + dptr(pl.Offset) }

func i32Bytes(s []int32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}

func f32Bytes(s []float32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}

func f64Bytes(s []float64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
