package cuda

// Launch geometry of the kernels, kept in Go so it is unit-tested without a GPU. The
// constants mirror the .cu files (MAX_HB, MAX_DL, the top-K chunk).

const (
	// attnMaxWarps bounds attention_cached blocks at 512 threads: the kernel uses
	// ~121 registers per thread, and 1024 threads would exceed the 64K register file.
	attnMaxWarps = 16
	// topkBlock threads of topk_select hold topkPerThread entries each (its
	// TOPK_PER_THREAD): a chunk of topkChunk entries per block.
	topkBlock     = 256
	topkPerThread = 8
	topkChunk     = topkPerThread * topkBlock
	// maxGPUTopK is the largest K reduced on the device; larger K (or 0, the whole
	// vocabulary) copies the logits rows to the host for metrics.TopK. At most half a
	// chunk, so every stage at least halves the row.
	maxGPUTopK = topkChunk / 2
	// rowBlockMax is the block size of the row kernels (norm, embedding, statistics).
	rowBlockMax = 256
	// logitStatsBlock threads of logit_stats_part reduce logitStatsChunk entries of a
	// logits row: 126 blocks for a 128k vocabulary, about one per SM of an H100 at
	// batch 1.
	logitStatsBlock = 256
	logitStatsChunk = 1024
	// The fixed blocks of attn_head_stats, attn_agreement, qkv_rope_cache and the
	// grid-stride kernels.
	attnStatsBlock = 256
	// attnAgreementChunks is the most blocks attn_agreement gives one output: enough
	// to spread a batch-1 step's keys over the SMs, few enough that the partial sums
	// stay a small buffer.
	attnAgreementChunks = 16
	ropeBlock           = 128
	elementwiseBlock    = 256
	// gridStrideMaxBlocks caps 1-D grid-stride launches; more blocks than resident
	// threads only add scheduling work.
	gridStrideMaxBlocks = 8192
)

// kernelMaxBlock is the largest block the pipeline launches each kernel with. A
// kernel launched with more than 256 threads must say so in __launch_bounds__ (PTX
// .maxntid): without it the JIT may give a thread more registers than such a block can
// have, and the launch fails with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES.
var kernelMaxBlock = map[string]int{
	"embed_rows":            rowBlockMax,
	"rmsnorm_bf16":          rowBlockMax,
	"silu_mul":              elementwiseBlock,
	"add_bias":              elementwiseBlock,
	"qkv_rope_cache":        ropeBlock,
	"attention_cached":      attnMaxWarps * 32,
	"attention_combine":     attnCombineBlock,
	"attn_head_stats":       attnStatsBlock,
	"attn_agreement":        attnStatsBlock,
	"attn_agreement_finish": 32,
	"logit_stats_part":      logitStatsBlock,
	"logit_stats_finish":    32,
	"topk_select":           topkBlock,
}

// attnMinBlocks is the grid below which attention_cached gives each query head its
// own block and splits long rows over several blocks: about one wave of an H100's 132
// SMs. A variable so tests can force the grouped, unsplit layout on small inputs.
var attnMinBlocks = 128

// attnSplitKeys is the key span of one attention_cached block when rows are split
// (flash-decoding): 4 warps of one 32-key chunk each. A variable so tests can reach
// the split layout with short rows.
var attnSplitKeys = 128

const (
	// attnMaxSplits bounds the blocks one (row, head) is split over; rows longer than
	// attnMaxSplits × attnSplitKeys get longer spans.
	attnMaxSplits = 64
	// attnSplitPairs bounds rows × heads of a split launch, so the partial results
	// (attnPartBytes) stay a small fixed buffer. Above it the grid is large anyway.
	attnSplitPairs = 256
	// attnCombineBlock threads of attention_combine share a head's dims.
	attnCombineBlock = 64
)

// attnLaunch is attention_cached's launch for one step.
type attnLaunch struct {
	hb, warps, smem int
	// splits blocks take each (row, head group), span keys each; 1: one block takes a
	// whole row and writes the output, else each writes its partial result and
	// attention_combine merges them.
	splits, span int
}

