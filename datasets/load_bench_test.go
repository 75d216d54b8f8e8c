package datasets

import (
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// One op loads the whole GSM8K test split (1319 rows). Compare the Parquet
// figures with the JSONL one, taken in the same run.
func benchmarkLoad(b *testing.B, rel string) {
	path := sharedtest.Path(b, rel)
	b.ReportAllocs()
	for b.Loop() {
		ds, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(ds.Problems) != 1319 {
			b.Fatalf("%d rows", len(ds.Problems))
		}
	}
}

func BenchmarkLoadTestParquetSnappy(b *testing.B) {
	benchmarkLoad(b, "data/gsm8k/main/test-00000-of-00001.parquet")
}

func BenchmarkLoadTestParquetZstdRowGroups(b *testing.B) {
	benchmarkLoad(b, "data/gsm8k/variants/test-zstd-rg256.parquet")
}

func BenchmarkLoadTestJSONL(b *testing.B) { benchmarkLoad(b, "data/gsm8k/test.jsonl") }
