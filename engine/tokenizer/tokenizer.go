// Package tokenizer is a pure-Go implementation of Hugging Face tokenizer.json
// files (BPE models, byte-level and SentencePiece-style with byte fallback) that
// encodes and decodes exactly as the Rust tokenizers library does, plus chat
// template rendering from tokenizer_config.json.
//
// A Tokenizer is safe for concurrent use.
package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Tokenizer encodes text to token ids and back.
type Tokenizer struct {
	model         *bpeModel
	normalizer    normalizer
	preTokenizer  preTokenizer
	postProcessor postProcessor
	decoder       decoder

	added         []addedToken
	addedByID     []*addedToken // indexed by id; nil for model tokens
	addedByText   map[string]int32
	rawAdded      *addedMatcher // tokens matched in the text as given
	normAdded     *addedMatcher // tokens matched after normalization
	vocabSize     int
	specialTokens SpecialTokens
	chatTemplate  string
	// path and configPath name the files in errors ("tokenizer.json" and
	// "tokenizer_config.json" when parsed from bytes).
	path, configPath string

	scratchPool sync.Pool
}

// SpecialTokens are the special-token strings tokenizer_config.json names; empty
// when it does not (or when there is no tokenizer_config.json).
type SpecialTokens struct {
	BOS, EOS, Unk, Pad string
}

// Load reads a tokenizer.json file, or the tokenizer.json inside a directory.
// A tokenizer_config.json next to it, when present, supplies the special-token
// strings and the chat template.
func Load(path string) (*Tokenizer, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.path = path
	cfgPath := filepath.Join(filepath.Dir(path), "tokenizer_config.json")
	cfg, err := os.ReadFile(cfgPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("tokenizer: %w", err)
	default:
		if err := t.applyConfig(cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", cfgPath, err)
		}
		t.configPath = cfgPath
	}
	return t, nil
}

