package datasets

// Random is random.random(): a float in [0, 1) with 53 random bits, from two
// outputs (random_random in Modules/_randommodule.c).
func (r *PyRandom) Random() float64 {
	a, b := r.Uint32()>>5, r.Uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}
