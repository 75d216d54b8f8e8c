package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bitsOf is a float32 slice as bits, so that require.Equal means bit-identity
// (NaN payloads and the sign of zero included).
func bitsOf(v []float32) []uint32 {
	b := make([]uint32, len(v))
	for i, x := range v {
		b[i] = math.Float32bits(x)
	}
	return b
}

// attnValue draws a query or key element: mostly normal values over eight
// decades (so that any change in the order of a sum changes its bits), and some
// ±0, subnormals and huge values whose products overflow.
func attnValue(r *rand.Rand) float32 {
	switch r.IntN(40) {
	case 0:
		return float32(math.Copysign(0, float64(r.IntN(2)*2-1)))
	case 1:
		return math.Float32frombits(uint32(r.IntN(1 << 23)))
	case 2:
		return float32(r.NormFloat64() * 1e30)
	default:
		return float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(9)-4)))
	}
}

// withKernels runs f with each kernel set this CPU has: AVX-512, AVX2 only or
// NEON, Go.
func withKernels(t *testing.T, f func(t *testing.T)) {
	t.Run("simd", f)
	if useAVX512 {
		t.Run("avx2", func(t *testing.T) {
			setAVX2Only(t)
			f(t)
		})
	}
	if useSIMD || useNEON {
		t.Run("go", func(t *testing.T) {
			setSIMD(t, false)
			f(t)
		})
	}
}

// groupScores is dot(q_g, k_j)·scale for every head and key: its definition.
func TestGroupScoresMatchDot(t *testing.T) {
	for _, tc := range []struct{ heads, hd, n, stride int }{
		{3, 64, 16, 192}, {3, 64, 512, 192}, {3, 64, 37, 192}, {1, 64, 33, 64},
		{4, 64, 100, 256}, {2, 64, 15, 128}, {5, 64, 48, 64 * 6}, {3, 32, 40, 96},
		{2, 128, 50, 256}, {3, 80, 19, 240}, {1, 64, 1, 64},
	} {
		// attnValue's eight decades make one product dominate most sums, which
		// hides a change in the order of the rest; plain N(0,1) values show it.
		for _, plain := range []bool{false, true} {
			t.Run(fmt.Sprintf("heads=%d/hd=%d/n=%d/plain=%v", tc.heads, tc.hd, tc.n, plain), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.hd)))
				value := attnValue
				if plain {
					value = func(r *rand.Rand) float32 { return float32(r.NormFloat64()) }
				}
				q := make([]float32, tc.heads*tc.hd)
				k := make([]float32, (tc.n-1)*tc.stride+tc.hd)
				for i := range q {
					q[i] = value(r)
				}
				for i := range k {
					k[i] = value(r)
				}
				// Whole keys of one sign against whole -0 queries: every product ±0.
				for i := range tc.hd {
					q[i] = float32(math.Copysign(0, -1))
					k[i] = float32(r.Float64())
				}
				if tc.n > 1 {
					k[tc.stride+5] = float32(math.NaN())
				}
				const scale = 0.125
				want := make([]float32, tc.heads*tc.n)
				for g := range tc.heads {
					for j := range tc.n {
						want[g*tc.n+j] = dot(q[g*tc.hd:(g+1)*tc.hd], k[j*tc.stride:]) * scale
					}
				}
				withKernels(t, func(t *testing.T) {
					got := make([]float32, len(want))
					groupScores(got, tc.n, tc.n, q, tc.heads, tc.hd, k, tc.stride, scale)
					require.Equal(t, bitsOf(want), bitsOf(got))
				})
			})
		}
	}
}

// Hand-derived scores: head g's query is all g+1, key j is all j/64, so
// dot = 64·(g+1)·j/64 = (g+1)·j exactly and the score is (g+1)·j/8; a key of
// -0s against a positive query sums to +0.
func TestGroupScoresHandDerived(t *testing.T) {
	const heads, hd, n, stride = 3, 64, 35, 3 * 64
	q := make([]float32, heads*hd)
	for i := range q {
		q[i] = float32(i/hd + 1)
	}
	k := make([]float32, n*stride)
	for j := range n {
		for i := range hd {
			k[j*stride+i] = float32(j) / 64
		}
	}
	for i := range hd {
		k[i] = float32(math.Copysign(0, -1))
	}
	withKernels(t, func(t *testing.T) {
		got := make([]float32, heads*n)
		groupScores(got, n, n, q, heads, hd, k, stride, 0.125)
		for g := range heads {
			for j := range n {
				require.Equal(t, math.Float32bits(float32((g+1)*j)/8), math.Float32bits(got[g*n+j]), "head %d key %d", g, j)
			}
		}
	})
}

