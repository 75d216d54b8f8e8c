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
)

func init() {
	register(command{
		name:    "datasets",
		summary: "inspect a dataset (schema, rows, problems) or convert it to JSONL or Parquet",
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

inspect  shows each file's format, rows and schema, the first rows (every
         column), and validation problems; exits 1 if the dataset cannot be
         loaded. A GSM8K layout (string question and answer columns) is checked
         as the GSM8K tasks read it: its "#### N" targets are shown and checked.
convert  reads IN (a .parquet/.jsonl/.csv/.arrow file or a glob of shards, rows
         numbered in sorted file order) and writes OUT in the format of its
         extension, every column kept: JSONL (keys in the input's column order)
         or Parquet (typed, nullable columns). A dataset of exactly question and
         answer is written in the Hugging Face openai/gsm8k layout (Parquet) or
         as OpenAI's grade-school-math files are (JSONL), byte for byte.`

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
		printFlags(fs, fs.Output())
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

	if isGSM8KLayout(infos) {
		problems, loadErr := inspectGSM8K(out, pattern, problems, *nRows, *width)
		return printValidation(out, problems, loadErr, `ok: every row has a question, an answer and a "#### N" target`)
	}
	ds, loadErr := datasets.LoadDocs(pattern)
	if loadErr == nil {
		printRowCount(out, ds)
		columns := datasets.DocColumns(docsOf(ds), schemaOrder(infos))
		printFirstDocs(out, ds.Problems, columns, *nRows, *width)
		problems = append(problems, datasets.ValidateDocs(ds.Problems, columns)...)
	} else if len(problems) == 0 {
		problems = append(problems, loadErr.Error())
	}
	return printValidation(out, problems, loadErr, "ok: every column is set in every row")
}

// isGSM8KLayout says whether the files have a question column and a string
// answer column: GSM8K's layout, checked as its tasks read it (a question of
// another type is then reported as such). MMLU's integer answer is not it.
func isGSM8KLayout(infos []datasets.FileInfo) bool {
	for _, in := range infos {
		var q, a bool
		for _, c := range in.Columns {
			q = q || c.Name == "question"
			a = a || (c.Name == "answer" && (strings.Contains(c.Type, "BYTE_ARRAY") || c.Type == "string"))
		}
		if !q || !a {
			return false
		}
	}
	return len(infos) > 0
}

func inspectGSM8K(out io.Writer, pattern string, problems []string, nRows, width int) ([]string, error) {
	ds, loadErr := datasets.Load(pattern)
	if loadErr == nil {
		printRowCount(out, ds)
		printFirstRows(out, ds.Problems, nRows, width)
		problems = append(problems, datasets.Validate(ds.Problems)...)
	} else if len(problems) == 0 { // else a file's own error above already says why
		problems = append(problems, loadErr.Error())
	}
	return problems, loadErr
}

func printRowCount(out io.Writer, ds *datasets.Dataset) {
	fmt.Fprintf(out, "\n%d rows", len(ds.Problems))
	if len(ds.Files) > 1 {
		fmt.Fprintf(out, " in %d files (doc id = row index across the files in sorted order)", len(ds.Files))
	}
	fmt.Fprintln(out)
}

func printValidation(out io.Writer, problems []string, loadErr error, ok string) error {
	fmt.Fprintln(out, "\nvalidation")
	if len(problems) == 0 {
		fmt.Fprintln(out, "  "+ok)
	}
	for _, p := range problems {
		fmt.Fprintln(out, "  - "+p)
	}
	if loadErr != nil {
		return fmt.Errorf("dataset cannot be loaded: %w", loadErr)
	}
	return nil
}

func docsOf(ds *datasets.Dataset) []datasets.Doc {
	docs := make([]datasets.Doc, len(ds.Problems))
	for i, p := range ds.Problems {
		docs[i] = p.Doc
	}
	return docs
}

// schemaOrder is the first file's column order.
func schemaOrder(infos []datasets.FileInfo) []string {
	var out []string
	if len(infos) > 0 {
		for _, c := range infos[0].Columns {
			out = append(out, c.Name)
		}
	}
	return out
}

// printFirstDocs shows the first docs, every column, non-strings as JSON
// (as convert writes them: 2.0, NaN, Infinity; a struct's keys sorted).
func printFirstDocs(out io.Writer, ps []datasets.Problem, columns []string, n, width int) {
	eachFirstRow(out, ps, n, func(p datasets.Problem) {
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		for _, c := range columns {
			v, ok := p.Doc[c]
			if !ok {
				continue
			}
			s, isString := v.(string)
			if !isString {
				b, err := datasets.EncodeValue(v, nil)
				if err != nil {
					b = fmt.Appendf(nil, "(%v)", err)
				}
				s = string(b)
			}
			fmt.Fprintf(tw, "    %s\t%s\n", c, oneLine(s, width))
		}
		tw.Flush()
	})
}

// eachFirstRow heads the first n rows and calls show for each under its doc line.
func eachFirstRow(out io.Writer, ps []datasets.Problem, n int, show func(datasets.Problem)) {
	n = min(n, len(ps))
	if n <= 0 {
		return
	}
	fmt.Fprintf(out, "\nfirst %d rows\n", n)
	for _, p := range ps[:n] {
		fmt.Fprintf(out, "  doc %d (%s row %d)\n", p.Index, filepath.Base(p.Source), p.Row)
		show(p)
	}
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
	eachFirstRow(out, ps, n, func(p datasets.Problem) {
		fmt.Fprintf(out, "    question  %s\n", oneLine(p.Question, width))
		fmt.Fprintf(out, "    answer    %s\n", oneLine(p.Answer, width))
		target := p.Target
		if !p.TargetValid {
			target = "(invalid: no \"#### N\" line)"
		}
		fmt.Fprintf(out, "    target    %s\n", target)
	})
}

// oneLine makes a value one line (newlines as \n) and cuts it to width runes.
func oneLine(s string, width int) string {
	s = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
	if r := []rune(s); width > 0 && len(r) > width {
		return string(r[:width]) + "…"
	}
	return s
}
