package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// StreamDecoder turns generated ids into text one token at a time. It follows the
// Rust library's DecodeStream: it re-decodes a short window of recent ids and
// emits only the new suffix, holding text back while it ends in an incomplete
// UTF-8 sequence (shown as U+FFFD), so a character split over tokens comes out
// whole and decoders that look at neighbours (Strip, Metaspace) behave as in a
// full Decode. Concatenating every Next result and Flush equals Decode of all ids
// (for text without genuine trailing U+FFFD).
type StreamDecoder struct {
	t           *Tokenizer
	skipSpecial bool
	// ids[:prefixIndex] are the ids emitted by the previous step, kept as
	// context (so e.g. a word's leading space survives the Strip decoder);
	// prefix is their decoded text. Ids after them are not emitted yet.
	ids         []int32
	prefix      string
	prefixIndex int
}

// NewStreamDecoder returns a decoder for one generated sequence.
func (t *Tokenizer) NewStreamDecoder(skipSpecial bool) *StreamDecoder {
	return &StreamDecoder{t: t, skipSpecial: skipSpecial}
}

// Next adds one id and returns the text it completes; "" while bytes are held back.
func (d *StreamDecoder) Next(id int32) (string, error) {
	d.ids = append(d.ids, id)
	text, err := d.t.Decode(d.ids, d.skipSpecial)
	if err != nil {
		d.ids = d.ids[:len(d.ids)-1]
		return "", err
	}
	if len(text) <= len(d.prefix) || endsIncomplete(text) {
		return "", nil
	}
	if !strings.HasPrefix(text, d.prefix) {
		// A decoder rewrote earlier text (cannot happen with the supported
		// decoders); emit what is new by length so no text is lost.
		out := text[min(len(d.prefix), len(text)):]
		d.restart()
		return out, nil
	}
	out := text[len(d.prefix):]
	// Keep the ids after the old prefix as context for the next token.
	newPrefixIndex := len(d.ids) - d.prefixIndex
	d.ids = append(d.ids[:0], d.ids[d.prefixIndex:]...)
	if d.prefix, err = d.t.Decode(d.ids, d.skipSpecial); err != nil {
		return "", err
	}
	d.prefixIndex = newPrefixIndex
	return out, nil
}

// Flush returns the text still held back (an incomplete or invalid byte run at
// the end of generation), decoded with U+FFFD, and resets the decoder.
func (d *StreamDecoder) Flush() (string, error) {
	text, err := d.t.Decode(d.ids, d.skipSpecial)
	if err != nil {
		return "", err
	}
	out := ""
	if len(text) > len(d.prefix) && strings.HasPrefix(text, d.prefix) {
		out = text[len(d.prefix):]
	}
	d.restart()
	return out, nil
}

func (d *StreamDecoder) restart() {
	d.ids = d.ids[:0]
	d.prefix = ""
	d.prefixIndex = 0
}

func endsIncomplete(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r == utf8.RuneError
}
