package reports

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/assert"
)

// The schemas are a published interface: this test is the checklist that a
// change to them must update together with docs/files.md and SchemaVersion.
func TestSchemasArePublishedInterface(t *testing.T) {
	type col struct {
		name     string
		typ      string
		nullable bool
	}
	tests := []struct {
		kind   string
		schema *arrow.Schema
		want   []col
	}{
		{KindTraces, TraceSchema, []col{
			{"run_key", "utf8", false}, {"run_id", "utf8", false}, {"task", "utf8", false},
			{"sampler", "utf8", false}, {"attn_mode", "utf8", false}, {"pad_len", "int32", false},
			{"seed", "int64", false}, {"problem_id", "int32", false},
			{"repeat", "int32", false}, {"step", "int32", false}, {"token_id", "int32", false},
			{"token_text", "utf8", false}, {"strategy", "utf8", false},
			{"entropy", "float64", false}, {"varentropy", "float64", false},
			{"attn_entropy", "float64", true}, {"attn_varentropy", "float64", true},
			{"agreement", "float64", true}, {"interaction_strength", "float64", true},
			{"temperature", "float64", false}, {"top_k", "int32", true}, {"top_p", "float64", true},
			{"min_p", "float64", true}, {"logprob", "float64", false}, {"tail_mass", "float64", false},
			{"sample_logprob", "float64", false}, {"survivors", "int32", false}, {"n_samples", "int32", false},
			{"confidence", "float64", false}, {"draw_tail_mass", "float64", false}, {"tail_cut", "bool", false},
			{"faithful", "bool", false},
		}},
		{KindResults, testResultSchema(), []col{
			{"run_key", "utf8", false}, {"run_id", "utf8", false}, {"task", "utf8", false},
			{"sampler", "utf8", false}, {"sampler_spec", "utf8", false}, {"model", "utf8", false}, {"date", "utf8", false},
			{"seed", "int64", false},
			{"problem_id", "int32", false}, {"repeat", "int32", false}, {"prompt_hash", "utf8", false},
			{"target", "utf8", false}, {"response", "utf8", false},
			{"answer,strict-match", "utf8", true}, {"answer,flexible-extract", "utf8", true},
			{"exact_match,strict-match", "float64", true}, {"numeric_match,strict-match", "float64", true},
			{"exact_match,flexible-extract", "float64", true},
			{"prompt_tokens", "int32", false}, {"gen_tokens", "int32", false},
			{"finish_reason", "utf8", false}, {"latency_ms", "float64", false},
		}},
		{KindSummary, SummarySchema, []col{
			{"run_key", "utf8", false}, {"run_id", "utf8", false}, {"sampler", "utf8", false},
			{"sampler_spec", "utf8", false}, {"model", "utf8", false}, {"date", "utf8", false},
			{"seed", "int64", false}, {"filter", "utf8", false}, {"n", "int32", false}, {"repeats", "int32", false},
			{"accuracy", "float64", false}, {"se", "float64", false},
			{"ci_low", "float64", false}, {"ci_high", "float64", false},
			{"truncation_rate", "float64", false}, {"mean_gen_tokens", "float64", false},
		}},
		{KindComparisons, ComparisonSchema, []col{
			{"sampler", "utf8", false}, {"baseline", "utf8", false}, {"filter", "utf8", false},
			{"primary", "bool", false}, {"alternative", "utf8", false},
			{"n_problems", "int32", false}, {"n_differing", "int32", false}, {"samples_per_problem", "int32", false},
			{"baseline_samples_per_problem", "int32", false},
			{"sampler_deterministic", "bool", false}, {"baseline_deterministic", "bool", false},
			{"sampler_acc", "float64", false}, {"baseline_acc", "float64", false},
			{"delta", "float64", false}, {"delta_se", "float64", false},
			{"ci_low", "float64", false}, {"ci_high", "float64", false},
			{"normal_ci_low", "float64", false}, {"normal_ci_high", "float64", false},
			{"boot_ci_low", "float64", false}, {"boot_ci_high", "float64", false}, {"boot_resamples", "int32", false},
			{"boot_beyond_zero", "int32", false},
			{"p", "float64", false}, {"p_test", "utf8", false}, {"p_holm", "float64", true},
			{"holm_family", "utf8", false}, {"holm_m", "int32", false},
			{"mde80", "float64", false}, {"mde_alpha", "float64", false},
			{"mcnemar_b", "int32", true}, {"mcnemar_c", "int32", true},
			{"mcnemar_p", "float64", true}, {"mcnemar_test", "utf8", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			var got []col
			for _, f := range tt.schema.Fields() {
				got = append(got, col{f.Name, f.Type.Name(), f.Nullable})
			}
			assert.Equal(t, tt.want, got)
			kind, _ := tt.schema.Metadata().GetValue(metaKind)
			assert.Equal(t, tt.kind, kind)
			version, _ := tt.schema.Metadata().GetValue(metaVersion)
			assert.Equal(t, SchemaVersion, version)
		})
	}
}
