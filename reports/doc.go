// Package reports owns the harness's published file formats and the statistics
// behind its tables: Arrow schemas, writers and readers for traces.arrow,
// results.arrow, summary.arrow and comparisons.arrow, and accuracy, paired
// bootstrap, sign-flip permutation, McNemar and Holm computations over problems.
//
// Column names and types are a published interface (docs/files.md): a
// change is a new schema version, never a silent edit. Each schema lists its
// columns once (schemas.go); the writer, the reader and the Arrow schema are all
// derived from that one list so they cannot drift apart.
package reports
