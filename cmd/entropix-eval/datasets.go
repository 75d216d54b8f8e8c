package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

func init() {
	register(command{
		name:    "datasets",
		summary: "inspect a dataset (schema, rows, problems) or convert JSONL <-> Parquet",
		examples: []string{
			`entropix-eval datasets inspect "data/gsm8k/test-*.parquet"`,
			`entropix-eval datasets convert test.jsonl test.parquet --compression zstd`,
		},
		run: func(ctx context.Context, args []string) error {
			return runDatasets(args, os.Stdout)
		},
	})
}

const datasetsUsage = `usage: entropix-eval datasets inspect [-n ROWS] [-width CHARS] GLOB
       entropix-eval datasets convert [-compression snappy|zstd|gzip|none] [-force] IN OUT

inspect  shows each file's format, rows and schema, the first rows with their
         targets, and validation problems; exits 1 if the dataset cannot be loaded.
convert  reads IN (a .jsonl/.parquet file or a glob of shards, rows numbered in
         sorted file order) and writes OUT in the format of its extension:
         Parquet in the Hugging Face openai/gsm8k layout, or JSONL as OpenAI's
         grade-school-math files are written.`

func runDatasets(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, datasetsUsage)
		return fmt.Errorf("%w: datasets needs a subcommand (inspect or convert)", errUsage)
	}
	switch args[0] {
	case "inspect":
		return datasetsInspect(args[1:], stdout)
	case "convert":
		return datasetsConvert(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprintln(helpOut, datasetsUsage)
		printExamples("datasets", helpOut)
		return flag.ErrHelp
	}
	return fmt.Errorf("%w: unknown datasets subcommand %q (want inspect or convert)", errUsage, args[0])
}

func newDatasetsFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("datasets "+name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), datasetsUsage)
		fs.PrintDefaults()
	}
	return fs
}

func datasetsInspect(args []string, out io.Writer) error {
	fs := newDatasetsFlags("inspect")
	nRows := fs.Int("n", 3, "number of first rows to show")
	width := fs.Int("width", 120, "truncate shown values to this many characters (0: no limit)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: inspect takes one GLOB", errUsage)
	}
	pattern := fs.Arg(0)
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return fmt.Errorf("%w: bad glob %q: %v", errUsage, pattern, err)
	}
	if len(paths) == 0 {
		paths = []string{pattern} // let the loader say why (missing file, no match)
	}

	fmt.Fprintf(out, "dataset %s\n\n", pattern)
	var problems []string
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\trows\trow groups\tcreated by\tmetadata")
	var infos []datasets.FileInfo
	for _, p := range paths {
		info, err := datasets.DescribeFile(p)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		infos = append(infos, info)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", p, info.Format, info.Rows, rowGroupsCell(info), dashIfEmpty(info.CreatedBy), dashIfEmpty(strings.Join(info.Metadata, ", ")))
	}
	tw.Flush()

	printSchemas(out, infos)

	ds, loadErr := datasets.Load(pattern)
	if loadErr == nil {
		fmt.Fprintf(out, "\n%d rows", len(ds.Problems))
		if len(ds.Files) > 1 {
			fmt.Fprintf(out, " in %d files (doc id = row index across the files in sorted order)", len(ds.Files))
		}
		fmt.Fprintln(out)
		printFirstRows(out, ds.Problems, *nRows, *width)
		problems = append(problems, datasets.Validate(ds.Problems)...)
	} else if len(problems) == 0 { // else a file's own error above already says why
		problems = append(problems, loadErr.Error())
	}

	fmt.Fprintln(out, "\nvalidation")
	if len(problems) == 0 {
		fmt.Fprintln(out, "  ok: every row has a question, an answer and a \"#### N\" target")
	}
	for _, p := range problems {
		fmt.Fprintln(out, "  - "+p)
	}
	if loadErr != nil {
		return fmt.Errorf("dataset cannot be loaded: %w", loadErr)
	}
	return nil
}

func rowGroupsCell(info datasets.FileInfo) string {
	if info.Format != "parquet" {
		return "-"
	}
	return fmt.Sprint(info.RowGroups)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printSchemas prints the schema once when every file shares it, else per file.
func printSchemas(out io.Writer, infos []datasets.FileInfo) {
	if len(infos) == 0 {
		return
	}
	same := true
	for _, in := range infos[1:] {
		same = same && fmt.Sprint(in.Columns) == fmt.Sprint(infos[0].Columns)
	}
	show := infos
	if same {
		show = infos[:1]
	}
	for _, in := range show {
		title := "schema"
		if !same {
			title = "schema of " + in.Path
		}
		fmt.Fprintf(out, "\n%s\n", title)
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, c := range in.Columns {
			opt := "required"
			if c.Optional {
				opt = "optional"
			}
			if in.Format == "jsonl" {
				opt = "-"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Name, c.Type, opt, dashIfEmpty(c.Compression))
		}
		tw.Flush()
	}
}

func printFirstRows(out io.Writer, ps []datasets.Problem, n, width int) {
	n = min(n, len(ps))
	if n <= 0 {
		return
	}
	fmt.Fprintf(out, "\nfirst %d rows\n", n)
	for _, p := range ps[:n] {
		fmt.Fprintf(out, "  doc %d (%s row %d)\n", p.Index, filepath.Base(p.Source), p.Row)
		fmt.Fprintf(out, "    question  %s\n", oneLine(p.Question, width))
		fmt.Fprintf(out, "    answer    %s\n", oneLine(p.Answer, width))
		target := p.Target
		if !p.TargetValid {
			target = "(invalid: no \"#### N\" line)"
		}
		fmt.Fprintf(out, "    target    %s\n", target)
	}
}

// oneLine makes a value one line (newlines as \n) and cuts it to width runes.
func oneLine(s string, width int) string {
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
	if r := []rune(s); width > 0 && len(r) > width {
		return string(r[:width]) + "…"
	}
	return s
}

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
	ds, err := datasets.Load(in)
	if err != nil {
		return err
	}
	for _, f := range ds.Files {
		if isSameFile(f.Path, outPath) {
			return fmt.Errorf("%w: OUT %s is also an input", errUsage, outPath)
		}
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
