package datasets

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The goldens below were produced once by CPython 3.11.7 with:
//
//	import random
//	r = random.Random(1234)
//	draws = [r.sample(range(7473), 5) for _ in range(1319)]
//	print(draws[0], draws[1], draws[2], draws[1318])
//	r = random.Random(1234); print([r.getrandbits(32) for _ in range(5)])
//	r = random.Random(0); print([r.getrandbits(32) for _ in range(3)])
//	r = random.Random(2**40+5); print([r.getrandbits(32) for _ in range(3)])
//	r = random.Random(-7); print([r.getrandbits(32) for _ in range(3)])
//	r = random.Random(1234); print([r.getrandbits(k) for k in (1,7,13,31,32,33,64,65)])
//	r = random.Random(42); print([r.sample(range(20), 6) for _ in range(3)])   # pool branch
//	r = random.Random(42); print([r.sample(range(100), 6) for _ in range(3)])  # set branch
//	r = random.Random(42); print(r.sample(range(10), 0), r.sample(range(10), 10))
//	r = random.Random(1234); print([r.sample(range(1319), 6) for _ in range(2)])

func TestPyRandomGetRandBits32(t *testing.T) {
	tests := []struct {
		name string
		seed *big.Int
		want []uint64
	}{
		{"seed 1234", big.NewInt(1234), []uint64{4150886329, 3342196574, 1892932127, 501869158, 32175636}},
		{"seed 0", big.NewInt(0), []uint64{3626764237, 1654615998, 3255389356}},
		{"seed 2**40+5 (two key words)", new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 40), big.NewInt(5)), []uint64{2166296868, 2220160828, 1153647273}},
		{"seed -7 (Python uses abs)", big.NewInt(-7), []uint64{1390851128, 4071050724, 647892279}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &PyRandom{}
			r.SeedBig(tt.seed)
			got := make([]uint64, len(tt.want))
			for i := range got {
				got[i] = r.GetRandBits(32)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPyRandomGetRandBitsWidths(t *testing.T) {
	r := NewPyRandom(1234)
	widths := []int{1, 7, 13, 31, 32, 33, 64}
	want := []uint64{1, 99, 3610, 250934579, 32175636, 4684278597, 17326454776888161602}
	for i, k := range widths {
		assert.Equal(t, want[i], r.GetRandBits(k), "getrandbits(%d)", k)
	}
}

func TestPyRandomSample(t *testing.T) {
	tests := []struct {
		name    string
		seed    int64
		n, k    int
		calls   int
		want    [][]int
		wantErr bool
	}{
		{name: "lm-eval gsm8k shots, first three docs", seed: 1234, n: 7473, k: 5, calls: 3,
			want: [][]int{{6374, 3610, 957, 61, 742}, {7462, 6610, 4769, 286, 5501}, {5677, 687, 806, 6279, 2905}}},
		{name: "pool branch (n <= setsize)", seed: 42, n: 20, k: 6, calls: 3,
			want: [][]int{{3, 0, 8, 7, 16, 2}, {3, 17, 2, 13, 1, 0}, {2, 6, 7, 16, 0, 8}}},
		{name: "set branch (n > setsize)", seed: 42, n: 100, k: 6, calls: 3,
			want: [][]int{{81, 14, 3, 94, 35, 31}, {28, 17, 94, 13, 86, 69}, {11, 75, 54, 4, 3, 27}}},
		{name: "num_fewshot+1 draw from the test split", seed: 1234, n: 1319, k: 6, calls: 2,
			want: [][]int{{902, 239, 15, 185, 1192, 71}, {171, 201, 726, 484, 35, 63}}},
		{name: "k larger than n", seed: 1, n: 3, k: 4, calls: 1, wantErr: true},
		{name: "negative k", seed: 1, n: 3, k: -1, calls: 1, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewPyRandom(tt.seed)
			var got [][]int
			for range tt.calls {
				s, err := r.Sample(tt.n, tt.k)
				if tt.wantErr {
					require.ErrorIs(t, err, ErrSampleSize)
					return
				}
				require.NoError(t, err)
				got = append(got, s)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPyRandomSampleEmptyAndFull(t *testing.T) {
	r := NewPyRandom(42)
	s, err := r.Sample(10, 0)
	require.NoError(t, err)
	assert.Empty(t, s)
	s, err = r.Sample(10, 10)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0, 4, 9, 6, 5, 8, 2, 3, 7}, s)
}

func TestPyRandomDoc1318(t *testing.T) {
	r := NewPyRandom(1234)
	var last []int
	for range 1319 {
		var err error
		last, err = r.Sample(7473, 5)
		require.NoError(t, err)
	}
	assert.Equal(t, []int{220, 4179, 6064, 5599, 5541}, last)
}
