package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// packBF16 (VCVTNEPS2BF16 where AVX512_BF16 runs it) rounds every element as
// roundBF16's hand-derived table says, wherever in a row it falls, and random
// values as roundBF16 does.
func TestPackBF16MatchesRound(t *testing.T) {
	t.Logf("AVX512_BF16 kernels: %v", useBF16Asm)
	r := rand.New(rand.NewPCG(3, 5))
	for _, cols := range []int{1, 15, 16, 17, 31, 32, 33, 48, 80, 576, 1537} {
		t.Run(fmt.Sprintf("cols=%d", cols), func(t *testing.T) {
			const n = 3
			x := make([]float32, n*cols)
			want := make([]uint16, n*cols)
			for i := range x {
				if c := roundBF16Cases[(i*7+cols)%len(roundBF16Cases)]; r.IntN(3) == 0 {
					x[i], want[i] = math.Float32frombits(c.in), c.want
				} else {
					x[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(60)-30)))
					want[i] = roundBF16(x[i])
				}
			}
			k2 := (cols + 1) / 2
			got := make([]uint32, n*k2)
			for i := range got {
				got[i] = 0xdeadbeef // every dword, padding included, is written
			}
			packBF16(got, x, n, cols)
			for tok := range n {
				for i := range cols {
					d := got[tok*k2+i/2]
					require.Equal(t, want[tok*cols+i], uint16(d>>(16*(i%2))), "token %d element %d (%#08x)", tok, i, math.Float32bits(x[tok*cols+i]))
				}
				if cols%2 == 1 {
					require.Zero(t, got[tok*k2+k2-1]>>16, "token %d: the padding", tok)
				}
			}
		})
	}
}

func BenchmarkPackBF16(b *testing.B) {
	const n, cols = 512, 576
	x := make([]float32, n*cols)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	dst := make([]uint32, n*cols/2)
	b.ResetTimer()
	for range b.N {
		packBF16(dst, x, n, cols)
	}
	b.ReportMetric(float64(b.N)*n*cols/b.Elapsed().Seconds()/1e9, "Gfloats/s")
}
