package engine

import "fmt"

// Largest is the biggest n in 1..hi with ok(n), or 0; ok must be monotone (true
// up to some n, false after). Backends use it to say what would fit in memory.
func Largest(hi int, ok func(int) bool) int {
	lo := 0
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// FitAdvice says what fits when slots × maxSeq does not: the most slots at this
// maxSeq, or the longest maxSeq at this slot count ("" when neither does). fits
// must be monotone in each argument.
func FitAdvice(slots, maxSeq int, fits func(slots, maxSeq int) bool) string {
	s := Largest(slots, func(n int) bool { return fits(n, maxSeq) })
	l := Largest(maxSeq, func(n int) bool { return fits(slots, n) })
	switch {
	case s > 0 && l > 0:
		return fmt.Sprintf("at most %d slots at max sequence length %d, or max sequence length %d at %d slots", s, maxSeq, l, slots)
	case s > 0:
		return fmt.Sprintf("at most %d slots at max sequence length %d", s, maxSeq)
	case l > 0:
		return fmt.Sprintf("max sequence length %d at %d slots", l, slots)
	}
	return ""
}

// GiB formats a byte count for memory messages.
func GiB(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// CapPrefixCache is a prefix-cache budget of want bytes capped at half of what the
// rest of the plan (rest bytes) leaves of free: the cache grows as it is used, and
// shared prefixes are an optimisation, never the reason a request stops fitting.
// A want that is not positive is returned as it is; a cap that leaves nothing
// returns -1 (sharing off).
func CapPrefixCache(want, free, rest int64) int64 {
	if want <= 0 {
		return want
	}
	if c := min(want, (free-rest)/2); c > 0 {
		return c
	}
	return -1
}
