package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
)

// Provenance keys of every Arrow file's schema metadata (traces, results,
// summary, comparisons), so a notebook that concatenates the files of many
// runs can tell which model, data and code each came from. Values are ""
// when the run's manifest does not say.
const (
	MetaRunKey           = "entropix.run_key"           // the run_key column's value: unique across sweeps
	MetaSweepFingerprint = "entropix.sweep_fingerprint" // everything that changes results
	MetaModelSHA256      = "entropix.model_sha256"      // CombineSHA256 of the model files
	MetaDatasetSHA256    = "entropix.dataset_sha256"    // CombineSHA256 of the dataset files
	MetaCodeRevision     = "entropix.code_revision"     // VCS revision, "+modified" when dirty
)

// Provenance is what a run's Arrow files say about where they came from. The
// run directory's manifest is its source (eval builds it); report and rescore
// carry it from results.arrow into summary.arrow and comparisons.arrow.
type Provenance struct {
	// RunKey names one run of one sweep: the sweep fingerprint and the run's
	// start time (eval.Manifest.Key). Every row of the run carries it in its
	// run_key column.
	RunKey           string
	SweepFingerprint string
	ModelSHA256      string
	DatasetSHA256    string
	CodeRevision     string
}

// Metadata is p as schema metadata keys (Meta*).
func (p Provenance) Metadata() map[string]string {
	return map[string]string{
		MetaRunKey: p.RunKey, MetaSweepFingerprint: p.SweepFingerprint,
		MetaModelSHA256: p.ModelSHA256, MetaDatasetSHA256: p.DatasetSHA256,
		MetaCodeRevision: p.CodeRevision,
	}
}

// provenanceOf reads the Meta* keys back; absent keys are "".
func provenanceOf(md map[string]string) Provenance {
	return Provenance{
		RunKey: md[MetaRunKey], SweepFingerprint: md[MetaSweepFingerprint],
		ModelSHA256: md[MetaModelSHA256], DatasetSHA256: md[MetaDatasetSHA256],
		CodeRevision: md[MetaCodeRevision],
	}
}

// HashedFile is one input file by base name and SHA-256 (hex).
type HashedFile struct {
	Name   string
	SHA256 string
}

// CombineSHA256 hashes a list of file hashes into one: SHA-256 over the lines
// "<sha256> <name>\n" in the given order; "" for no files.
func CombineSHA256(files []HashedFile) string {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %s\n", f.SHA256, f.Name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CodeRevision formats a VCS revision for MetaCodeRevision: "+modified" is
// appended for a dirty tree; "" when the revision is unknown.
func CodeRevision(rev string, modified bool) string {
	if rev != "" && modified {
		return rev + "+modified"
	}
	return rev
}

// WithProvenance writes p into the file's schema metadata.
func WithProvenance(p Provenance) WriterOption {
	return func(c *writerConfig) { c.meta = p.Metadata() }
}

// ReadSchemaMetadata returns the schema metadata of the Arrow file at path
// (entropix.schema, entropix.schema_version and the Meta* provenance keys).
func ReadSchemaMetadata(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	defer r.Close()
	md := r.Schema().Metadata()
	out := make(map[string]string, md.Len())
	for i, k := range md.Keys() {
		out[k] = md.Values()[i]
	}
	return out, nil
}

// ReadProvenance reads the provenance keys of the Arrow file at path.
func ReadProvenance(path string) (Provenance, error) {
	md, err := ReadSchemaMetadata(path)
	if err != nil {
		return Provenance{}, err
	}
	return provenanceOf(md), nil
}

// withMetadata returns s with kv added to its metadata, keys sorted.
func withMetadata(s *arrow.Schema, kv map[string]string) *arrow.Schema {
	if len(kv) == 0 {
		return s
	}
	md := s.Metadata()
	keys, vals := append([]string(nil), md.Keys()...), append([]string(nil), md.Values()...)
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		keys, vals = append(keys, k), append(vals, kv[k])
	}
	m := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(s.Fields(), &m)
}
