package eval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deterministicFake is the fake greedy sampler declaring what it is.
type deterministicFake struct{ fakeSampler }

func (deterministicFake) Deterministic() bool { return true }

// A deterministic sampler's other seeds and repeats are recorded from one decoded
// sequence per problem: the result files are byte-identical to decoding every
// seed and repeat, the manifest counts what was decoded and what was recorded, a
// run grown by seeds decodes nothing for greedy, and a journal holding a source
// without its copies (a kill between them) gets the copies on resume.
func TestDeterministicSamplerDecodedOnce(t *testing.T) {
	want := reference(t) // greedy not declared deterministic: every seed and repeat decoded

	dir := t.TempDir()
	r := fakeRun{batch: 3, chunk: 4}.runner(dir)
	r.Samplers[0] = deterministicFake{fakeSampler{"greedy"}}
	m, err := r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, outputs(t, dir), "copies are the decoded bytes")
	// 11 problems: greedy decodes 11 (not 2 seeds × 2 repeats × 11 = 44), sample 44.
	assert.Equal(t, 11+44, m.Stats.SequencesDecoded)
	assert.Equal(t, 88, m.Stats.SequencesRecorded)

	grown := t.TempDir()
	r = fakeRun{batch: 3, chunk: 4}.runner(grown)
	r.Samplers[0] = deterministicFake{fakeSampler{"greedy"}}
	r.Config.Seeds = []uint64{0}
	_, err = r.Run(context.Background())
	require.NoError(t, err)
	r = fakeRun{batch: 3, chunk: 4}.runner(grown)
	r.Samplers[0] = deterministicFake{fakeSampler{"greedy"}}
	m, err = r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, outputs(t, grown))
	assert.Equal(t, 22, m.Stats.SequencesDecoded, "only the sample sampler's new seed is decoded")
	assert.Equal(t, 44, m.Stats.SequencesRecorded)
}

func TestPlanWorkReplicas(t *testing.T) {
	jobs := []Job{
		{SamplerIndex: 0, Sampler: "greedy", Seed: 0}, {SamplerIndex: 0, Sampler: "greedy", Seed: 1},
		{SamplerIndex: 1, Sampler: "sample", Seed: 0}, {SamplerIndex: 1, Sampler: "sample", Seed: 1},
	}
	problems := []*preparedProblem{{Index: 0}, {Index: 1}}
	samplers := []SamplerFactory{deterministicFake{fakeSampler{"greedy"}}, fakeSampler{"sample"}}
	// Problem 0's greedy source is journaled, its copy is not (killed between them).
	done := []Record{{ItemKey: jobs[0].Item(0), Response: "r0"}}
	q, plan, ready := planWork(jobs, problems, samplers, done)
	require.Len(t, ready, 1)
	assert.Equal(t, jobs[1].Item(0), ready[0].ItemKey)
	assert.Equal(t, "r0", ready[0].Response)
	var queued []ItemKey
	for _, it := range q.items {
		queued = append(queued, it.job.Item(it.problem.Index))
	}
	assert.Equal(t, []ItemKey{jobs[2].Item(0), jobs[3].Item(0), jobs[0].Item(1), jobs[2].Item(1), jobs[3].Item(1)}, queued)
	assert.Equal(t, replicas{jobs[0].Item(1): {jobs[1].Item(1)}}, plan)
}
