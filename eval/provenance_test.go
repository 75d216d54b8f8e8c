package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/entropix-eval/entropix-eval/reports"
)

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// The run key and the Arrow files' provenance, derived from a manifest by hand.
func TestArrowProvenanceFromManifest(t *testing.T) {
	m := &Manifest{
		Fingerprint: "f00d",
		Started:     time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC),
		Code:        CodeInfo{Revision: "abc123", Modified: true},
		Provenance: Provenance{
			Model:    []FileSum{{Path: "/m/model.safetensors", SHA256: "11"}, {Path: "/m/tokenizer.json", SHA256: "33"}},
			Datasets: []FileSum{{Path: "/d/test.parquet", SHA256: "22"}},
		},
	}
	assert.Equal(t, reports.Provenance{
		RunKey:           "f00d@2026-11-22T06:00:00Z",
		SweepFingerprint: "f00d",
		// SHA-256 over "<sha256> <base name>\n" per file, in manifest order.
		ModelSHA256:   sha256hex("11 model.safetensors\n33 tokenizer.json\n"),
		DatasetSHA256: sha256hex("22 test.parquet\n"),
		CodeRevision:  "abc123+modified",
	}, m.ArrowProvenance())

	// A run started in another time zone has the same key as in UTC, and a
	// second run of the same sweep another one.
	m.Started = time.Date(2026, 11, 22, 7, 0, 0, 5, time.FixedZone("CET", 3600))
	assert.Equal(t, "f00d@2026-11-22T06:00:00.000000005Z", m.Key())
	m.Code.Modified, m.Provenance = false, Provenance{}
	p := m.ArrowProvenance()
	assert.Equal(t, "abc123", p.CodeRevision)
	assert.Empty(t, p.ModelSHA256, "no files, no hash")
}
