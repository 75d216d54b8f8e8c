package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAttnGeometry(t *testing.T) {
	for _, tc := range []struct{ heads, kvHeads, headDim, keys, rows, hb, warps, splits, span int }{
		{32, 8, 64, 512, 64, 4, 16, 1, 512},     // Llama-3.2-1B decode at batch 64, 512 tokens
		{32, 8, 64, 576, 1, 1, 4, 5, 128},       // batch 1: one head per block, rows split in 128-key spans
		{32, 8, 64, 576, 8, 1, 4, 5, 128},       // batch 8: still split (256 row × head pairs)
		{32, 8, 64, 576, 12, 1, 16, 1, 576},     // batch 12: too many pairs to split
		{32, 8, 64, 20000, 1, 1, 10, 64, 320},   // a long row: 64 splits of longer spans
		{32, 8, 64, 128, 1, 1, 4, 1, 128},       // a row of one span is not split
		{32, 8, 64, 1, 1024, 4, 1, 1, 1},        // prefill's first token
		{9, 3, 64, 100, 64, 3, 4, 1, 100},       // SmolLM2-135M
		{14, 2, 64, 4096, 64, 7, 16, 1, 4096},   // Qwen2-0.5B: group 7
		{64, 4, 128, 4096, 64, 8, 10, 1, 4096},  // group 16 splits into blocks of 8; smem caps warps
		{8, 8, 8, 33, 1, 1, 2, 1, 33},           // MHA
		{32, 1, 256, 9000, 1024, 8, 4, 1, 9000}, // big heads: shared memory limits the warps
	} {
		g := attnGeometry(tc.heads, tc.kvHeads, tc.headDim, tc.keys, tc.rows)
		require.Equal(t, tc.hb, g.hb, "%+v", tc)
		require.Equal(t, tc.warps, g.warps, "%+v", tc)
		require.Equal(t, tc.splits, g.splits, "%+v", tc)
		require.Equal(t, tc.span, g.span, "%+v", tc)
		require.Zero(t, (tc.heads/tc.kvHeads)%g.hb, "hb divides the group")
		require.LessOrEqual(t, g.smem, maxSharedBytes)
		require.Equal(t, attnSharedBytes(g.hb, tc.headDim, g.warps), g.smem)
		require.GreaterOrEqual(t, g.splits*g.span, tc.keys, "the splits cover the longest row")
		if g.splits > 1 {
			require.LessOrEqual(t, tc.rows*tc.heads*g.splits*(tc.headDim+2)*4, int(attnPartBytes(tc.headDim)), "partials fit")
			require.Zero(t, g.span%32)
		}
	}
}

func TestTopKStagesShrinkToOneChunk(t *testing.T) {
	require.LessOrEqual(t, 2*maxGPUTopK, topkChunk, "k <= chunk/2 guarantees progress")
	for _, tc := range []struct{ n, k, stages int }{
		{128256, 27, 2}, {128256, 1024, 7}, {512, 27, 1}, {49152, 100, 3}, {2048, 1024, 1}, {2049, 1024, 2},
	} {
		st := topkStages(tc.n, tc.k)
		require.Len(t, st, tc.stages, "%+v: %v", tc, st)
		require.Equal(t, tc.n, st[0].N)
		require.Equal(t, 1, st[len(st)-1].Chunks)
		for i := 1; i < len(st); i++ {
			require.Equal(t, st[i-1].Chunks*tc.k, st[i].N)
			require.Less(t, st[i].N, st[i-1].N)
		}
		require.GreaterOrEqual(t, topkScratchEntries(tc.n, tc.k), tc.k)
	}
}

func TestRowAndGridSizes(t *testing.T) {
	require.Equal(t, 32, rowBlock(8))
	require.Equal(t, 64, rowBlock(48))
	require.Equal(t, 256, rowBlock(2048))
	require.Equal(t, 1, gridStrideBlocks(1, 256))
	require.Equal(t, 4, gridStrideBlocks(1000, 256))
	require.Equal(t, gridStrideMaxBlocks, gridStrideBlocks(1<<30, 256))
}