// attnGeometry picks attention_cached's launch for rows query tokens: hb query heads
// per block (the largest divisor of the GQA group up to MAX_HB, so a block reads its
// kv head once for all of them — unless that leaves fewer than attnMinBlocks blocks, as
// in small-batch decode, where one head per block spreads the work over more SMs and
// the repeated KV reads hit L2, and rows longer than attnSplitKeys are split over
// blocks of attnSplitKeys keys), warps per block (one per 32 keys of the longest row or
// span, up to attnMaxWarps and the shared-memory limit) and the dynamic shared memory
// in bytes.
func attnGeometry(heads, kvHeads, headDim, maxKeys, rows int) attnLaunch {
	group := heads / kvHeads
	g := attnLaunch{hb: 1, splits: 1, span: maxKeys}
	for d := min(group, maxHeadsPerBlock); d >= 1; d-- {
		if group%d == 0 {
			g.hb = d
			break
		}
	}
	if rows*heads/g.hb < attnMinBlocks {
		g.hb = 1
		if maxKeys > attnSplitKeys && rows*heads <= attnSplitPairs {
			g.splits = min(attnMaxSplits, ceilDiv(maxKeys, attnSplitKeys))
			g.span = max(attnSplitKeys, alignUpInt(ceilDiv(maxKeys, g.splits), 32))
		}
	}
	g.warps = min(attnMaxWarps, max(1, ceilDiv(g.span, 32)))
	for g.warps > 1 && attnSharedBytes(g.hb, headDim, g.warps) > maxSharedBytes {
		g.warps--
	}
	g.smem = attnSharedBytes(g.hb, headDim, g.warps)
	return g
}

// attnPartBytes is the partial results of a split attention_cached launch: for each
// (row, head, split) its max, sum and unnormalised output (float32).
func attnPartBytes(headDim int) int64 {
	return 4 * int64(attnSplitPairs) * attnMaxSplits * int64(headDim+2)
}

// attnSharedBytes is attention_cached's dynamic shared memory: scaled queries,
// per-warp partial outputs and per-warp (max, sum) pairs, all float32.
func attnSharedBytes(hb, headDim, warps int) int {
	return 4 * (hb*headDim + warps*hb*headDim + warps*hb*2)
}

// attnHeadStatsSharedBytes is attn_head_stats' dynamic shared memory: the head's
// scaled query (float32).
func attnHeadStatsSharedBytes(headDim int) int { return 4 * headDim }

// attnAgreementSharedBytes is attn_agreement's dynamic shared memory: a tile of
// probabilities (heads × tile) and per-head max and partition function (float64),
// then every head's scaled query (float32).
func attnAgreementSharedBytes(heads, headDim, tile int) int {
	return 8*(heads*tile+2*heads) + 4*heads*headDim
}

// attnAgreementTile is the largest key tile (32, 16 or 8; at most a block's threads)
// whose attn_agreement shared memory fits, or 0 when none does.
func attnAgreementTile(heads, headDim int) int {
	for tile := 32; tile >= 8; tile /= 2 {
		if attnAgreementSharedBytes(heads, headDim, tile) <= maxSharedBytes {
			return tile
		}
	}
	return 0
}

// logitStatsParts is the number of logit_stats_part blocks per logits row.
func logitStatsParts(vocab int) int { return ceilDiv(vocab, logitStatsChunk) }

// topkSharedBytes is topk_select's dynamic shared memory for k: the chosen entries'
// values and ids, padded to a power of two for the bitonic sort.
func topkSharedBytes(k int) int {
	kp := 1
	for kp < k {
		kp <<= 1
	}
	return 8 * kp
}

// topkStage is one launch of topk_select: rows of N entries in Chunks chunks.
type topkStage struct{ N, Chunks int }

// topkStages plans the device top-K reduction of an n-entry row down to k entries:
// each stage keeps the best k of every topkChunk entries, until one chunk remains.
// k must be in 1..maxGPUTopK and at most n.
func topkStages(n, k int) []topkStage { return topkStagesChunk(n, k, topkChunk) }

// topkStagesChunk is topkStages for a given chunk size (tests use small chunks to
// get many stages from small inputs). k ≤ chunk/2 makes every stage at least halve
// the row, so the loop ends; callers guarantee it (maxGPUTopK = topkChunk/2).
func topkStagesChunk(n, k, chunk int) []topkStage {
	var st []topkStage
	for {
		c := ceilDiv(n, chunk)
		st = append(st, topkStage{N: n, Chunks: c})
		if c == 1 {
			return st
		}
		n = c * k
	}
}

// topkScratchEntries is the largest stage output per row, to size the ping-pong
// buffers.
func topkScratchEntries(n, k int) int {
	most := 0
	for _, s := range topkStages(n, k) {
		most = max(most, s.Chunks*k)
	}
	return most
}

// rowBlock is the block size of a kernel that walks one row of n elements.
func rowBlock(n int) int { return min(rowBlockMax, max(32, alignUpInt(n, 32))) }

// gridStrideBlocks is the grid of a 1-D grid-stride kernel over total elements.
func gridStrideBlocks(total, block int) int {
	return min(gridStrideMaxBlocks, max(1, ceilDiv(total, block)))
}

func ceilDiv(a, b int) int    { return (a + b - 1) / b }
func alignUpInt(a, b int) int { return ceilDiv(a, b) * b }
