package figures

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var pdfImageDict = regexp.MustCompile(`(?s)/Subtype /Image\n(.*?)/Length (\d+)>>\nstream\n`)

// pdfImages checks every image XObject of a PDF: its Flate data, undone,
// must hold exactly Height rows of one PNG-predictor byte and
// Width·Colors·BitsPerComponent/8 sample bytes, as its header says.
func checkPDFImages(t *testing.T, pdf []byte) int {
	t.Helper()
	field := func(dict []byte, name string) int {
		m := regexp.MustCompile(`/` + name + ` (\d+)`).FindSubmatch(dict)
		require.NotNil(t, m, "image without /%s", name)
		v, err := strconv.Atoi(string(m[1]))
		require.NoError(t, err)
		return v
	}
	n := 0
	for _, m := range pdfImageDict.FindAllSubmatchIndex(pdf, -1) {
		dict := pdf[m[2]:m[3]]
		length, err := strconv.Atoi(string(pdf[m[4]:m[5]]))
		require.NoError(t, err)
		zr, err := zlib.NewReader(bytes.NewReader(pdf[m[1] : m[1]+length]))
		require.NoError(t, err)
		data, err := io.ReadAll(zr)
		require.NoError(t, err)
		colors := 1
		if c := regexp.MustCompile(`/Colors (\d+)`).FindSubmatch(dict); c != nil {
			colors, _ = strconv.Atoi(string(c[1]))
		}
		w, h, bpc := field(dict, "Width"), field(dict, "Height"), field(dict, "BitsPerComponent")
		assert.Equal(t, h*(1+w*colors*bpc/8), len(data),
			"image %d×%d, %d colours at %d bits: the data does not match the header", w, h, colors, bpc)
		n++
	}
	return n
}

// gonum's rasterised heat map embedded a 16-bit header over 8-bit samples:
// every image a figure's PDF holds must match its header (the density has
// none now: its cells are vector rectangles).
func TestFigurePDFImagesMatchTheirHeaders(t *testing.T) {
	for name, p := range allFigures(t) {
		pdf, err := PDF(p, OneColumn)
		require.NoError(t, err, name)
		checkPDFImages(t, pdf)
	}
}

// vgpdf's fonts are Windows-1252: the label must reach the PDF as
// "bits" 0xB2, not the UTF-8 bytes C2 B2 that print as "bitsÂ²".
func TestPDFTextIsWindows1252(t *testing.T) {
	p, err := Density(density())
	require.NoError(t, err)
	pdf, err := PDF(p, OneColumn)
	require.NoError(t, err)
	text := inflatedStreams(t, pdf)
	assert.Contains(t, text, "(varentropy \\(bits\xb2\\))")
	assert.NotContains(t, text, "\xc2\xb2")
	assert.Equal(t, "a-b ? x\xd7y", toCP1252("a−b Δ x×y"))
}

// inflatedStreams returns every Flate stream of a PDF, inflated, joined.
func inflatedStreams(t *testing.T, pdf []byte) string {
	t.Helper()
	var out bytes.Buffer
	for _, m := range regexp.MustCompile(`/Length (\d+)>>\nstream\n`).FindAllSubmatchIndex(pdf, -1) {
		length, _ := strconv.Atoi(string(pdf[m[2]:m[3]]))
		zr, err := zlib.NewReader(bytes.NewReader(pdf[m[1] : m[1]+length]))
		if err != nil {
			out.Write(pdf[m[1] : m[1]+length])
			continue
		}
		b, _ := io.ReadAll(zr)
		out.Write(b)
	}
	return out.String()
}
