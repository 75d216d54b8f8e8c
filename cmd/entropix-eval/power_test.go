package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPowerCommand(t *testing.T) {
	pilot := nightlyRun(t, 0.1)
	for _, tc := range []struct {
		name  string
		args  []string
		says  []string
		err   string
		usage bool
	}{
		// The example, with the conservative assumptions: Var(d) =
		// 0.37·0.63 + 0.35·0.65 = 0.4606, n = (2.801585/0.02)²·0.4606 → 9038
		// at every number of samples (reports.TestPowerPlanHandComputed).
		{name: "assumed", args: []string{"--baseline-acc", "0.35", "--delta", "0.02", "--samples", "3"},
			says: []string{"ω² = 0.4606", "                  3              9038  ← --samples", "assumed from the accuracies"}},
		{name: "with what a benchmark has", args: []string{"--baseline-acc", "0.35", "--delta", "0.02", "--within-share", "0.5", "--corr", "0.6", "--problems", "1319"},
			says: []string{"with 1319 problems no number of samples is enough"}},
		{name: "family", args: []string{"--baseline-acc", "0.35", "--delta", "0.02", "--samples", "3", "--within-share", "0.5", "--corr", "0.6", "--tests", "4"},
			says: []string{"Holm family of 4 (first step α/4 = 0.0125)", "                  3              4709  ← --samples"}},
		{name: "measured", args: []string{"--run", pilot, "--delta", "0.05", "--sampler", "entropix"},
			says: []string{"measured on " + pilot + ": entropix against greedy under exact_match,strict-match", "unmeasured"}},
		{name: "no delta", args: []string{"--baseline-acc", "0.35"}, err: "delta 0", usage: true},
		{name: "no accuracy", args: []string{"--delta", "0.02"}, err: "--baseline-acc is required", usage: true},
		{name: "bad sampler", args: []string{"--run", pilot, "--delta", "0.02", "--sampler", "nope"}, err: `no sampler "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runPower(context.Background(), tc.args, &out, &out)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Equal(t, tc.usage, errors.Is(err, errUsage))
				return
			}
			require.NoError(t, err)
			for _, s := range tc.says {
				assert.Contains(t, out.String(), s)
			}
		})
	}
}
