package figures

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/entropix-eval/entropix-eval/reports"
)

// SVG renders p as an SVG document of size sz.
func SVG(p *plot.Plot, sz Size) (out []byte, err error) {
	defer recoverPlot(&err, "svg")
	c := vgsvg.New(sz.Width, sz.Height)
	drawFigure(p, draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// PDF renders p as a PDF document of size sz with its fonts embedded.
func PDF(p *plot.Plot, sz Size) (out []byte, err error) {
	defer recoverPlot(&err, "pdf")
	c := vgpdf.New(sz.Width, sz.Height)
	c.EmbedFonts(true)
	drawFigure(p, draw.New(cp1252Canvas{c}))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Save writes dir/name.svg and dir/name.pdf at size sz and returns the SVG
// bytes. Both are drawn from the same plot by the same code: the same content.
func Save(p *plot.Plot, dir, name string, sz Size) ([]byte, error) {
	svg, err := SVG(p, sz)
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", name, err)
	}
	pdf, err := PDF(p, sz)
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", name, err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, name+".svg"), svg); err != nil {
		return nil, err
	}
	if err := WriteFileAtomic(filepath.Join(dir, name+".pdf"), pdf); err != nil {
		return nil, err
	}
	return svg, nil
}

// Slug makes a sampler label safe as part of a file name.
func Slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "._")
	if len(out) > 60 {
		out = out[:60]
	}
	if out == "" {
		out = "sampler"
	}
	return out
}

// WriteFileAtomic writes data to path through reports.WriteFileAtomic, so an
// interrupted report never leaves a half-written figure under its real name.
func WriteFileAtomic(path string, data []byte) error {
	return reports.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// cp1252Canvas hands vgpdf its text in Windows-1252, the encoding vgpdf
// embeds its fonts with: given UTF-8, "bits²" would print as "bitsÂ²".
// Characters outside Windows-1252 print as "?", so figure text keeps to it
// (no Δ or − in labels).
type cp1252Canvas struct{ *vgpdf.Canvas }

func (c cp1252Canvas) FillString(f font.Face, pt vg.Point, text string) {
	c.Canvas.FillString(f, pt, toCP1252(text))
}

// toCP1252 encodes s in Windows-1252 (golang.org/x/text), a true minus as
// a hyphen and anything else outside the code page as "?".
func toCP1252(s string) string {
	out, err := encoding.ReplaceUnsupported(charmap.Windows1252.NewEncoder()).String(strings.ReplaceAll(s, "−", "-"))
	if err != nil { // only on invalid UTF-8, which plot text never is
		return s
	}
	return strings.ReplaceAll(out, "\x1a", "?") // the encoder's substitute byte
}
