package datasets

import (
	"bufio"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Bounds on what a Parquet file decompresses to. parquet-go allocates a
// page's declared uncompressed size and decompresses it whole: a 17 KB zstd
// file took 1.08 GB. Evaluation splits are far smaller (GSM8K's test split is
// 2.4 MB uncompressed).
var (
	maxParquetPageBytes  int32 = 64 << 20
	maxParquetTotalBytes int64 = 256 << 20
)

// checkParquetSizes reads every page header of f (without decompressing
// anything) and refuses a page or a file beyond the bounds, as declared by
// the footer and by the page headers. parquet-go offers no limit of its own,
// so a page that understates its size is the one case left to the
// decompressor.
func checkParquetSizes(name string, r io.ReaderAt, size int64, f *parquet.File) error {
	var total int64
	for g, rg := range f.Metadata().RowGroups {
		for c, col := range rg.Columns {
			md := col.MetaData
			where := fmt.Sprintf("%s: row group %d, column %d", name, g, c)
			if md.TotalUncompressedSize > maxParquetTotalBytes {
				return fmt.Errorf("%s: %w: it declares %d bytes uncompressed (at most %d)", where, ErrTooLarge, md.TotalUncompressedSize, maxParquetTotalBytes)
			}
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			if start < 0 || md.TotalCompressedSize < 0 || start > size || md.TotalCompressedSize > size-start {
				return fmt.Errorf("%s: %w: column chunk outside the file", where, ErrNotParquet)
			}
			n, err := pageBytes(io.NewSectionReader(r, start, md.TotalCompressedSize), where)
			if err != nil {
				return err
			}
			if total += n; total > maxParquetTotalBytes {
				return fmt.Errorf("%s: %w: its pages declare more than %d bytes uncompressed", name, ErrTooLarge, maxParquetTotalBytes)
			}
		}
	}
	return nil
}

// pageBytes sums the uncompressed sizes the page headers of one column chunk
// declare, refusing a page over maxParquetPageBytes.
func pageBytes(chunk *io.SectionReader, where string) (int64, error) {
	br := &countingReader{r: bufio.NewReader(chunk)}
	var protocol thrift.CompactProtocol
	dec := thrift.NewDecoder(protocol.NewReader(br))
	var total int64
	for page := 0; br.n < chunk.Size(); page++ {
		var h format.PageHeader
		if err := dec.Decode(&h); err != nil {
			return 0, fmt.Errorf("%s, page %d: %w: header: %w", where, page, ErrNotParquet, err)
		}
		if h.UncompressedPageSize < 0 || h.CompressedPageSize < 0 {
			return 0, fmt.Errorf("%s, page %d: %w: negative page size", where, page, ErrNotParquet)
		}
		if h.UncompressedPageSize > maxParquetPageBytes {
			return 0, fmt.Errorf("%s, page %d: %w: it declares %d bytes uncompressed (at most %d a page)", where, page, ErrTooLarge, h.UncompressedPageSize, maxParquetPageBytes)
		}
		total += int64(h.UncompressedPageSize)
		if _, err := br.discard(int(h.CompressedPageSize)); err != nil {
			return 0, fmt.Errorf("%s, page %d: %w: %w", where, page, ErrNotParquet, err)
		}
	}
	return total, nil
}

// countingReader counts the bytes its reader gave out.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func (c *countingReader) discard(n int) (int, error) {
	d, err := c.r.Discard(n)
	c.n += int64(d)
	return d, err
}
