package sampler

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// rngDomain separates this derivation from any other use of SHA-256 over the same
// fields; bump the version if the derivation ever changes, so old runs stay
// describable.
const rngDomain = "entropix-eval/sampler/rng/v1"

// RNG is the random stream of one sequence. It is ChaCha8 (math/rand/v2) keyed by
// SHA-256(domain, run seed, problem id, repeat), so the stream depends on nothing but
// those three values: not on batch size, worker count or the order jobs run in.
// An RNG is not safe for concurrent use; each sequence owns one.
type RNG struct {
	src *rand.ChaCha8
}

// NewRNG derives the stream of (runSeed, problemID, repeat). The fields are length
// prefixed before hashing so no two different triples share a key.
func NewRNG(runSeed uint64, problemID string, repeat int) *RNG {
	return &RNG{src: rand.NewChaCha8(DeriveKey(runSeed, problemID, repeat))}
}

// DeriveKey is the 32-byte ChaCha8 key of (runSeed, problemID, repeat):
// SHA-256 of the domain string, then the seed, the id's byte length, the id bytes and
// the repeat index, integers as 8-byte little endian. Exposed so manifests and other
// implementations can reproduce a stream.
func DeriveKey(runSeed uint64, problemID string, repeat int) [32]byte {
	h := sha256.New()
	var b [8]byte
	h.Write([]byte(rngDomain))
	binary.LittleEndian.PutUint64(b[:], runSeed)
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(len(problemID)))
	h.Write(b[:])
	h.Write([]byte(problemID))
	binary.LittleEndian.PutUint64(b[:], uint64(int64(repeat)))
	h.Write(b[:])
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return key
}

// upstreamKey keys the stream of randomness "upstream": the JAX original passes
// PRNGKey(1337) to every _sample call, so the same noise repeats at every step and
// for every seed and problem. This reproduces that behaviour (one fixed stream,
// restarted each step), not JAX's threefry bits.
var upstreamKey = sha256.Sum256([]byte("entropix-eval/sampler/rng/upstream/PRNGKey(1337)"))

// restartUpstream rewinds the stream to the fixed upstream key (no allocation).
func (r *RNG) restartUpstream() { r.src.Seed(upstreamKey) }

// Uint64 returns the next 64 bits of the stream.
func (r *RNG) Uint64() uint64 { return r.src.Uint64() }

// Float64 returns a uniform value in the open interval (0, 1): the top 53 bits of one
// Uint64, offset by half a step, so that −log of it is always finite and positive.
func (r *RNG) Float64() float64 {
	return (float64(r.src.Uint64()>>11) + 0.5) * (1.0 / (1 << 53))
}

// Exp returns an Exp(1) variate as −log(U). Inversion rather than math/rand's
// ziggurat keeps the mapping from stream to draws fixed by this file alone, so a run
// can be reproduced exactly by another implementation of ChaCha8.
func (r *RNG) Exp() float64 { return -math.Log(r.Float64()) }

// race draws index i with probability w[i]/Σw by the exponential race: with
// E_i ~ Exp(1) i.i.d., the winner is argmin_i E_i/w_i — an exact categorical draw
// that needs no normalisation (the torch ports' w/U with U uniform is biased toward
// the mode). The race is evaluated lazily with exponential jumps (Efraimidis and
// Spirakis' A-ExpJ): given the leading key M, the next entry to beat it is where
// M·(running weight) first exceeds a fresh Exp(1), and its key is then a truncated
// exponential. Same distribution as drawing every E_i, but O(log n) variates instead
// of n. Zero weights never win; callers guarantee some weight is positive.
func (r *RNG) race(w []float64) int {
	best := 0
	for best < len(w) && !(w[best] > 0) {
		best++
	}
	if best == len(w) {
		return 0
	}
	m := r.Exp() / w[best] // the leading key E/w
	i := best + 1
	for {
		budget := r.Exp() / m
		var acc float64
		for ; i < len(w); i++ {
			acc += w[i]
			if acc > budget {
				break
			}
		}
		if i >= len(w) {
			return best
		}
		// Entry i beats m: E_i is Exp(1) conditioned on E_i < w_i·m.
		q := -math.Expm1(-w[i] * m)
		m = -math.Log1p(-r.Float64()*q) / w[i]
		best = i
		i++
	}
}