// Parse builds a Tokenizer from the bytes of a tokenizer.json file.
func Parse(data []byte) (*Tokenizer, error) {
	var f fileSchema
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t := &Tokenizer{path: "tokenizer.json", configPath: "tokenizer_config.json"}
	var err error
	if t.model, err = newModel(f.Model); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.normalizer, err = newNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.preTokenizer, err = newPreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.postProcessor, err = newPostProcessor(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if t.decoder, err = newDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	if err := t.setAddedTokens(f.AddedTokens); err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	t.scratchPool.New = func() any { return new(scratch) }
	return t, nil
}

func (t *Tokenizer) setAddedTokens(list []addedTokenSchema) error {
	t.added = make([]addedToken, len(list))

	t.addedByText = make(map[string]int32, len(list))
	t.vocabSize = len(t.model.tokens)
	var raw, normalized []addedPattern
	for i, a := range list {
		if a.ID < 0 || int(a.ID) >= len(t.model.tokens)+1<<20 {
			return fmt.Errorf("added_tokens[%d] %q: id %d is negative or far beyond the vocabulary", i, a.Content, a.ID)
		}
		t.added[i] = addedToken{id: a.ID, content: a.Content, singleWord: a.SingleWord,
			lstrip: a.LStrip, rstrip: a.RStrip, normalized: a.Normalized, special: a.Special}
		tok := &t.added[i]
		t.addedByText[a.Content] = a.ID
		t.vocabSize = max(t.vocabSize, int(a.ID)+1)
		if a.Normalized {
			text := a.Content
			if t.normalizer != nil {
				var err error
				if text, err = t.normalizer.normalize(text); err != nil {
					return fmt.Errorf("added_tokens[%d] %q: normalizer: %w", i, a.Content, err)
				}
			}
			normalized = append(normalized, addedPattern{text: text, token: tok})
		} else {
			raw = append(raw, addedPattern{text: a.Content, token: tok})
		}
	}
	t.addedByID = make([]*addedToken, t.vocabSize)
	for i := range t.added {
		t.addedByID[t.added[i].id] = &t.added[i]
	}
	t.rawAdded = newAddedMatcher(raw)
	t.normAdded = newAddedMatcher(normalized)
	return nil
}

func (t *Tokenizer) applyConfig(data []byte) error {
	var c configSchema
	if err := json.Unmarshal(data, &c); err != nil {
		return err
	}
	t.specialTokens = SpecialTokens{BOS: string(c.BOSToken), EOS: string(c.EOSToken), Unk: string(c.UnkToken), Pad: string(c.PadToken)}
	tpl, err := parseChatTemplateField(c.ChatTemplate)
	if err != nil {
		return err
	}
	t.chatTemplate = tpl
	return nil
}

// Encode returns the ids of text; addSpecial applies the post-processor (e.g.
// the BOS of Llama models), like add_special_tokens in Hugging Face. Invalid UTF-8
// is first replaced by U+FFFD, as any caller of the Rust library must do.
func (t *Tokenizer) Encode(text string, addSpecial bool) ([]int32, error) {
	return t.AppendEncode(make([]int32, 0, len(text)/3+4), text, addSpecial)
}

// AppendEncode is Encode appending to dst, so callers can reuse a buffer.
func (t *Tokenizer) AppendEncode(dst []int32, text string, addSpecial bool) ([]int32, error) {
	out, err := t.appendEncode(dst, text, addSpecial)
	if err != nil {
		return nil, fmt.Errorf("%s: encode: %w", t.path, err)
	}
	return out, nil
}

func (t *Tokenizer) appendEncode(dst []int32, text string, addSpecial bool) ([]int32, error) {
	text = lossyString(text)
	sc := t.scratchPool.Get().(*scratch)
	defer t.scratchPool.Put(sc)
	start := len(dst)
	var err error
	segs := t.rawAdded.split(sc.segments[:0], text, 0)
	for _, seg := range segs {
		if seg.token != nil {
			dst = append(dst, seg.token.id)
			continue
		}
		if seg.s == "" {
			continue
		}
		norm := seg.s
		if t.normalizer != nil {
			if norm, err = t.normalizer.normalize(norm); err != nil {
				return nil, fmt.Errorf("normalizer: %w", err)
			}
		}
		sub := t.normAdded.split(sc.subSegments[:0], norm, 0)
		for _, s := range sub {
			if s.token != nil {
				dst = append(dst, s.token.id)
				continue
			}
			if dst, err = t.encodePlain(dst, piece{s: s.s, first: seg.start == 0 && s.start == 0}, sc); err != nil {
				return nil, err
			}
		}
		sc.subSegments = sub
	}
	sc.segments = segs
	if addSpecial && t.postProcessor != nil {
		ids := t.postProcessor.process(dst[start:])
		dst = append(dst[:start], ids...)
	}
	return dst, nil
}

// encodePlain pre-tokenizes normalized text and runs the model on each word.
func (t *Tokenizer) encodePlain(dst []int32, p piece, sc *scratch) ([]int32, error) {
	if p.s == "" {
		return dst, nil
	}
	if len(p.s) > MaxScanBytes {
		return nil, fmt.Errorf("a piece of %d bytes between special tokens is more than the %d bytes scanned in one piece", len(p.s), MaxScanBytes)
	}
	words := sc.pieces[:0]
	var err error
	switch {
	case t.preTokenizer != nil:
		if words, err = t.preTokenizer.preTokenize(words, p, sc); err != nil {
			return nil, fmt.Errorf("pre_tokenizer: %w", err)
		}
	case t.model.splitsAtMetaspace:
		words = appendMetaspaceWords(words, p)
	default:
		words = append(words, p)
	}
	sc.pieces = words
	for _, w := range words {
		if dst, err = t.model.tokenizePiece(dst, w, sc); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// tokenText is the string of an id: an added token's content or the model's
// vocab entry.
func (t *Tokenizer) tokenText(id int32) (string, bool) {
	if a := t.addedToken(id); a != nil {
		return a.content, true
	}
	return t.model.idToToken(id)
}

func (t *Tokenizer) addedToken(id int32) *addedToken {
	if id < 0 || int(id) >= len(t.addedByID) {
		return nil
	}
	return t.addedByID[id]
}

// Decode returns the text of ids. skipSpecial drops special added tokens, like
// skip_special_tokens in Hugging Face. An id outside the vocabulary is an error.
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool) (string, error) {
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		s, ok := t.tokenText(id)
		if !ok {
			return "", fmt.Errorf("tokenizer: decode: id %d is not in the vocabulary (size %d)", id, t.vocabSize)
		}
		if skipSpecial && t.isSpecial(id) {
			continue
		}
		tokens = append(tokens, s)
	}
	if t.decoder == nil {
		return strings.Join(tokens, " "), nil
	}
	out, err := t.decoder.decodeChain(tokens)
	if err != nil {
		return "", fmt.Errorf("%s: decode: decoder: %w", t.path, err)
	}
	return strings.Join(out, ""), nil
}

func (t *Tokenizer) isSpecial(id int32) bool {
	a := t.addedToken(id)
	return a != nil && a.special
}

// IsSpecial reports whether id is a special added token (BOS, EOS, chat markers…).
func (t *Tokenizer) IsSpecial(id int32) bool { return t.isSpecial(id) }

// TokenID returns the id of a token string (an added token or a vocab entry).
func (t *Tokenizer) TokenID(text string) (int32, bool) {
	if id, ok := t.addedByText[text]; ok {
		return id, true
	}
	id, ok := t.model.vocab[text]
	return id, ok
}

// TokenText returns the raw vocabulary string of id (e.g. "Ġthe" or "<0x0A>").
func (t *Tokenizer) TokenText(id int32) (string, bool) { return t.tokenText(id) }

// VocabSize is the number of ids, added tokens included (the highest id + 1).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// SpecialTokens returns the special-token strings of tokenizer_config.json.
func (t *Tokenizer) SpecialTokens() SpecialTokens { return t.specialTokens }

// BOS returns the BOS token string and id, when tokenizer_config.json names one
// that the vocabulary has.
func (t *Tokenizer) BOS() (string, int32, bool) { return t.lookupSpecial(t.specialTokens.BOS) }

// EOS returns the EOS token string and id, when tokenizer_config.json names one
// that the vocabulary has.
func (t *Tokenizer) EOS() (string, int32, bool) { return t.lookupSpecial(t.specialTokens.EOS) }

func (t *Tokenizer) lookupSpecial(s string) (string, int32, bool) {
	if s == "" {
		return "", -1, false
	}
	id, ok := t.TokenID(s)
	return s, id, ok
}
