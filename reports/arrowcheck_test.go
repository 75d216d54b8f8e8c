package reports

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestArrowFilesReadByNode has an independent implementation, the apache-arrow
// npm package (reports/arrowcheck), read the files this package writes and
// compare schema and values with what was written, and the Go reader read the
// files apache-arrow writes back. It needs
// `npm ci --prefix reports/arrowcheck`; without it the test skips, unless
// ENTROPIX_ARROWCHECK=1 (CI), where a missing install is a failure.
func TestArrowFilesReadByNode(t *testing.T) {
	required := os.Getenv("ENTROPIX_ARROWCHECK") == "1"
	unavailable := func(why string) {
		if required {
			t.Fatalf("ENTROPIX_ARROWCHECK=1 but %s (run: npm ci --prefix reports/arrowcheck)", why)
		}
		t.Skipf("%s; set up with: npm ci --prefix reports/arrowcheck", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join("arrowcheck", "node_modules", "apache-arrow", "package.json")); err != nil {
		unavailable("reports/arrowcheck/node_modules is not installed")
	}

	dir := t.TempDir()
	traces := sampleTraces()
	// Several record batches, so the reader has to join them.
	prov := Provenance{RunKey: "fp@2026-11-22T06:00:00Z", SweepFingerprint: "fp", ModelSHA256: "m", DatasetSHA256: "d", CodeRevision: "r"}
	w, err := CreateTraces(filepath.Join(dir, "traces.arrow"), WithBatchRows(2), WithProvenance(prov))
	require.NoError(t, err)
	for i := range traces {
		require.NoError(t, w.Write(&traces[i]))
	}
	require.NoError(t, w.Close())
	require.NoError(t, WriteResults(filepath.Join(dir, "results.arrow"), sampleResults(), WithProvenance(prov)))
	require.NoError(t, WriteSummary(filepath.Join(dir, "summary.arrow"), sampleSummary(), WithProvenance(prov)))
	require.NoError(t, WriteComparisons(filepath.Join(dir, "comparisons.arrow"), sampleComparisons(), prov))

	expected := map[string]any{"files": map[string]any{
		"traces.arrow":      expectFile(KindTraces, traceColumns, traces, 2),
		"results.arrow":     expectFile(KindResults, testResultColumns(), sampleResults(), 1),
		"summary.arrow":     expectFile(KindSummary, summaryColumns, sampleSummary(), 1),
		"comparisons.arrow": expectFile(KindComparisons, comparisonColumns, sampleComparisons(), 1),
	}}
	// Every file carries the provenance, under the keys a notebook reads.
	for _, f := range expected["files"].(map[string]any) {
		f.(map[string]any)["metadata"] = map[string]string{
			"entropix.run_key": "fp@2026-11-22T06:00:00Z", "entropix.sweep_fingerprint": "fp",
			"entropix.model_sha256": "m", "entropix.dataset_sha256": "d", "entropix.code_revision": "r",
			"entropix.schema_version": SchemaVersion,
		}
	}
	b, err := json.MarshalIndent(expected, "", " ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "expected.json"), b, 0o644))

	out, err := exec.Command(node, filepath.Join("arrowcheck", "check.mjs"), dir).CombinedOutput()
	require.NoError(t, err, "apache-arrow disagrees with the Go writer:\n%s", out)
	t.Logf("%s", out)

	// Reverse direction: the files apache-arrow wrote back read into the same rows.
	jsTraces, err := ReadTraces(filepath.Join(dir, "js", "traces.arrow"))
	require.NoError(t, err)
	require.Equal(t, cells(traceColumns, traces), cells(traceColumns, jsTraces))
	jsResults, err := ReadResults(filepath.Join(dir, "js", "results.arrow"))
	require.NoError(t, err)
	require.Equal(t, cells(testResultColumns(), sampleResults()), cells(testResultColumns(), jsResults))
	jsSummary, err := ReadSummary(filepath.Join(dir, "js", "summary.arrow"))
	require.NoError(t, err)
	require.Equal(t, cells(summaryColumns, sampleSummary()), cells(summaryColumns, jsSummary))
	jsComparisons, err := ReadComparisons(filepath.Join(dir, "js", "comparisons.arrow"))
	require.NoError(t, err)
	require.Equal(t, cells(comparisonColumns, sampleComparisons()), cells(comparisonColumns, jsComparisons))

	// The check must be able to fail: a wrong value and a wrong type are caught.
	files := expected["files"].(map[string]any)
	results := files["results.arrow"].(map[string]any)
	results["rows"].([]map[string]any)[1]["seed"] = "1"
	results["metadata"].(map[string]string)["entropix.run_key"] = "other"
	for _, f := range results["fields"].([]map[string]any) {
		if f["name"] == ColProblemID {
			f["type"] = "int64"
		}
	}
	b, err = json.Marshal(expected)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "expected.json"), b, 0o644))
	out, err = exec.Command(node, filepath.Join("arrowcheck", "check.mjs"), dir).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "results.arrow: row 1 column seed: got -9223372036854775808n, want \"1\"")
	require.Contains(t, string(out), "results.arrow: column problem_id has type int32, want int64")
	require.Contains(t, string(out), `results.arrow: schema metadata entropix.run_key = "fp@2026-11-22T06:00:00Z", want "other"`)
}

// expectFile describes a file for check.mjs: its schema as Go's Arrow names the
// types, and every cell as JSON (int64 as a decimal string, non-finite floats
// as strings) so nothing is lost in JavaScript numbers.
func expectFile[R any](kind string, cols []column[R], rows []R, minBatches int) map[string]any {
	var fields []map[string]any
	for _, c := range cols {
		fields = append(fields, map[string]any{"name": c.field.Name, "type": c.field.Type.Name(), "nullable": c.field.Nullable})
	}
	var cells []map[string]any
	for i := range rows {
		row := map[string]any{}
		for _, c := range cols {
			row[c.field.Name] = jsonCell(c.value(&rows[i]))
		}
		cells = append(cells, row)
	}
	return map[string]any{"kind": kind, "fields": fields, "rows": cells, "min_batches": minBatches}
}

func jsonCell(v any) any {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		case x == 0 && math.Signbit(x):
			return "-0"
		}
		return json.RawMessage(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return v
}
