package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// datasetsConvert is `entropix-eval datasets convert IN OUT`: rewrites a split
// as Parquet or JSONL, GSM8K's two-column layout byte for byte.
func datasetsConvert(args []string, out io.Writer) error {
	fs := newDatasetsFlags("convert")
	codecName := fs.String("compression", "snappy", "Parquet compression: snappy, zstd, gzip or none")
	force := fs.Bool("force", false, "overwrite OUT if it exists")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: convert takes IN and OUT", errUsage)
	}
	in, outPath := fs.Arg(0), fs.Arg(1)
	codec, err := parquetCodec(*codecName)
	if err != nil {
		return err
	}
	format := strings.ToLower(filepath.Ext(outPath))
	if format != ".parquet" && format != ".jsonl" {
		return fmt.Errorf("%w: OUT %s must end in .parquet or .jsonl", errUsage, outPath)
	}
	if _, err := os.Stat(outPath); err == nil && !*force {
		return fmt.Errorf("%s exists (use -force to overwrite)", outPath)
	}
	if format == ".parquet" && isArrowIPCFile(in) {
		// An Arrow IPC file (a run's traces.arrow, say): the Parquet copy keeps its
		// column order, types and metadata, as run writes them.
		if err := reports.ArrowToParquet(in, outPath); err != nil {
			return fmt.Errorf("convert %s -> %s: %w", in, outPath, err)
		}
		fmt.Fprintf(out, "wrote %s from %s (columns, types and metadata kept)\n", outPath, in)
		return nil
	}
	var infos []datasets.FileInfo
	if paths, _ := filepath.Glob(in); len(paths) > 0 {
		for _, p := range paths {
			if info, err := datasets.DescribeFile(p); err == nil {
				infos = append(infos, info)
			}
		}
	}
	if isGSM8KOnly(infos) {
		return convertGSM8K(in, outPath, format, codec, out)
	}
	ds, err := datasets.LoadDocs(in)
	if err != nil {
		return err
	}
	if err := refuseOverwriteInput(ds, outPath); err != nil {
		return err
	}
	docs := docsOf(ds)
	fields := ds.Problems[0].Columns // the first file's order, as inspect shows it
	columns := datasets.DocColumns(docs, fields.Names())
	err = eval.WriteFileAtomic(outPath, func(w io.Writer) error {
		if format == ".parquet" {
			return datasets.WriteDocsParquet(w, docs, codec)
		}
		return datasets.WriteDocsJSONL(w, docs, fields)
	})
	if err != nil {
		return fmt.Errorf("convert %s -> %s: %w", in, outPath, err)
	}
	fmt.Fprintf(out, "wrote %d rows (columns %s) from %d file(s) to %s\n", len(docs), strings.Join(columns, ", "), len(ds.Files), outPath)
	return nil
}

// isArrowIPCFile says whether path is an Arrow IPC file (magic "ARROW1"), not
// the stream format of the datasets cache.
func isArrowIPCFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 6)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == "ARROW1"
}

// isGSM8KOnly: exactly the question and answer columns, as strings.
func isGSM8KOnly(infos []datasets.FileInfo) bool {
	for _, in := range infos {
		if len(in.Columns) != 2 {
			return false
		}
	}
	return isGSM8KLayout(infos)
}

func refuseOverwriteInput(ds *datasets.Dataset, outPath string) error {
	for _, f := range ds.Files {
		if isSameFile(f.Path, outPath) {
			return fmt.Errorf("%w: OUT %s is also an input", errUsage, outPath)
		}
	}
	return nil
}

// convertGSM8K writes the openai/gsm8k layout byte for byte.
func convertGSM8K(in, outPath, format string, codec compress.Codec, out io.Writer) error {
	ds, err := datasets.Load(in)
	if err != nil {
		return err
	}
	if err := refuseOverwriteInput(ds, outPath); err != nil {
		return err
	}
	err = eval.WriteFileAtomic(outPath, func(w io.Writer) error {
		if format == ".parquet" {
			return datasets.WriteParquet(w, ds.Problems, codec)
		}
		return datasets.WriteJSONL(w, ds.Problems)
	})
	if err != nil { // WriteFileAtomic leaves no partial OUT behind
		return fmt.Errorf("convert %s -> %s: %w", in, outPath, err)
	}
	fmt.Fprintf(out, "wrote %d rows (columns question, answer) from %d file(s) to %s\n", len(ds.Problems), len(ds.Files), outPath)
	if bad := datasets.InvalidTargets(ds.Problems); len(bad) > 0 {
		fmt.Fprintf(out, "note: %d row(s) have no \"#### N\" final answer; they were copied as they are\n", len(bad))
	}
	return nil
}

func parquetCodec(name string) (compress.Codec, error) {
	switch strings.ToLower(name) {
	case "snappy":
		return &parquet.Snappy, nil
	case "zstd":
		return &parquet.Zstd, nil
	case "gzip":
		return &parquet.Gzip, nil
	case "none", "uncompressed":
		return &parquet.Uncompressed, nil
	}
	return nil, fmt.Errorf("%w: unknown compression %q (want snappy, zstd, gzip or none)", errUsage, name)
}

func isSameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
