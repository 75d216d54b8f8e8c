package eval

import "github.com/entropix-eval/entropix-eval/rundir"

// A run directory's types and file names are package rundir's: package reports
// reads run directories too and cannot import eval. Eval names them as its own.
type (
	Config      = rundir.Config
	TaskSpec    = rundir.TaskSpec
	Job         = rundir.Job
	ItemKey     = rundir.ItemKey
	Shard       = rundir.Shard
	Manifest    = rundir.Manifest
	FileSum     = rundir.FileSum
	Provenance  = rundir.Provenance
	CodeInfo    = rundir.CodeInfo
	SamplerInfo = rundir.SamplerInfo
	RunStats    = rundir.RunStats
)

// File names (rundir's; see there), manifest statuses and a sweep's defaults.
const (
	ManifestFile     = rundir.ManifestFile
	RunDirMarker     = rundir.Marker
	LockFile         = rundir.LockFile
	JournalFile      = rundir.JournalFile
	ProblemsFile     = rundir.ProblemsFile
	ResultsArrow     = rundir.ResultsFile
	TracesArrow      = rundir.TracesFile
	ResultsJSONFile  = rundir.ResultsJSONFile
	SamplesFile      = rundir.SamplesFile
	GroupResultsFile = rundir.GroupResultsFile

	StatusRunning   = rundir.StatusRunning
	StatusFinishing = rundir.StatusFinishing
	StatusComplete  = rundir.StatusComplete

	DefaultBackend   = rundir.DefaultBackend
	DefaultBatchSize = rundir.DefaultBatchSize
	DefaultMaxSeqLen = rundir.DefaultMaxSeqLen
	DefaultChunk     = rundir.DefaultChunk
)

// ParseShard reads "i/n" with 0 ≤ i < n (rundir.ParseShard).
func ParseShard(s string) (Shard, error) { return rundir.ParseShard(s) }

// ExpandJobs lists a config's jobs in the canonical order (rundir.ExpandJobs).
func ExpandJobs(c Config) []Job { return rundir.ExpandJobs(c) }
