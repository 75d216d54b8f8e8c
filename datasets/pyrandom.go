package datasets

import (
	"errors"
	"math"
	"math/big"
)

// PyRandom reproduces CPython's random.Random (Mersenne Twister MT19937) for the
// calls lm-eval makes when it draws few-shot examples: seeding from an int,
// getrandbits, _randbelow and sample. lm-eval's gsm8k shots are
// random.Random(1234).sample(train, 5), one call per test doc, so prompt parity
// with lm-eval needs these bit-exact, not merely "a good RNG".
//
// Follows Modules/_randommodule.c (init_genrand, init_by_array, genrand_uint32,
// random_seed, getrandbits) and Lib/random.py (_randbelow_with_getrandbits, sample)
// of CPython 3.11; the algorithms are unchanged from 3.2 to 3.13.
type PyRandom struct {
	mt  [mtN]uint32
	mti int
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// NewPyRandom returns the generator Python's random.Random(seed) starts with.
// Python seeds from |seed|: random.Random(-7) and random.Random(7) are the same
// stream, and so are they here.
func NewPyRandom(seed int64) *PyRandom {
	r := &PyRandom{}
	r.SeedBig(big.NewInt(seed))
	return r
}

// SeedBig seeds from an arbitrary integer, as random_seed does for a Python int:
// the absolute value split into 32-bit words, least significant first (one zero
// word for 0), then init_by_array.
func (r *PyRandom) SeedBig(seed *big.Int) {
	n := new(big.Int).Abs(seed)
	var key []uint32
	mask := big.NewInt(0xffffffff)
	for n.Sign() > 0 {
		key = append(key, uint32(new(big.Int).And(n, mask).Uint64()))
		n.Rsh(n, 32)
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	r.initByArray(key)
}

func (r *PyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = mtN
}

func (r *PyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(mtN, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000 // MSB is 1, assuring a non-zero initial array
}

// Uint32 is genrand_uint32: the next 32-bit output of the twister.
func (r *PyRandom) Uint32() uint32 {
	if r.mti >= mtN {
		mag01 := [2]uint32{0, mtMatrixA}
		var kk int
		for kk = 0; kk < mtN-mtM; kk++ {
			y := (r.mt[kk] & mtUpperMask) | (r.mt[kk+1] & mtLowerMask)
			r.mt[kk] = r.mt[kk+mtM] ^ (y >> 1) ^ mag01[y&1]
		}
		for ; kk < mtN-1; kk++ {
			y := (r.mt[kk] & mtUpperMask) | (r.mt[kk+1] & mtLowerMask)
			r.mt[kk] = r.mt[kk+(mtM-mtN)] ^ (y >> 1) ^ mag01[y&1]
		}
		y := (r.mt[mtN-1] & mtUpperMask) | (r.mt[0] & mtLowerMask)
		r.mt[mtN-1] = r.mt[mtM-1] ^ (y >> 1) ^ mag01[y&1]
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// GetRandBits is random.getrandbits(k) for 0 <= k <= 64. Like CPython, k <= 32
// uses the top k bits of one output; wider requests fill 32-bit words least
// significant first, the last word keeping its top bits.
func (r *PyRandom) GetRandBits(k int) uint64 {
	if k <= 0 {
		return 0 // CPython returns 0 for k == 0 and raises for k < 0; callers pass k >= 1
	}
	if k <= 32 {
		return uint64(r.Uint32() >> (32 - k))
	}
	var out uint64
	for shift := 0; k > 0 && shift < 64; shift += 32 {
		w := r.Uint32()
		if k < 32 {
			w >>= 32 - k
		}
		out |= uint64(w) << shift
		k -= 32
	}
	return out
}

// RandBelow is Random._randbelow_with_getrandbits: rejection sampling on
// n.bit_length() bits, which is why it consumes a variable number of outputs.
func (r *PyRandom) RandBelow(n int) int {
	if n <= 0 {
		return 0
	}
	k := bitLength(uint64(n))
	v := r.GetRandBits(k)
	for v >= uint64(n) {
		v = r.GetRandBits(k)
	}
	return int(v)
}

func bitLength(x uint64) int {
	n := 0
	for x != 0 {
		n++
		x >>= 1
	}
	return n
}

// ErrSampleSize is returned by Sample when k is outside [0, n] (Python raises
// ValueError "Sample larger than population or is negative").
var ErrSampleSize = errors.New("sample larger than population or is negative")

// Sample is random.sample(range(n), k): it returns the chosen indices in the
// order Python would return the population items. Python switches between a
// partial Fisher-Yates on a copied pool and rejection against a set of chosen
// indices depending on n and k; the two consume the generator differently, so
// both branches are reproduced.
func (r *PyRandom) Sample(n, k int) ([]int, error) {
	if k < 0 || k > n {
		return nil, ErrSampleSize
	}
	result := make([]int, k)
	setsize := 21 // size of a small set minus size of an empty list
	if k > 5 {
		// Python: 4 ** _ceil(_log(k * 3, 4)); math.log(x, b) is log(x)/log(b).
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := 0; i < k; i++ {
			j := r.RandBelow(n - i)
			result[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return result, nil
	}
	selected := make(map[int]struct{}, k)
	for i := 0; i < k; i++ {
		j := r.RandBelow(n)
		for {
			if _, dup := selected[j]; !dup {
				break
			}
			j = r.RandBelow(n)
		}
		selected[j] = struct{}{}
		result[i] = j
	}
	return result, nil
}