// referenceAttention is attention spelled from its definition, one head at a
// time: scores dot·scale, softmax with Go's max, expf, a float64 sum in j order
// and the float64 normalise, then the weighted sum as an axpy chain.
func referenceAttention(e *Engine, rows []tokenRow, q []float32) (out, captured []float32) {
	c := &e.cfg
	hd, qDim := c.HeadDim, c.Heads*c.HeadDim
	scale := float32(1 / math.Sqrt(float64(hd)))
	out = make([]float32, len(rows)*qDim)
	for r, row := range rows {
		n := row.pos + 1
		for h := range c.Heads {
			base := e.cache.at(row.slot, h/(c.Heads/c.KVHeads), 0)
			qh := q[r*qDim+h*hd : r*qDim+(h+1)*hd]
			s := make([]float32, n)
			for j := range s {
				s[j] = dot(qh, e.cache.k[0][base+j*hd:]) * scale
			}
			if row.output >= 0 {
				captured = append(captured, s...)
			}
			m := s[0]
			for _, v := range s {
				m = max(m, v)
			}
			var z float64
			for j, v := range s {
				s[j] = expf(v - m)
				z += float64(s[j])
			}
			o := out[r*qDim+h*hd : r*qDim+(h+1)*hd]
			for j, v := range s {
				axpy(o, float32(float64(v)*(1/z)), e.cache.v[0][base+j*hd:base+(j+1)*hd])
			}
		}
	}
	return out, captured
}

// The whole attention, on prefill and decode shapes with grouped and ungrouped
// heads, gives the reference's bits with every kernel set and thread count.
func TestAttentionMatchesReference(t *testing.T) {
	for _, s := range []attnShape{
		{heads: 9, kvHeads: 3, headDim: 64, n: 70},
		{heads: 9, kvHeads: 3, headDim: 64, n: 40, batch: 3},
		{heads: 4, kvHeads: 4, headDim: 64, n: 33},
		{heads: 8, kvHeads: 1, headDim: 32, n: 21},
		{heads: 4, kvHeads: 2, headDim: 128, n: 18, batch: 2},
	} {
		t.Run(s.String(), func(t *testing.T) {
			for _, threads := range []int{1, 2} {
				t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
					e, rows := attnEngine(s, threads, 7)
					t.Cleanup(e.pool.close)
					r := rand.New(rand.NewPCG(8, 9))
					q := make([]float32, len(rows)*s.heads*s.headDim)
					for i := range q {
						q[i] = float32(r.NormFloat64() * 0.5)
					}
					if s.batch > 0 { // one row whose scores are infinite (or NaN where a key element is 0)
						q[0] = float32(math.Inf(-1))
					}
					want, wantCaptured := referenceAttention(e, rows, q)
					withKernels(t, func(t *testing.T) {
						got := make([]float32, len(want))
						e.attention(0, rows, q, got, true)
						require.Equal(t, bitsOf(want), bitsOf(got))
						var captured []float32
						for _, row := range rows {
							if row.output >= 0 {
								captured = append(captured, e.attnScores[row.output][:s.heads*(row.pos+1)]...)
							}
						}
						require.Equal(t, bitsOf(wantCaptured), bitsOf(captured))
					})
				})
			}
		})
	}
}

// softmaxRows gives softmax's bits on every row, whatever the rows hold.
func TestSoftmaxRowsMatchSoftmax(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	special := map[string]func(s []float32){
		"plain":     func([]float32) {},
		"nan":       func(s []float32) { s[len(s)/2] = float32(math.NaN()) },
		"+inf":      func(s []float32) { s[0] = float32(math.Inf(1)) },
		"-inf":      func(s []float32) { s[len(s)-1] = float32(math.Inf(-1)) },
		"underflow": func(s []float32) { s[len(s)/3] = -95; s[len(s)-1] = -200 },
		"equal": func(s []float32) {
			for j := range s {
				s[j] = 3
			}
		},
		"zero max": func(s []float32) { // Go's max is +0 here, VMAXPS may say -0
			for j := range s {
				s[j] = -float32(j)
			}
			s[0], s[len(s)-1] = negZero, 0
		},
		"-0 max": func(s []float32) {
			for j := range s {
				s[j] = -1 - float32(j)
			}
			s[len(s)-1] = negZero
		},
	}
	for _, n := range []int{1, 7, 8, 9, 31, 64, 77, 512} {
		for _, rows := range []int{1, 3, 4, 5, 9} {
			for name, f := range special {
				t.Run(fmt.Sprintf("n=%d/rows=%d/%s", n, rows, name), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(n), uint64(rows)))
					s := make([]float32, n*rows)
					for i := range s {
						s[i] = float32(r.NormFloat64() * 4)
					}
					f(s[(rows-1)*n:]) // the last row: a short group of four repeats it
					want := append([]float32(nil), s...)
					for g := range rows {
						softmax(want[g*n : (g+1)*n])
					}
					withKernels(t, func(t *testing.T) {
						got := append([]float32(nil), s...)
						softmaxRows(got, n, rows)
						require.Equal(t, bitsOf(want), bitsOf(got))
					})
				})
			}
		}
	}
}

