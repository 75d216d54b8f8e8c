package reports

import "math/bits"

// splitMix64 is the bootstrap's random source. It is written out here, not taken
// from math/rand, so that a report's intervals for a given seed are the same on
// every Go release: the algorithm (Steele, Lea & Flood 2014) is fixed by its
// published constants.
type splitMix64 struct{ state uint64 }

func (s *splitMix64) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n), n > 0, without modulo bias (Lemire's
// multiply-shift with rejection of the short low range).
func (s *splitMix64) intn(n uint64) uint64 {
	hi, lo := bits.Mul64(s.next(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(s.next(), n)
		}
	}
	return hi
}
