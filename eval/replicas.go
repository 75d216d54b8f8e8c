package eval

import "sync/atomic"

// DeterministicSampler is a SamplerFactory whose sequences depend on neither the
// seed nor the repeat (greedy). Its first job decodes each problem once and the
// record is written for every other seed and repeat of the sampler: the CPU
// engine is batch-invariant, so the copies are bit-identical to decoding them,
// and a sweep of greedy × 3 seeds no longer computes the same sequences 3 times.
type DeterministicSampler interface {
	Deterministic() bool
}

func isDeterministic(f SamplerFactory) bool {
	d, ok := f.(DeterministicSampler)
	return ok && d.Deterministic()
}

// replicas maps the item that decodes a deterministic sampler's problem to the
// items recorded from it: the sampler's other jobs for that problem.
type replicas map[ItemKey][]ItemKey

// planWork lists the items to decode (problem-major: a prompt's jobs run
// together) and the replicas each decoded item stands for, and returns the
// records that can be written at once: replicas whose source the journal
// already holds (a run killed between a source and its copies, or grown by
// seeds).
func planWork(jobs []Job, problems []*preparedProblem, samplers []SamplerFactory, done []Record) (*workQueue, replicas, []Record) {
	finished := make(map[ItemKey]*Record, len(done))
	for i := range done {
		finished[done[i].ItemKey] = &done[i]
	}
	source := make(map[int]Job) // sampler index → its first job, the one that decodes
	for _, j := range jobs {
		if _, ok := source[j.SamplerIndex]; !ok && isDeterministic(samplers[j.SamplerIndex]) {
			source[j.SamplerIndex] = j
		}
	}
	q := &workQueue{}
	plan := replicas{}
	var ready []Record
	for _, p := range problems {
		for _, j := range jobs {
			key := j.Item(p.Index)
			if finished[key] != nil {
				continue
			}
			src, ok := source[j.SamplerIndex]
			if !ok || src == j {
				q.items = append(q.items, workItem{job: j, problem: p, sampler: samplers[j.SamplerIndex]})
				continue
			}
			srcKey := src.Item(p.Index)
			if rec := finished[srcKey]; rec != nil {
				ready = append(ready, replicaOf(*rec, key))
				continue
			}
			plan[srcKey] = append(plan[srcKey], key)
		}
	}
	return q, plan, ready
}

// replicaOf is a source record filed under another item of the same sampler.
func replicaOf(rec Record, key ItemKey) Record {
	rec.ItemKey = key
	return rec
}

// recorder journals each finished item and the replicas it stands for, counting
// the copies for the manifest's stats.
type recorder struct {
	append func(Record) error
	plan   replicas
	copied atomic.Int64
}

func (r *recorder) record(rec Record) error {
	if err := r.append(rec); err != nil {
		return err
	}
	for _, key := range r.plan[rec.ItemKey] {
		if err := r.append(replicaOf(rec, key)); err != nil {
			return err
		}
		r.copied.Add(1)
	}
	return nil
}
