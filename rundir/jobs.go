package rundir

import (
	"fmt"
	"strconv"
	"strings"
)

// Job is one (sampler, seed, repeat) pass over every problem. Its key fields are what
// a result row is identified by, so they never depend on how the work was scheduled.
type Job struct {
	SamplerIndex int    `json:"sampler_index"`
	Sampler      string `json:"sampler"`
	Seed         uint64 `json:"seed"`
	Repeat       int    `json:"repeat"`
}

// RunID names a sampler × seed run; its repeats share it.
func (j Job) RunID() string { return fmt.Sprintf("%s/seed=%d", j.Sampler, j.Seed) }

// ExpandJobs lists the jobs of a config in the canonical order (sampler, seed, repeat),
// the order of every output file.
func ExpandJobs(c Config) []Job {
	var jobs []Job
	for si, s := range c.Samplers {
		for _, seed := range c.Seeds {
			for r := 0; r < c.Repeats; r++ {
				jobs = append(jobs, Job{SamplerIndex: si, Sampler: s.DisplayLabel(), Seed: seed, Repeat: r})
			}
		}
	}
	return jobs
}

// ItemKey identifies one unit of work, (job, problem), in the journal.
type ItemKey struct {
	Sampler      string `json:"sampler"`
	Seed         uint64 `json:"seed"`
	Repeat       int    `json:"repeat"`
	ProblemIndex int    `json:"problem_index"`
}

// Item is the job's work item for one problem.
func (j Job) Item(problem int) ItemKey {
	return ItemKey{Sampler: j.Sampler, Seed: j.Seed, Repeat: j.Repeat, ProblemIndex: problem}
}

// Shard selects the problems p with p mod Count == Index, so every shard gets a
// spread of easy and hard problems and all jobs of one problem stay together.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{Index: 0, Count: 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n", s)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether problem index p belongs to the shard.
func (s Shard) Owns(p int) bool { return s.Count <= 1 || p%s.Count == s.Index }
