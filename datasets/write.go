package datasets

import (
	"bufio"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// hfFeatures is the key-value entry Hugging Face `datasets` writes into Parquet
// files, declaring both columns as string features.
const hfFeatures = `{"info":{"features":{"question":{"dtype":"string","_type":"Value"},"answer":{"dtype":"string","_type":"Value"}}}}`

// hfRow is the openai/gsm8k row: nullable string columns, as pyarrow writes them.
type hfRow struct {
	Question *string `parquet:"question,optional"`
	Answer   *string `parquet:"answer,optional"`
}

// WriteParquet writes problems in the Hugging Face openai/gsm8k layout:
// columns question, answer (optional BYTE_ARRAY, logical type STRING), one row
// group, the "huggingface" features metadata. codec nil means Snappy, what HF
// and DuckDB use.
func WriteParquet(w io.Writer, ps []Problem, codec compress.Codec) error {
	if codec == nil {
		codec = &parquet.Snappy
	}
	pw := parquet.NewGenericWriter[hfRow](w,
		parquet.Compression(codec),
		parquet.KeyValueMetadata("huggingface", hfFeatures),
		parquet.CreatedBy("entropix-eval", "", ""),
	)
	rows := make([]hfRow, len(ps))
	for i := range ps {
		rows[i] = hfRow{Question: &ps[i].Question, Answer: &ps[i].Answer}
	}
	if _, err := pw.Write(rows); err != nil {
		return fmt.Errorf("write parquet rows: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("write parquet footer: %w", err)
	}
	return nil
}

// WriteJSONL writes one {"question": ..., "answer": ...} object a line, byte
// for byte as Python's json.dumps writes them (", " and ": " separators,
// non-ASCII as lowercase \uXXXX escapes), which is how OpenAI's grade-school-math
// files were made: converting the HF Parquet back gives the original test.jsonl.
func WriteJSONL(w io.Writer, ps []Problem) error {
	bw := bufio.NewWriter(w)
	var line []byte
	for _, p := range ps {
		line = append(line[:0], `{"question": `...)
		line = pyjson.AppendASCIIString(line, p.Question)
		line = append(line, `, "answer": `...)
		line = pyjson.AppendASCIIString(line, p.Answer)
		line = append(line, "}\n"...)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
