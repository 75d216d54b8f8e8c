// Package cpu is the pure-Go reference and fast CPU backend of engine.Engine: a
// batched Llama / Qwen2 decoder over a slotted float32 KV cache, with weights kept
// in their stored dtype (F32, F16, BF16) and widened inside the kernels.
//
// Every value a sequence produces depends only on that sequence's own data: the
// reduction order of each dot product, norm and softmax is fixed per value (see
// dot.go), so results are bit-identical alone or batched, in one prefill chunk or
// many, on any thread count.
package cpu

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/entropix-eval/entropix-eval/engine"
)

// Engine implements engine.Engine on the CPU. Its methods are safe to call from
// several goroutines, though Step calls are serialised.
type Engine struct {
	mu      sync.Mutex
	cfg     engine.Config
	opts    engine.Options
	threads int
	pool    *pool // threads−1 workers kept running between parallel sections
	w       *weights
	rope    *ropeTable
	cache   *kvCache
	prefix  *prefixStore // nil when prefix sharing is off
	share   *kvShare     // where attention may read a slot's shared prefix; nil when prefix is nil
	bf16    *bf16State   // repacked weights in BF16 precision, else nil
	huge    *hugeWeights // the streamed matrices' copy or the BF16 panels in huge pages, else nil
	// unhuge releases huge if the engine is dropped without Close.
	unhuge  runtime.Cleanup
	buf     buffers
	scratch []workerScratch // one per thread
	// attnScores[i] holds input i's metric-layer scores, heads × kvLen, row-major.
	attnScores [][]float32
	rows       []tokenRow
	seen       []bool // slots already in the current step
	closed     bool

	prompt promptState // inputs asking for prompt-averaged metrics (promptstats.go)
	score  scoreState  // inputs asking for token log-probabilities (score.go)
}

var _ engine.Engine = (*Engine)(nil)

// workerScratch is one thread's private space, so tasks never share buffers.
type workerScratch struct {
	tile   []float32 // a widened weight tile
	scores []float32 // one attention row per query head of a kv head's group
	ranges []kvRange // where attention reads a row's keys and values (kvShare)
}

// buffers are the activations of one step, grown on demand and then reused.
type buffers struct {
	x, xn, q, k, v, att, gate, up []float32 // per token row
	last, logits                  []float32 // per input
	xEvenOdd                      []float32 // one token's activations in matvec's lane order
	tileEnds                      []int     // matvecs: each job's end in the section's row tiles
}

// New builds an engine over m, which must stay open while the engine is used (the
// engine reads its tensors in place; the caller closes the model).
func New(m *engine.Model, opts engine.Options) (*Engine, error) {
	if m == nil {
		return nil, errors.New("cpu engine: nil model")
	}
	c := m.Config
	if c.HiddenSize <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.HeadDim <= 0 || c.VocabSize <= 0 || c.Intermediate <= 0 {
		return nil, fmt.Errorf("cpu engine: model %s: incomplete config %+v", m.Dir, c)
	}
	if c.Heads%c.KVHeads != 0 {
		return nil, fmt.Errorf("cpu engine: model %s: %d heads not a multiple of %d kv heads", m.Dir, c.Heads, c.KVHeads)
	}
	opts, err := resolveOptions(&c, opts)
	if err != nil {
		return nil, fmt.Errorf("cpu engine: model %s: %w", m.Dir, err)
	}
	tile := weightTile(&c)
	prefixBudget := opts.PrefixCacheBytes
	free := int64(0) // after the plan; unknown counts as none
	if avail, ok := availableMemory(); ok {
		if err := checkBudget(&c, opts, tile, avail); err != nil {
			return nil, fmt.Errorf("cpu engine: model %s: %w", m.Dir, err)
		}
		planned := planMemory(&c, opts, tile).total()
		free = avail - planned
		prefixBudget = engine.CapPrefixCache(prefixBudget, avail, planned)
	}
	w, err := loadWeights(m)
	if err != nil {
		return nil, fmt.Errorf("cpu engine: %w", err)
	}
	rope, err := newRopeTable(&c, opts.MaxSeqLen)
	if err != nil {
		return nil, fmt.Errorf("cpu engine: model %s: %w", m.Dir, err)
	}
	e := &Engine{
		cfg: c, opts: opts, threads: opts.Threads, w: w, rope: rope,
		cache: newKVCache(c.Layers, opts.Slots, opts.MaxSeqLen, c.KVHeads, c.HeadDim),
		seen:  make([]bool, opts.Slots),
	}
	e.prefix = newPrefixStore(e.cache, opts.Slots, prefixBudget)
	if e.prefix != nil {
		e.share = newKVShare(opts.Slots)
	}
	if opts.MatmulPrecision == engine.MatmulBF16 {
		if !useBF16Asm && !useBF16FMA {
			slog.Warn("cpu engine: BF16 matmul precision without AVX512_BF16, AVX2 + FMA or arm64 NEON runs the Go emulation, several times slower than fp32 precision",
				"model", m.Dir)
		}
		if e.huge, err = hugePanels(w); err != nil {
			return nil, fmt.Errorf("cpu engine: model %s: %w", m.Dir, err)
		}
		e.bf16 = newBF16State(w, e.huge)
	} else if e.huge, err = moveToHugePages(w, free); err != nil {
		return nil, fmt.Errorf("cpu engine: model %s: %w", m.Dir, err)
	}
	if e.huge != nil {
		e.unhuge = runtime.AddCleanup(e, (*hugeWeights).release, e.huge)
	}
	e.pool = newPool(opts.Threads)
	// An engine dropped without Close still stops its workers (they hold the
	// pool, not the engine).
	runtime.AddCleanup(e, (*pool).close, e.pool)
	for range opts.Threads {
		e.scratch = append(e.scratch, workerScratch{
			tile:   make([]float32, tile),
			scores: make([]float32, c.Heads/c.KVHeads*opts.MaxSeqLen),
		})
	}
	return e, nil
}

func resolveOptions(c *engine.Config, o engine.Options) (engine.Options, error) {
	o, err := o.Resolve(c)
	if err != nil {
		return o, err
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	return o, nil
}

func (e *Engine) Config() *engine.Config  { return &e.cfg }
func (e *Engine) Options() engine.Options { return e.opts }

// Len returns the tokens in a slot's cache, or 0 for a slot out of range.
func (e *Engine) Len(slot int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if slot < 0 || slot >= len(e.cache.lens) {
		return 0
	}
	return e.cache.lens[slot]
}

// Free empties a slot; its next Step starts a new sequence at position 0. Old keys
// need no clearing: attention never reads past a slot's length.
func (e *Engine) Free(slot int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if slot >= 0 && slot < len(e.cache.lens) {
		e.cache.lens[slot] = 0
		e.prompt.drop(slot)
		if e.prefix != nil {
			e.prefix.Release(slot)
			e.share.free(slot)
		}
	}
}

// Close drops the engine's buffers and cache and stops its worker goroutines. The
// model stays open (its owner closes it).
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.pool.close()
	if e.huge != nil {
		e.unhuge.Stop()
		e.huge.release()
	}
	e.w, e.huge, e.cache, e.buf, e.scratch, e.attnScores, e.prefix, e.share, e.bf16 = nil, nil, &kvCache{}, buffers{}, nil, nil, nil, nil, nil
	return nil
}
