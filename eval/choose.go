package eval

import "sync"

// Between two engine steps the engine's threads wait while every sequence picks
// its token; a min-p draw over a random model's flat distribution weighs tens of
// thousands of candidates, and those picks were a twentieth of a sweep's wall time
// on one core. Each sequence's choice reads only its own sampler state, RNG
// stream and step output, so the picks run side by side and give the same tokens
// in any order; recording them stays serial and in input order (afterStep).

// chooseAllMin is the fewest ready sequences worth a second goroutine.
const chooseAllMin = 4

// chooseAll fills s.choices[j] with the choice of the sequence behind input
// s.ready[j], on up to s.threads goroutines.
func (s *scheduler) chooseAll() {
	n := len(s.ready)
	if cap(s.choices) < n {
		s.choices = make([]choice, n)
	}
	s.choices = s.choices[:n]
	one := func(j int) {
		i := s.ready[j]
		s.choices[j] = s.live[s.in[i].Slot].choose(&s.out[i], s.lim)
	}
	threads := min(s.threads, n)
	if threads < 2 || n < chooseAllMin {
		for j := range n {
			one(j)
		}
		return
	}
	// Interleaved, not in blocks: a batch mixes cheap (greedy) and costly (min-p)
	// samplers in runs.
	var wg sync.WaitGroup
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := t; j < n; j += threads {
				one(j)
			}
		}()
	}
	wg.Wait()
}
