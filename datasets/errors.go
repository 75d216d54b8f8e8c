package datasets

import "github.com/entropix-eval/entropix-eval/internal/usage"

// Sentinel errors, wrapped with the file, row/line and column they concern, so
// callers can branch with errors.Is and users still read a precise message.
// Each is a usage error (internal/usage): the data is wrong, and running
// again cannot help.
var (
	// ErrNoRows: a file or a whole dataset holds nothing to evaluate.
	ErrNoRows = usage.New("0 rows")
	// ErrMissingColumn: a required column (Parquet) or key (JSONL) is absent.
	ErrMissingColumn = usage.New("missing column")
	// ErrColumnType: a column or value is not a string.
	ErrColumnType = usage.New("not a string column")
	// ErrNull: a required value is NULL (Parquet) or null (JSONL).
	ErrNull = usage.New("null value")
	// ErrInvalidUTF8: text is not valid UTF-8.
	ErrInvalidUTF8 = usage.New("invalid UTF-8")
	// ErrNotParquet: the bytes are not a complete Parquet file.
	ErrNotParquet = usage.New("not a valid parquet file")
	// ErrSyntax: a JSONL line is not a JSON object.
	ErrSyntax = usage.New("invalid JSON")
	// ErrFormat: the file's extension names no format this package reads.
	ErrFormat = usage.New("unsupported file format")
)
