package datasets

import "errors"

// Sentinel errors, wrapped with the file, row/line and column they concern, so
// callers can branch with errors.Is and users still read a precise message.
var (
	// ErrNoRows: a file or a whole dataset holds nothing to evaluate.
	ErrNoRows = errors.New("0 rows")
	// ErrMissingColumn: a required column (Parquet) or key (JSONL) is absent.
	ErrMissingColumn = errors.New("missing column")
	// ErrColumnType: a column or value is not a string.
	ErrColumnType = errors.New("not a string column")
	// ErrNull: a required value is NULL (Parquet) or null (JSONL).
	ErrNull = errors.New("null value")
	// ErrInvalidUTF8: text is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrNotParquet: the bytes are not a complete Parquet file.
	ErrNotParquet = errors.New("not a valid parquet file")
	// ErrSyntax: a JSONL line is not a JSON object.
	ErrSyntax = errors.New("invalid JSON")
	// ErrFormat: the file's extension names no format this package reads.
	ErrFormat = errors.New("unsupported file format")
)
