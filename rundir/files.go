package rundir

// The files of a run directory, by the name each has there. Package eval writes
// them, package reports/runreport reads them, and the test fixtures write them;
// all three take the names from here.
const (
	// ManifestFile describes a run directory: what was run, on what, by which code.
	ManifestFile = "manifest.json"
	// Marker makes a directory ours: it is written first, before any other file,
	// into a directory that was new or empty.
	Marker = ".entropix-eval-run"
	// LockFile is the advisory lock of a run directory: whoever holds it (a run,
	// a merge or a report writing into the directory) is its only writer.
	LockFile = ".lock"
	// JournalFile is the append-only log of finished work items.
	JournalFile = "journal.jsonl"
	// ProblemsFile keeps the exact prompts and targets of a run, so samples.jsonl,
	// rescore and merge never need the dataset or the tokenizer again.
	ProblemsFile = "problems.jsonl"
	// ResultsFile and TracesFile are the result rows and the per-token traces;
	// SummaryFile and ComparisonsFile the report's tables. Each gets a .parquet
	// copy beside it (reports.ParquetPath).
	ResultsFile     = "results.arrow"
	TracesFile      = "traces.arrow"
	SummaryFile     = "summary.arrow"
	ComparisonsFile = "comparisons.arrow"
	// ResultsJSONFile and SamplesFile are the results in lm-evaluation-harness's
	// shapes, so existing tooling reads them.
	ResultsJSONFile = "results.json"
	SamplesFile     = "samples.jsonl"
	// GroupResultsFile is where a group run writes its groups' aggregate scores,
	// beside its tasks' run directories (OUT/<task>/results.json).
	GroupResultsFile = "group_results.json"
	// HTMLFile is the report; FiguresDir and TablesDir hold its figures and tables.
	HTMLFile   = "report.html"
	FiguresDir = "figures"
	TablesDir  = "tables"
	// LMEvalDir holds lm-eval's own output files, one folder per run.
	LMEvalDir = "lm-eval"
)

// Manifest status values: running until every item is journaled; finishing
// once the result files (results.arrow, traces.arrow, results.json,
// samples.jsonl) are written while the files derived from them (report.html,
// summary.arrow, comparisons.arrow, figures/, tables/, lm-eval/) are still
// owed; complete when every file is written. A kill or a full disk while
// finishing leaves "finishing": running the same command again, or report,
// finishes it.
const (
	StatusRunning   = "running"
	StatusFinishing = "finishing"
	StatusComplete  = "complete"
)
