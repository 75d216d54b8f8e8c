package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAttnGeometry(t *testing.T) {
	for _, tc := range []struct{ heads, kvHeads, headDim, keys, rows, hb, warps int }{
		{32, 8, 64, 512, 64, 4, 16},    // Llama-3.2-1B decode at batch 64, 512 tokens
		{32, 8, 64, 512, 1, 1, 16},     // batch 1: one head per block for more blocks
		{32, 8, 64, 1, 1024, 4, 1},     // prefill's first token
		{9, 3, 64, 100, 64, 3, 4},      // SmolLM2-135M
		{14, 2, 64, 4096, 64, 7, 16},   // Qwen2-0.5B: group 7
		{64, 4, 128, 4096, 64, 8, 10},  // group 16 splits into blocks of 8; smem caps warps
		{8, 8, 8, 33, 1, 1, 2},         // MHA
		{32, 1, 256, 9000, 1024, 8, 4}, // big heads: shared memory limits the warps
	} {
		hb, warps, smem := attnGeometry(tc.heads, tc.kvHeads, tc.headDim, tc.keys, tc.rows)
		require.Equal(t, tc.hb, hb, "%+v", tc)
		require.Equal(t, tc.warps, warps, "%+v", tc)
		require.Zero(t, (tc.heads/tc.kvHeads)%hb, "hb divides the group")
		require.LessOrEqual(t, smem, maxSharedBytes)
		require.Equal(t, attnSharedBytes(hb, tc.headDim, warps), smem)
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