// expf(±0) is exactly 1, so the sign of a zero maximum cannot reach softmax's
// output (maxAVX2 does not promise Go's).
func TestExpfOfZeroIsOne(t *testing.T) {
	for _, z := range []float32{0, float32(math.Copysign(0, -1))} {
		s := []float32{z, z, z, z, z, z, z, z, z}
		expSub(s, 0)
		require.Equal(t, bitsOf([]float32{1, 1, 1, 1, 1, 1, 1, 1, 1}), bitsOf(s))
		s = []float32{z, z, z, z, z, z, z, z, z}
		expSub(s, float32(math.Copysign(0, -1)))
		require.Equal(t, bitsOf([]float32{1, 1, 1, 1, 1, 1, 1, 1, 1}), bitsOf(s))
	}
}

// weightedSums is weightedSum per head (the axpy chain): check its bits.
func TestWeightedSumsMatchWeightedSum(t *testing.T) {
	for _, tc := range []struct{ heads, hd, n, stride int }{
		{3, 64, 1, 192}, {3, 64, 31, 192}, {3, 64, 32, 192}, {3, 64, 33, 192}, {3, 64, 512, 192},
		{1, 64, 70, 64}, {4, 64, 65, 256}, {5, 64, 100, 320}, {2, 32, 40, 64}, {2, 128, 40, 256}, {3, 192, 40, 576}, {3, 64, 130, 192}, {2, 128, 70, 384}, {3, 96, 100, 288}, {2, 80, 40, 160},
	} {
		t.Run(fmt.Sprintf("heads=%d/hd=%d/n=%d", tc.heads, tc.hd, tc.n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.heads)))
			p := make([]float32, tc.heads*tc.n)
			v := make([]float32, (tc.n-1)*tc.stride+tc.hd)
			for i := range p {
				p[i] = float32(r.Float64())
			}
			for i := range v {
				v[i] = attnValue(r)
			}
			for i := range tc.hd { // products of -0 in every chain's first term
				v[i] = float32(math.Copysign(0, -1))
			}
			v[tc.hd/2] = float32(math.NaN())
			want := make([]float32, tc.heads*tc.hd)
			for g := range tc.heads {
				o := want[g*tc.hd : (g+1)*tc.hd]
				for j := range tc.n {
					axpy(o, p[g*tc.n+j], v[j*tc.stride:j*tc.stride+tc.hd])
				}
			}
			withKernels(t, func(t *testing.T) {
				got := make([]float32, len(want))
				for i := range got {
					got[i] = 7 // stale values the sums must not start from
				}
				weightedSums(got, p, tc.n, tc.heads, tc.hd, v, tc.stride)
				require.Equal(t, bitsOf(want), bitsOf(got))
			})
		})
	}
}

// Hand-derived: position j has weight 1/2^(j+1) for head g's row shifted by g,
// and value row j is all j+1, so head 0's sum over 3 positions is
// 1/2 + 2/4 + 3/8 = 11/8, head 1's (weights 1, 1/2, 1/4) 1 + 1 + 3/4 = 11/4.
func TestWeightedSumsHandDerived(t *testing.T) {
	const hd, n, stride = 64, 3, 128
	p := []float32{0.5, 0.25, 0.125, 1, 0.5, 0.25}
	v := make([]float32, n*stride)
	for j := range n {
		for i := range hd {
			v[j*stride+i] = float32(j + 1)
		}
	}
	withKernels(t, func(t *testing.T) {
		got := make([]float32, 2*hd)
		weightedSums(got, p, n, 2, hd, v, stride)
		for i := range hd {
			require.Equal(t, float32(11)/8, got[i])
			require.Equal(t, float32(11)/4, got[hd+i])
		}
	})
}
